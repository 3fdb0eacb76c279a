import type { ProductGeometry } from '../../agent/kernels/index.ts';

/**
 * The scalar reference of our product kernel (agent/kernels/products.ts), in plain TypeScript:
 * one float32 accumulator per output, started at the bias (or 0), the products added in order of
 * k with a separate multiply and add, each rounded to float32 (`Math.fround` of the exact double
 * result: for + and ×, rounding a double's result again to float32 gives float32's own rounding,
 * since 53 >= 2·24 + 2; Figueroa, "When is double rounding innocuous?", SIGNUM 1995), and ReLU
 * as `x > 0 ? x : 0` at the end (XNNPack's pmax(0, x): NaN and -0 give +0). With `blockSums: n`
 * each later block of n values of k is summed from 0 on its own and added to the output, as
 * tfjs's batched matMul adds. Writes the outputs into `out` at the geometry's places and returns
 * those places.
 */
export function scalarProduct(
  a: Float32Array,
  b: Float32Array,
  out: Float32Array,
  geometry: ProductGeometry,
  { bias, relu = false, blockSums }: { bias?: Float32Array; relu?: boolean; blockSums?: number } = {},
): number[] {
  const { rows, depth, cols, batch, heads, aStrides, bStrides, cStrides } = geometry;
  const block = blockSums ?? depth;
  const places: number[] = [];
  for (let item = 0; item < batch; item++)
    for (let head = 0; head < heads; head++)
      for (let i = 0; i < rows; i++)
        for (let j = 0; j < cols; j++) {
          let sum = bias === undefined ? 0 : bias[j]!;
          for (let k0 = 0; k0 < depth; k0 += block) {
            let part = k0 === 0 ? sum : 0;
            for (let k = k0; k < Math.min(k0 + block, depth); k++) {
              const x = a[item * aStrides[0] + head * aStrides[1] + i * aStrides[2] + k * aStrides[3]]!;
              const y = b[item * bStrides[0] + head * bStrides[1] + k * bStrides[2] + j]!;
              part = Math.fround(part + Math.fround(x * y));
            }
            sum = k0 === 0 ? part : Math.fround(sum + part);
          }
          const place = item * cStrides[0] + head * cStrides[1] + i * cStrides[2] + j;
          out[place] = relu ? (sum > 0 ? sum : 0) : sum;
          places.push(place);
        }
  return places;
}
