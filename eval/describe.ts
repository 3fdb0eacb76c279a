import { checkNonEmpty } from './validate.ts';

/**
 * Arithmetic mean.
 * @throws RangeError on an empty array.
 * @example mean([1, 2, 3]) // 2
 */
export function mean(values: ArrayLike<number>): number {
  checkNonEmpty(values);
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i] as number;
  return sum / values.length;
}

/**
 * Sample variance with the n - 1 denominator (numpy `var(ddof=1)`); 0 for one value.
 * @throws RangeError on an empty array.
 * @example sampleVariance([1, 2, 3, 4]) // 1.6667
 */
export function sampleVariance(values: ArrayLike<number>): number {
  const center = mean(values);
  if (values.length < 2) return 0;
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += ((values[i] as number) - center) ** 2;
  return sum / (values.length - 1);
}

/** Sample standard deviation (n - 1 denominator). @throws RangeError on an empty array. */
export function sampleStandardDeviation(values: ArrayLike<number>): number {
  return Math.sqrt(sampleVariance(values));
}

/**
 * Quantile of already sorted values by linear interpolation between order statistics
 * (Hyndman & Fan type 7, numpy's default `np.quantile`).
 * @throws RangeError on an empty array or q outside [0, 1].
 * @example quantileSorted([1, 2, 3, 4], 0.5) // 2.5
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  checkNonEmpty(sorted);
  if (!(q >= 0 && q <= 1)) throw new RangeError(`q must be in [0, 1], got ${q}`);
  const position = q * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  const weight = position - below;
  return (sorted[below] as number) * (1 - weight) + (sorted[above] as number) * weight;
}
