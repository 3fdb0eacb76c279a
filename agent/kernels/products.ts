import * as tf from '@tensorflow/tfjs';
import { checkProductBounds, type ProductGeometry } from './bounds.ts';
import { boundsChecked, kernels, productsInstalled } from './instance.ts';
import { Clamp, Init } from './text.ts';

/**
 * Float32 products on the wasm backend by our own SIMD kernel.
 *
 * Why: tfjs-backend-wasm's products (XNNPack's GEMM; a batched matMul falls to a scalar loop)
 * are slower than a plain register-tiled kernel (4 rows x 8 columns of accumulators, one A value
 * splatted per row and k) on one core (docs/MODEL.md, "Performance (wasm)"). It also reads its
 * operands through strides, so a transposed operand, or one head's rows inside a [B*T, C]
 * activation, is read in place: the gradients and attention need almost no transposes.
 *
 * Its bits: one accumulator per output, started at the bias (0 without one), the products added
 * in order of k with a separate multiply and add, and a clamp at the end for ReLU: exactly its
 * scalar reference (./reference.ts), which `test/agent-kernels.test.ts` and the self-test at
 * start compare bit for bit. A product split along k stores its partial sums and reloads them
 * exactly, so blocking does not change the order, and neither does the layout.
 *
 * Every call checks that each operand's furthest element lies inside its tensor's buffer
 * (./bounds.ts) before anything is written. The kernel is registered with tfjs
 * (`TinyAgentProduct`), so that tfjs tracks its output like any other tensor.
 */

export const PRODUCT_KERNEL = 'TinyAgentProduct';

type ProductAttrs = ProductGeometry & {
  relu: boolean;
  columnsOuter: boolean;
  kBlock: number;
  pack: boolean;
};

/** The registered tfjs kernel `TinyAgentProduct` (./install.ts). */
export function productKernel({
  inputs,
  attrs,
}: {
  inputs: { a: tf.TensorInfo; b: tf.TensorInfo; bias?: tf.TensorInfo };
  attrs: ProductAttrs;
}): tf.TensorInfo {
  const { a, b, bias } = inputs;
  const { rows, depth, cols, batch, heads, aStrides, bStrides, cStrides, relu, columnsOuter, kBlock, pack } =
    attrs;
  const { tiles, pack8, internals } = kernels();
  if (depth === 0) throw new Error(`${PRODUCT_KERNEL}: a product over an empty inner axis`);
  const placeA = internals.place(a, `${PRODUCT_KERNEL} a`);
  const placeB = internals.place(b, `${PRODUCT_KERNEL} b`);
  const placeBias = bias === undefined ? undefined : internals.place(bias, `${PRODUCT_KERNEL} bias`);
  if (boundsChecked())
    checkProductBounds(PRODUCT_KERNEL, attrs, {
      a: placeA.size,
      b: placeB.size,
      out: attrs.outShape.reduce((x, y) => x * y, 1),
      ...(placeBias === undefined ? {} : { bias: placeBias.size }),
    });
  const out = internals.makeOutput(attrs.outShape);
  const outOffset = internals.place(out, `${PRODUCT_KERNEL} out`).offset;
  const [aBatch, aHead, ai, ak] = aStrides.map((s) => 4 * s) as [number, number, number, number];
  const [bBatch, bHead, bk] = bStrides.map((s) => 4 * s) as [number, number, number];
  const [cBatch, cHead, cs] = cStrides.map((s) => 4 * s) as [number, number, number];
  const order = columnsOuter ? 'c' : '';
  const rows4 = rows - (rows % 4);
  const cols8 = cols - (cols % 8);
  const cols4 = cols - (cols % 4);
  const rowBlocks = [
    ['4', 0, rows4],
    ['1', rows4, rows - rows4],
  ] as const;
  const colBlocks = [
    ['8', 0, cols8],
    ['4', cols8, cols4 - cols8],
    ['1', cols4, cols - cols4],
  ] as const;
  // Panels of B's 8-column strips, for a single product (batch = heads = 1).
  const packing = pack && batch === 1 && heads === 1 && cols8 > 0;
  const panels = packing ? internals.malloc(4 * depth * cols8) : 0;
  try {
    for (let item = 0; item < batch; item++) {
      const pa = placeA.offset + item * aBatch;
      const pb = placeB.offset + item * bBatch;
      const pc = outOffset + item * cBatch;
      if (packing) pack8(pb, bk, panels, depth, cols8 / 8);
      for (let k0 = 0; k0 < depth; k0 += kBlock) {
        const blockDepth = Math.min(kBlock, depth - k0);
        const init = k0 > 0 ? Init.continueC : bias === undefined ? Init.zero : Init.bias;
        const clamp = relu && k0 + blockDepth === depth ? Clamp.relu : Clamp.none;
        for (const [rowTile, i0, rowCount] of rowBlocks)
          for (const [colTile, j0, colCount] of colBlocks) {
            // B(k, j): in a panel, strip j/8 at panels + j*4*depth, 32 bytes per k; else b's own rows.
            const [bFrom, bkStep, bjStep] =
              packing && colTile === '8' ? [panels + 32 * k0, 32, 4 * depth] : [pb + k0 * bk + 4 * j0, bk, 4];
            tiles.get(`${rowTile}x${colTile}${order}`)!(
              pa + i0 * ai + k0 * ak,
              ai,
              ak,
              bFrom,
              bkStep,
              bjStep,
              pc + i0 * cs + 4 * j0,
              cs,
              placeBias === undefined ? 0 : placeBias.offset + 4 * j0,
              rowCount,
              colCount,
              blockDepth,
              init,
              clamp,
              heads,
              aHead,
              bHead,
              cHead,
            );
          }
      }
    }
  } finally {
    if (packing) internals.free(panels);
  }
  return out;
}

