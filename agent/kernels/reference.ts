import type { ProductGeometry } from './bounds.ts';

/**
 * The scalar reference of our product kernel (agent/kernels/products.ts), in plain TypeScript:
 * one float32 accumulator per output, started at the bias (or 0), the products added in order of
 * k with a separate multiply and add, each rounded to float32 (`Math.fround` of the exact double
 * result: for + and ×, rounding a double's result again to float32 gives float32's own rounding,
 * since 53 >= 2·24 + 2; Figueroa, "When is double rounding innocuous?", SIGNUM 1995), and ReLU
 * as `x > 0 ? x : 0` at the end (the kernel's pmax(0, x): NaN and -0 give +0). Writes the
 * outputs into `out` at the geometry's places and returns those places.
 */
export function scalarProduct(
  a: Float32Array,
  b: Float32Array,
  out: Float32Array,
  geometry: ProductGeometry,
  { bias, relu = false }: { bias?: Float32Array; relu?: boolean } = {},
): number[] {
  const { rows, depth, cols, batch, heads, aStrides, bStrides, cStrides } = geometry;
  const places: number[] = [];
  for (let item = 0; item < batch; item++)
    for (let head = 0; head < heads; head++)
      for (let i = 0; i < rows; i++)
        for (let j = 0; j < cols; j++) {
          let sum = bias === undefined ? 0 : bias[j]!;
          for (let k = 0; k < depth; k++) {
            const x = a[item * aStrides[0] + head * aStrides[1] + i * aStrides[2] + k * aStrides[3]]!;
            const y = b[item * bStrides[0] + head * bStrides[1] + k * bStrides[2] + j]!;
            sum = Math.fround(sum + Math.fround(x * y));
          }
          const place = item * cStrides[0] + head * cStrides[1] + i * cStrides[2] + j;
          out[place] = relu ? (sum > 0 ? sum : 0) : sum;
          places.push(place);
        }
  return places;
}
