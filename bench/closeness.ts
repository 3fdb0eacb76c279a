/**
 * The largest |x - y| over the elements, relative to the largest |y| or `floor` if that is larger
 * (so that values near zero do not inflate it): how two computations of one tensor compare up to
 * float rounding (the bench's weights after our products and tfjs's; the kernel and gradient
 * tests). Arrays of different lengths are not comparable: an Error.
 */
export function scaledDifference(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  { floor = 1 }: { floor?: number } = {},
): number {
  if (x.length !== y.length) throw new Error(`lengths differ: ${x.length} and ${y.length}`);
  let scale = floor;
  let largest = 0;
  for (let i = 0; i < x.length; i++) {
    scale = Math.max(scale, Math.abs(y[i]!));
    largest = Math.max(largest, Math.abs(x[i]! - y[i]!));
  }
  return largest / scale;
}