/**
 * A strided product on our kernel (`productsInstalled()` must hold): see `ProductGeometry`.
 * Depth is added in one pass, in order of k.
 */
export function stridedProduct(a: tf.Tensor, b: tf.Tensor, geometry: ProductGeometry): tf.Tensor {
  const attrs: ProductAttrs = {
    ...geometry,
    relu: false,
    columnsOuter: false,
    kBlock: Math.max(geometry.depth, 1),
    pack: false,
  };
  return tf.engine().runKernel(PRODUCT_KERNEL, { a, b }, attrs as unknown as tf.NamedAttrMap) as tf.Tensor;
}

/** Depth added per pass in a 2-D product: a block of B this deep stays in the core's caches. */
const K_BLOCK = 256;
/** The same for aᵀ · b (a weight gradient, depth = rows of the batch), by columns of tiles. */
const K_BLOCK_TRANSPOSED = 64;

/**
 * a · b (+ bias, ReLU'd if asked) for 2-D float32 tensors, or aᵀ · b with `transposeA` (a is
 * then [K, M]). On our kernel when `productsInstalled()`, else tfjs's own ops.
 */
export function product(
  a: tf.Tensor2D,
  b: tf.Tensor2D,
  { bias, relu = false, transposeA = false }: Partial<ProductOptions> = {},
): tf.Tensor2D {
  const K = transposeA ? a.shape[0] : a.shape[1];
  if (b.shape[0] !== K)
    throw new Error(
      `product: inner sizes differ (${a.shape} · ${b.shape}${transposeA ? ', a transposed' : ''})`,
    );
  const options = { ...(bias === undefined ? {} : { bias }), relu, transposeA };
  return productsInstalled() ? kernelProduct(a, b, options) : tfjsProduct(a, b, options);
}

type ProductOptions = { bias?: tf.Tensor1D; relu: boolean; transposeA: boolean };

/** `product` on tfjs's own ops (on wasm, XNNPack's GEMM). */
function tfjsProduct(
  a: tf.Tensor2D,
  b: tf.Tensor2D,
  { bias, relu, transposeA }: ProductOptions,
): tf.Tensor2D {
  const left = transposeA ? tf.transpose(a) : a;
  if (bias === undefined && !relu) return tf.matMul(left, b);
  return tf.fused.matMul({
    a: left,
    b,
    ...(bias === undefined ? {} : { bias }),
    activation: relu ? 'relu' : 'linear',
  }) as tf.Tensor2D;
}

/** `product` on our kernel, which must be installed (whether or not it is on). */
export function kernelProduct(
  a: tf.Tensor2D,
  b: tf.Tensor2D,
  { bias, relu, transposeA }: ProductOptions,
): tf.Tensor2D {
  const [M, K] = transposeA ? [a.shape[1], a.shape[0]] : a.shape;
  const attrs: ProductAttrs = {
    ...matrixProductGeometry(M, K, b.shape[1], { transposeA }),
    relu,
    columnsOuter: transposeA,
    kBlock: transposeA ? K_BLOCK_TRANSPOSED : K_BLOCK,
    pack: !transposeA,
  };
  const inputs = bias === undefined ? { a, b } : { a, b, bias };
  return tf.engine().runKernel(PRODUCT_KERNEL, inputs, attrs as unknown as tf.NamedAttrMap) as tf.Tensor2D;
}

/** The geometry of a 2-D product [M, K] · [K, N] -> [M, N], with a read as [K, M] in place when `transposeA`. */
export function matrixProductGeometry(
  M: number,
  K: number,
  N: number,
  { transposeA }: { transposeA: boolean },
): ProductGeometry {
  return {
    rows: M,
    depth: K,
    cols: N,
    batch: 1,
    heads: 1,
    aStrides: transposeA ? [0, 0, 1, M] : [0, 0, K, 1],
    bStrides: [0, 0, N],
    cStrides: [0, 0, N],
    outShape: [M, N],
  };
}

/** The sum of x's rows [N, C] -> [C], each column added in order of the row (what 1ᵀ · x gives). */
export function columnSums(x: tf.Tensor2D): tf.Tensor1D {
  if (!productsInstalled()) return tf.sum(x, 0);
  return tf.tidy(
    () => tf.reshape(product(tf.ones([x.shape[0], 1]), x, { transposeA: true }), [-1]) as tf.Tensor1D,
  );
}
