import * as tf from '@tensorflow/tfjs';
import {
  columnSums,
  rowKernel,
  product,
  productsInstalled,
  stridedProduct,
  valuesInPlace,
  type ProductGeometry,
} from './kernels/index.ts';

/**
 * The transformer's building blocks: layers with gradients written by hand so that every heavy
 * product runs on the wasm backend's fast kernels, and attention over a whole sequence (training)
 * or over a sampling session's key/value cache.
 *
 * Why: tfjs-backend-wasm sends only plain, untransposed, unbatched 2-D matMuls to XNNPack; a
 * transposed or batched matMul falls to a scalar loop. So `dense` states its gradient as explicit
 * `tf.transpose` + plain 2-D products, and on wasm every product runs on our own SIMD kernel
 * (`./kernels/`), which reads a transposed operand, or one head inside an activation, in place.
 * Without the kernel, attention takes its reference form in plain tfjs.
 */

type Saver = tf.GradSaveFunc;

type Shape = [number] | [number, number] | [number, number, number] | [number, number, number, number];

/** The tensor type of a shape: [a, b] -> tf.Tensor2D. */
type TensorOf<S extends Shape> = [never, tf.Tensor1D, tf.Tensor2D, tf.Tensor3D, tf.Tensor4D][S['length']];

// Rank-typed wrappers: tfjs types these ops' results as tensors of any rank.

export function reshape<S extends Shape>(x: tf.Tensor, shape: S): TensorOf<S> {
  return tf.reshape(x, shape) as TensorOf<S>;
}

export function add<T extends tf.Tensor>(x: T, y: tf.Tensor): T {
  return tf.add(x, y);
}

export function sub<T extends tf.Tensor>(x: T, y: tf.Tensor): T {
  return tf.sub(x, y);
}

export function mul<T extends tf.Tensor>(x: T, y: tf.Tensor | number): T {
  return tf.mul(x, y);
}

/** `tf.matMul` of two tensors of one rank: 2-D products, or products batched over the leading axes. */
export function matMul<T extends tf.Tensor2D | tf.Tensor3D | tf.Tensor4D>(
  a: T,
  b: T,
  { transposeB = false }: { transposeB?: boolean } = {},
): T {
  if (a.rank === 2 && !transposeB && productsInstalled())
    return product(a as tf.Tensor2D, b as tf.Tensor2D) as T;
  return tf.matMul(a, b, false, transposeB);
}

/** `a · b + bias` in one kernel (XNNPack's fully connected op on wasm, or ours), optionally ReLU'd. */
export function fusedMatMul(
  a: tf.Tensor2D,
  b: tf.Tensor2D,
  bias: tf.Tensor1D,
  activation: 'relu' | 'linear' = 'linear',
): tf.Tensor2D {
  if (productsInstalled()) return product(a, b, { bias, relu: activation === 'relu' });
  return tf.fused.matMul({ a, b, bias, activation }) as tf.Tensor2D;
}

/**
 * `tf.customGrad`, typed by the op's inputs and output: tfjs types the function as taking any
 * list of tensors and the save function, and the op as returning a tensor of any rank.
 */
function customOp<Inputs extends tf.Tensor[], Output extends tf.Tensor>(
  f: (...args: [...Inputs, Saver]) => {
    value: Output;
    gradFunc: (dy: Output, saved: tf.Tensor[]) => tf.Tensor | tf.Tensor[];
  },
): (...inputs: Inputs) => Output {
  return tf.customGrad(f as unknown as Parameters<typeof tf.customGrad<Output>>[0]);
}

/** `x [N, in] · w [in, out] + b`, optionally ReLU'd, in one fused kernel; 2-D gradient products. */
export function dense(
  x: tf.Tensor2D,
  w: tf.Tensor2D,
  b: tf.Tensor1D,
  { relu = false }: { relu?: boolean } = {},
): tf.Tensor2D {
  const op = customOp((xIn: tf.Tensor2D, wIn: tf.Tensor2D, bIn: tf.Tensor1D, save: Saver) => {
    const y = fusedMatMul(xIn, wIn, bIn, relu ? 'relu' : 'linear');
    save(relu ? [xIn, wIn, y] : [xIn, wIn]);
    return {
      value: y,
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
        const [xs, ws, ys] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D?];
        const dz = ys === undefined ? dy : mul(dy, tf.step(ys));
        return [matMul(dz, tf.transpose(ws)), ...weightAndBiasGrad(xs, dz)];
      },
    };
  });
  return op(x, w, b);
}

/**
 * dW = x^T · dy and db = sum of dy's rows, for x [N, in], dy [N, out]. Our kernel reads x^T in
 * place. Without it: XNNPack packs the right-hand operand of a 2-D product on every call, so
 * the product is oriented to pack the narrower of x and dy: (dy^T · x)^T when in <= out, else
 * x^T · dy; with dy^T at hand, db is the product dy^T · 1. Every form adds each output's
 * products in order of the row, so all give the same bits on wasm.
 */
function weightAndBiasGrad(x: tf.Tensor2D, dy: tf.Tensor2D): [tf.Tensor2D, tf.Tensor1D] {
  if (productsInstalled()) return [product(x, dy, { transposeA: true }), columnSums(dy)];
  if (x.shape[1] > dy.shape[1]) return [matMul(tf.transpose(x), dy), tf.sum(dy, 0)];
  const dyT = tf.transpose(dy);
  // A column of ones made afresh (the gradient's tidy frees it): N varies with the batch.
  return [tf.transpose(matMul(dyT, x)), reshape(matMul(dyT, tf.ones([dy.shape[0], 1])), [-1])];
}

/**
 * `tf.gather(table, rows)` on the first axis of a 2-D table, as one block copy per row (wasm's
 * gather kernel moves one element at a time). The same values: it only copies.
 */
export function gatherRows(table: tf.Tensor2D, rows: ArrayLike<number>): tf.Tensor2D {
  const [count, width] = table.shape;
  const from = valuesInPlace(table);
  const out = new Float32Array(rows.length * width);
  for (let i = 0; i < rows.length; i++) {
    const row = rowAt(rows, i, count, 'gatherRows');
    out.set(from.subarray(row * width, (row + 1) * width), i * width);
  }
  return tf.tensor2d(out, [rows.length, width]);
}

/**
 * Rows `rows` of x [N, C] -> [R, C] (`gatherRows`), differentiable: the gradient puts dy's rows
 * back where they came from, zeros elsewhere. Every layer after it is row-wise, so the rows it
 * keeps get the same values, and the same gradients, as in the whole batch.
 */
export function pickRows(x: tf.Tensor2D, rows: ArrayLike<number>): tf.Tensor2D {
  const count = x.shape[0];
  const op = customOp((xIn: tf.Tensor2D, _save: Saver) => ({
    value: gatherRows(xIn, rows),
    gradFunc: (dy: tf.Tensor2D) => placeRows(dy, rows, count),
  }));
  return op(x);
}

/**
 * The inverse of `pickRows`: values [R, C] placed at `rows` of a [count, C] of zeros, rows
 * distinct. Differentiable: the gradient is dy's rows at `rows`.
 */
export function placeRows(values: tf.Tensor2D, rows: ArrayLike<number>, count: number): tf.Tensor2D {
  const picked = values.shape[0];
  if (picked !== rows.length)
    throw new RangeError(`placeRows: ${picked} rows of values for ${rows.length} places`);
  const op = customOp((valuesIn: tf.Tensor2D, _save: Saver) => ({
    value: scatterRows(valuesIn, rows, count),
    gradFunc: (dy: tf.Tensor2D) => gatherRows(dy, rows),
  }));
  return op(values);
}

/** `placeRows` without a gradient: values [R, C] copied to `rows` of a [count, C] of zeros. */
function scatterRows(values: tf.Tensor2D, rows: ArrayLike<number>, count: number): tf.Tensor2D {
  const width = values.shape[1];
  const from = valuesInPlace(values);
  const out = new Float32Array(count * width);
  for (let i = 0; i < rows.length; i++) {
    const row = rowAt(rows, i, count, 'placeRows');
    out.set(from.subarray(i * width, (i + 1) * width), row * width);
  }
  return tf.tensor2d(out, [count, width]);
}

/** rows[i], a row of a table of `count` rows; else a RangeError naming `op`. */
function rowAt(rows: ArrayLike<number>, i: number, count: number, op: string): number {
  const row = rows[i] as number;
  if (!Number.isInteger(row) || row < 0 || row >= count)
    throw new RangeError(`${op}: row ${row} outside [0, ${count})`);
  return row;
}

/**
 * Embedding lookup `table[ids]` [N, C]: a gather forward, and as gradient oneHot(ids)^T · dy (the
 * gradient of `tf.gather` needs a kernel wasm lacks): the plain 2-D product in tfjs, or with our
 * kernels each of dy's rows added to its id's row (`addRowsAt`), which gives the product's bits
 * without its multiplications by zero. Only the table gets a gradient.
 */
export function embed(ids: tf.Tensor1D, table: tf.Tensor2D): tf.Tensor2D {
  const vocab = table.shape[0];
  const rows = ids.dataSync();
  const op = customOp((tableIn: tf.Tensor2D, _save: Saver) => ({
    value: gatherRows(tableIn, rows),
    gradFunc: (dy: tf.Tensor2D) => {
      if (productsInstalled()) return addRowsAt(dy, rows, vocab);
      const oneHot = tf.cast(tf.oneHot(tf.tensor1d(rows, 'int32'), vocab), 'float32'); // [N, V]
      return tf.matMul(tf.transpose(oneHot), dy);
    },
  }));
  return op(table);
}

/**
 * oneHot(rows, count)^T · x for x [N, C]: row i of x added to row rows[i] of a [count, C] of
 * zeros, in order of i, each sum rounded to float32. Our product kernel adds the same terms in
 * the same order from +0, and its other terms are 0 · x, which leave a sum as it is (a sum from
 * +0 is never -0); so the bits are the product's for finite x.
 */
export function addRowsAt(x: tf.Tensor2D, rows: ArrayLike<number>, count: number): tf.Tensor2D {
  const [n, width] = x.shape;
  if (rows.length !== n) throw new RangeError(`addRowsAt: ${rows.length} rows for ${n} rows of x`);
  const from = valuesInPlace(x);
  const out = new Float32Array(count * width);
  for (let i = 0; i < n; i++) {
    const row = rowAt(rows, i, count, 'addRowsAt');
    for (let j = 0, to = row * width, at = i * width; j < width; j++) out[to + j]! += from[at + j]!;
  }
  return tf.tensor2d(out, [count, width]);
}

/** The pieces of a stable softmax over the last axis of logits [N, V]: z - max z, its exp, and the exps' row sums [N, 1]. */
function stableSoftmaxParts(logits: tf.Tensor2D): {
  shifted: tf.Tensor2D;
  exps: tf.Tensor2D;
  sums: tf.Tensor2D;
} {
  const shifted = productsInstalled()
    ? (rowKernel('TinyAgentRowShift', { x: logits })[0] as tf.Tensor2D)
    : sub(logits, tf.max(logits, -1, true));
  const exps = tf.exp(shifted);
  const sums = tf.sum(exps, -1, true) as tf.Tensor2D;
  return { shifted, exps, sums };
}

/** The float32 one-hot rows of int32 targets [N] over `vocab` columns [N, V] (tfjs's path; our kernels build them as they read). */
function oneHotOf(targets: tf.Tensor1D, vocab: number): tf.Tensor2D {
  return tf.cast(tf.oneHot(targets, vocab), 'float32') as tf.Tensor2D;
}

/**
 * log softmax(logits)[target] per row: logits [N, V], int32 targets [N] -> [N]. One exp forward
 * and none backward (d/dlogits = oneHot(target) - softmax), where tfjs's logSoftmax plus a
 * one-hot pick costs two exps and a [N, V] log-softmax gradient.
 */
export function pickLogProbs(logits: tf.Tensor2D, targets: tf.Tensor1D): tf.Tensor1D {
  const vocab = logits.shape[1];
  const op = customOp((logitsIn: tf.Tensor2D, save: Saver) => {
    const { shifted, exps, sums } = stableSoftmaxParts(logitsIn);
    let probs: tf.Tensor, value: tf.Tensor;
    if (productsInstalled()) {
      const inputs = { shifted, exps, sums, logSums: tf.log(sums), targets };
      [probs, value] = rowKernel('TinyAgentPick', inputs);
    } else {
      probs = tf.div(exps, sums);
      value = tf.sub(tf.sum(tf.mul(shifted, oneHotOf(targets, vocab)), -1), tf.log(tf.reshape(sums, [-1])));
    }
    save([probs, targets]);
    return {
      value: value as tf.Tensor1D,
      gradFunc: (dy: tf.Tensor1D, saved: tf.Tensor[]) => {
        const [probs, targets] = saved as [tf.Tensor2D, tf.Tensor1D];
        if (productsInstalled()) return rowKernel('TinyAgentPickGrad', { p: probs, targets, dy })[0];
        return tf.mul(tf.sub(oneHotOf(targets, vocab), probs), tf.reshape(dy, [-1, 1]));
      },
    };
  });
  return op(logits);
}

/**
 * log softmax(logits)[target] and the entropy of softmax(logits), per row, in one op: logits
 * [N, V], int32 targets [N] -> [N, 2] (column 0 the log-probability, column 1 the entropy).
 * One exp forward and none backward. With p = softmax, log p = z - logZ, H = -sum p log p:
 *   d logp[target] / dz = oneHot(target) - p,   dH / dz = -p * (log p + H).
 * tfjs's logSoftmax, a one-hot pick and exp(logSoftmax) cost three exps and autodiff's graph.
 */
export function pickLogProbsWithEntropy(logits: tf.Tensor2D, targets: tf.Tensor1D): tf.Tensor2D {
  const vocab = logits.shape[1];
  const op = customOp((logitsIn: tf.Tensor2D, save: Saver) => {
    const { shifted, exps, sums } = stableSoftmaxParts(logitsIn);
    let probs: tf.Tensor, logProbs: tf.Tensor, entropy: tf.Tensor, value: tf.Tensor;
    if (productsInstalled()) {
      const inputs = { shifted, exps, sums, logSums: tf.log(sums), targets };
      [probs, value, logProbs, entropy] = rowKernel('TinyAgentPickEntropy', inputs);
    } else {
      logProbs = tf.sub(shifted, tf.log(sums)); // [N, V]
      probs = tf.div(exps, sums);
      entropy = tf.neg(tf.sum(tf.mul(probs, logProbs), -1, true)); // [N, 1]
      value = tf.concat([tf.sum(tf.mul(logProbs, oneHotOf(targets, vocab)), -1, true), entropy], 1);
    }
    save([probs, logProbs, targets, entropy]);
    return {
      value: value as tf.Tensor2D,
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
        const [p, logP, targets, h] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor1D, tf.Tensor2D];
        if (productsInstalled())
          return rowKernel('TinyAgentPickEntropyGrad', { p, targets, dy, logProbs: logP, entropy: h })[0];
        const [dPicked, dEntropy] = tf.split(dy, 2, 1) as [tf.Tensor2D, tf.Tensor2D];
        const hot = oneHotOf(targets, vocab);
        return tf.sub(tf.mul(tf.sub(hot, p), dPicked), tf.mul(tf.mul(p, tf.add(logP, h)), dEntropy));
      },
    };
  });
  return op(logits);
}

/**
 * LayerNorm over the last axis of `x [N, C]` (Ba et al. 2016), eps 1e-5, with the closed-form
 * gradient: dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), dxhat = dy * gain.
 * On our kernels the forward and the gradient are one call each, with the ops' bits.
 */
export function layerNorm(x: tf.Tensor2D, gain: tf.Tensor1D, bias: tf.Tensor1D): tf.Tensor2D {
  const op = customOp((xIn: tf.Tensor2D, gIn: tf.Tensor1D, bIn: tf.Tensor1D, save: Saver) => {
    let y: tf.Tensor, xhat: tf.Tensor, rstd: tf.Tensor;
    if (productsInstalled()) {
      [y, xhat, rstd] = rowKernel('TinyAgentLayerNorm', { x: xIn, gain: gIn, bias: bIn }, { eps: 1e-5 });
    } else {
      const centred = sub(xIn, tf.mean(xIn, -1, true));
      rstd = tf.rsqrt(tf.add(tf.mean(tf.square(centred), -1, true), 1e-5));
      xhat = mul(centred, rstd);
      y = add(mul(xhat, gIn), bIn);
    }
    save([xhat, rstd, gIn]);
    return {
      value: y as tf.Tensor2D,
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
        const [xh, rs, g] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor1D];
        if (productsInstalled())
          return rowKernel('TinyAgentLayerNormGrad', { dy, xhat: xh, rstd: rs, gain: g });
        const dxhat = tf.mul(dy, g);
        const dx = tf.mul(
          rs,
          tf.sub(tf.sub(dxhat, tf.mean(dxhat, -1, true)), tf.mul(xh, tf.mean(tf.mul(dxhat, xh), -1, true))),
        );
        return [dx, tf.sum(tf.mul(dy, xh), 0), tf.sum(dy, 0)];
      },
    };
  });
  return op(x, gain, bias);
}

/** Additive causal masks [T, T] (0 where key s <= query t, -1e9 after), one kept per T. */
const causalMasks = new Map<number, tf.Tensor2D>();

function causalMask(length: number): tf.Tensor2D {
  let mask = causalMasks.get(length);
  if (mask === undefined || mask.isDisposed) {
    const values = new Float32Array(length * length);
    for (let t = 0; t < length; t++) for (let s = t + 1; s < length; s++) values[t * length + s] = -1e9;
    mask = tf.keep(tf.tensor2d(values, [length, length]));
    causalMasks.set(length, mask);
  }
  return mask;
}

/** Releases the cached causal masks (for leak-checking tests). */
export function disposeCausalMasks(): void {
  for (const mask of causalMasks.values()) mask.dispose();
  causalMasks.clear();
}

/**
 * Attention proper in the batched-matMul form: softmax(q · k^T + mask) · v over the last two
 * axes, heads batched over the leading ones. qScaled [..., C, e] is q / sqrt(e); k and v are
 * [..., S, e]; the additive mask broadcasts to [..., C, S].
 */
function matMulAttention<T extends tf.Tensor3D | tf.Tensor4D>(qScaled: T, k: T, v: T, mask: tf.Tensor): T {
  const scores = add(matMul(qScaled, k, { transposeB: true }), mask);
  return matMul(tf.softmax(scores), v);
}

/**
 * The gradients of q|k|v = h · wqkv + bqkv [B*T, 3C] from each role's, dRoles[role] [B*T, C]:
 * dh [B*T, C], dwqkv [C, 3C] and dbqkv [3C] (the roles' columns side by side). With `queries`,
 * q was projected from h's rows `queries.rows` alone (`queries.h` [R, C]) and dRoles[0] is
 * [R, C]: its part of dh goes back to those rows. The rows left out had a zero gradient, which
 * adds nothing to any sum, so every gradient has the same bits as from all rows.
 */
function projectionGrads(
  h: tf.Tensor2D,
  wqkv: tf.Tensor2D,
  dRoles: tf.Tensor2D[],
  queries?: { rows: ArrayLike<number>; h: tf.Tensor2D },
): tf.Tensor[] {
  const width = h.shape[1];
  const inputOf = (role: number) => (role === 0 && queries !== undefined ? queries.h : h);
  const dH = tf.addN(
    dRoles.map((d, role) => {
      const dInput = matMul(d, tf.transpose(tf.slice(wqkv, [0, role * width], [width, width])));
      return role === 0 && queries !== undefined ? scatterRows(dInput, queries.rows, h.shape[0]) : dInput;
    }),
  );
  const grads = dRoles.map((d, role) => weightAndBiasGrad(inputOf(role), d));
  const dWeights = grads.map((g) => g[0]);
  const dBiases = grads.map((g) => g[1]);
  return [dH, tf.concat(dWeights, 1), tf.concat(dBiases, 0)];
}

/** q, k or v [rows, d] of h [rows, d]: one fused product with the role's bias, as in training and sampling alike. */
function projection(h: tf.Tensor2D, wqkv: tf.Tensor2D, bqkv: tf.Tensor1D, role: number): tf.Tensor2D {
  return fusedMatMul(h, ...roleWeights(wqkv, bqkv, role));
}

/** A session chunk's h [B*C, d]: its rows B*C, width d, chunk length C and head size dh. */
function chunkShape(h: tf.Tensor2D, { batch, heads }: { batch: number; heads: number }) {
  const [rows, width] = h.shape;
  return { rows, width, length: rows / batch, headSize: width / heads };
}

/**
 * A session's q, k or v (`projection`, [B*C, d]) split into heads, [B, C, H, dh], and
 * transposed by `perm`: [0, 2, 1, 3] gives [B, H, C, dh], [0, 2, 3, 1] (keys kept transposed)
 * [B, H, dh, C].
 */
function sessionHeads(
  h: tf.Tensor2D,
  wqkv: tf.Tensor2D,
  bqkv: tf.Tensor1D,
  { batch, heads }: { batch: number; heads: number },
  role: number,
  perm: [number, number, number, number],
): tf.Tensor4D {
  const { length, headSize } = chunkShape(h, { batch, heads });
  const split = reshape(projection(h, wqkv, bqkv, role), [batch, length, heads, headSize]);
  return tf.transpose(split, perm);
}

/** Column slices of wqkv [C, 3C] and bqkv [3C] for one role (0 q, 1 k, 2 v). */
function roleWeights(wqkv: tf.Tensor2D, bqkv: tf.Tensor1D, role: number): [tf.Tensor2D, tf.Tensor1D] {
  const width = wqkv.shape[0];
  return [tf.slice(wqkv, [0, role * width], [width, width]), tf.slice(bqkv, [role * width], [width])];
}

/**
 * Causal multi-head self-attention over whole sequences, with its input projection and
 * gradients: h [B*T, C] -> [B*T, C], q|k|v = h · wqkv + bqkv (columns q|k|v, each head-major),
 * then per (batch, head) softmax(q k^T / sqrt(dh) + causal mask) v. The output projection is a
 * separate `dense`.
 *
 * Two forms of one function: on our kernel, `inPlaceAttention` (the fast path); elsewhere
 * `referenceAttention`, plain tfjs batched matMul with automatic gradients. They agree up to
 * float rounding (test/agent-model.test.ts), so the numbers depend on whether the kernel runs
 * (the fingerprint's `kernel`).
 *
 * With `queries` (indices of rows of h, ascending), the output is wanted at those rows only,
 * [R, C]. On our kernel only those rows' queries are projected and attend (every row's key and
 * value are still read); elsewhere the whole output is computed and its rows picked. Either
 * way those rows get the same bits as in the whole output, and so do the gradients.
 */
export function causalSelfAttention(
  h: tf.Tensor2D,
  wqkv: tf.Tensor2D,
  bqkv: tf.Tensor1D,
  options: AttentionShape & { queries?: ArrayLike<number> | undefined },
): tf.Tensor2D {
  if (productsInstalled()) return inPlaceAttention(h, wqkv, bqkv, options);
  const { queries, ...shape } = options;
  const out = referenceAttention(h, wqkv, bqkv, shape);
  return queries === undefined ? out : pickRows(out, queries);
}

/** What attention's gradient saves first: h, wqkv, the scaled queries, the keys and the values. */
type SavedProjection = [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D, tf.Tensor2D, tf.Tensor2D];

/** Rows of a batch of sequences ([B*T, C] rows (b, t)) and the heads attention splits C into. */
type AttentionShape = { batch: number; length: number; heads: number };

/** `causalSelfAttention` at every row in plain tfjs: batched matMul, automatic gradients. */
function referenceAttention(
  h: tf.Tensor2D,
  wqkv: tf.Tensor2D,
  bqkv: tf.Tensor1D,
  { batch, length, heads }: AttentionShape,
): tf.Tensor2D {
  const width = h.shape[1];
  const headSize = width / heads;
  const qkv = dense(h, wqkv, bqkv);
  const split = tf.transpose(reshape(qkv, [batch * length, 3, heads, headSize]), [1, 0, 2, 3]); // [3, B*T, H, dh]
  const perHead = (x: tf.Tensor) => {
    const byHead = tf.transpose(reshape(x, [batch, length, heads, headSize]), [0, 2, 1, 3]);
    return reshape(byHead, [batch * heads, length, headSize]);
  };
  const [q, k, v] = tf.unstack(split).map(perHead) as [tf.Tensor3D, tf.Tensor3D, tf.Tensor3D];
  const out = matMulAttention(mul(q, 1 / Math.sqrt(headSize)), k, v, causalMask(length)); // [n, t, dh]
  const byRow = tf.transpose(reshape(out, [batch, heads, length, headSize]), [0, 2, 1, 3]);
  return reshape(byRow, [batch * length, width]);
}

/**
 * Attention on our strided kernel (`./kernels/`): every product reads q, k, v, dy and the
 * attention matrices where they lie, one head at a time, and writes its result in the layout the
 * next step reads, so only k (forward) and v (backward) are transposed.
 *
 * With `queries`, only those rows' queries are projected and attend: they are laid out per batch
 * row, padded to the most any row has (M), in [B*M, C], and the matrices are [B, H, M, T], each
 * query's row of them the same as in [B, H, T, T] (the same causal mask row). Padding queries are
 * zero, see key 0 only and get no gradient. The gradients of keys and values add over M queries
 * instead of T; the queries left out contributed zeros, so the sums are the same bits.
 */
function inPlaceAttention(
  h: tf.Tensor2D,
  wqkv: tf.Tensor2D,
  bqkv: tf.Tensor1D,
  { batch, length, heads, queries }: AttentionShape & { queries?: ArrayLike<number> | undefined },
): tf.Tensor2D {
  const width = h.shape[1];
  const headSize = width / heads;
  const scale = 1 / Math.sqrt(headSize);
  const T = length;
  const picked = queries === undefined ? undefined : queryLayout(queries, batch, T);
  const M = picked?.perRow ?? T;
  // Strides (batch, head, row[, column]) of the layouts: an activation [B*T, C] read per head,
  // the queries' rows [B*M, C] (the activation itself when every row is a query), the attention
  // matrices [B, H, M, T], and a head's keys or values transposed [B, H, dh, T].
  const activation: [number, number, number] = [T * width, headSize, width];
  const queryRows: [number, number, number] = [M * width, headSize, width];
  const matrices: [number, number, number] = [heads * M * T, M * T, T];
  const transposed: [number, number, number] = [heads * headSize * T, headSize * T, T];
  const across = (strides: [number, number, number]): [number, number, number, number] => [...strides, 1];
  const down = ([b, hd, r]: [number, number, number]): [number, number, number, number] => [b, hd, 1, r];
  // One product per (batch row, head): [rows, depth] · [depth, cols], read and written through
  // the strides given, into a tensor of shape `out`.
  const perHead = <S extends [number, number] | [number, number, number, number]>(
    a: tf.Tensor,
    b: tf.Tensor,
    [rows, depth, cols]: [number, number, number],
    strides: Pick<ProductGeometry, 'aStrides' | 'bStrides' | 'cStrides'>,
    out: S,
  ) => reshape(stridedProduct(a, b, { rows, depth, cols, batch, heads, ...strides, outShape: out }), out);
  // [B, H, M, T] = per head [M, dh] · [dh, T]
  const toMatrices = (a: tf.Tensor, bT: tf.Tensor) =>
    perHead(
      a,
      bT,
      [M, headSize, T],
      { aStrides: across(queryRows), bStrides: transposed, cStrides: matrices },
      [batch, heads, M, T],
    );
  // Per head [M, T] · [T, dh] -> the queries' rows [B*M, C], or (aᵀ, the matrix read by columns)
  // [T, M] · [M, dh] -> an activation [B*T, C].
  const toQueryRows = (m: tf.Tensor, x: tf.Tensor): tf.Tensor2D =>
    perHead(
      m,
      x,
      [M, T, headSize],
      { aStrides: across(matrices), bStrides: activation, cStrides: queryRows },
      [batch * M, width],
    );
  const toActivation = (m: tf.Tensor, x: tf.Tensor): tf.Tensor2D =>
    perHead(m, x, [T, M, headSize], { aStrides: down(matrices), bStrides: queryRows, cStrides: activation }, [
      batch * T,
      width,
    ]);
  const transposeHeads = (x: tf.Tensor) =>
    tf.transpose(reshape(x, [batch, T, heads, headSize]), [0, 2, 3, 1]); // [B, H, dh, T]
  // Rows [R, C] of the chosen queries <-> their padded layout [B*M, C].
  const pad = (x: tf.Tensor2D) => (picked === undefined ? x : scatterRows(x, picked.slots, batch * M));
  const unpad = (x: tf.Tensor2D) => (picked === undefined ? x : gatherRows(x, picked.slots));
  const mask = picked?.mask() ?? causalMask(length);

  const op = customOp((hIn: tf.Tensor2D, wIn: tf.Tensor2D, bIn: tf.Tensor1D, save: Saver) => {
    const project = (x: tf.Tensor2D, role: number) => projection(x, wIn, bIn, role);
    const hQueries = queries === undefined ? hIn : gatherRows(hIn, queries);
    const q = project(hQueries, 0);
    const k = project(hIn, 1);
    const v = project(hIn, 2);
    const qs = pad(mul(q, scale));
    const probs = tf.softmax(add(toMatrices(qs, transposeHeads(k)), mask)); // [B, H, M, T]
    save([hIn, wIn, qs, k, v, probs, hQueries]);
    return {
      value: unpad(toQueryRows(probs, v)),
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
        const [hs, ws, qsSaved, ks, vs, p, hq] = saved as [...SavedProjection, tf.Tensor4D, tf.Tensor2D];
        const dyRows = pad(dy);
        const dProbs = toMatrices(dyRows, transposeHeads(vs)); // [B, H, M, T]
        const dV = toActivation(p, dyRows); // p^T · dy
        const dScores = rowKernel('TinyAgentSoftmaxGrad', { p, dy: dProbs })[0]; // p · (dProbs - sum(dProbs · p))
        const dQ = unpad(toQueryRows(dScores, ks)); // times scale below
        const dK = toActivation(dScores, qsSaved); // dScores^T · qs
        const dRoles = [mul(dQ, scale), dK, dV]; // [R or B*T, C], [B*T, C], [B*T, C]
        return projectionGrads(hs, ws, dRoles, queries === undefined ? undefined : { rows: queries, h: hq });
      },
    };
  });
  return op(h, wqkv, bqkv);
}

/**
 * Where chosen query rows (indices into [B*T], ascending) go in a layout padded per batch row:
 * row j of them to slot b * perRow + i (its i-th in batch row b), perRow the most any batch row
 * has; and the additive mask [B, 1, perRow, T] of that layout: each query's causal mask row (0
 * for keys at or before its position, -1e9 after), a padding slot's that of position 0.
 */
function queryLayout(
  queries: ArrayLike<number>,
  batch: number,
  length: number,
): { perRow: number; slots: Int32Array; mask: () => tf.Tensor4D } {
  const counts = new Int32Array(batch);
  const slotInRow = new Int32Array(queries.length);
  let previous = -1;
  for (let j = 0; j < queries.length; j++) {
    const row = queries[j] as number;
    if (!Number.isInteger(row) || row <= previous || row >= batch * length)
      throw new RangeError(
        `causalSelfAttention: query rows must ascend within [0, ${batch * length}), got ${row}`,
      );
    previous = row;
    const b = Math.floor(row / length);
    slotInRow[j] = counts[b]!;
    counts[b] = counts[b]! + 1;
  }
  const perRow = Math.max(1, ...counts);
  const slots = Int32Array.from(
    slotInRow,
    (i, j) => Math.floor((queries[j] as number) / length) * perRow + i,
  );
  const mask = () => {
    const values = new Float32Array(batch * perRow * length);
    for (let slot = 0; slot < batch * perRow; slot++)
      for (let s = 1; s < length; s++) values[slot * length + s] = -1e9; // padding: position 0
    for (let j = 0; j < queries.length; j++) {
      const position = (queries[j] as number) % length;
      values.fill(0, slots[j]! * length, slots[j]! * length + position + 1);
    }
    return tf.tensor4d(values, [batch, 1, perRow, length]);
  };
  return { perRow, slots, mask };
}

/** One layer's keys and values in a sampling session's cache, each [B, H, S, dh] (keys [B, H, dh, S] in place). */
export type KeysValues = { keys: tf.Tensor4D; values: tf.Tensor4D };

/**
 * A session's attention over its cache: rows, heads, the additive mask and the layer's cache
 * before the chunk -> the output [B*C, d] and the layer's cache after it.
 */
type CachedAttention = (
  h: tf.Tensor2D,
  wqkv: tf.Tensor2D,
  bqkv: tf.Tensor1D,
  options: { batch: number; heads: number; mask: tf.Tensor4D; past?: KeysValues | undefined },
) => { out: tf.Tensor2D; cache: KeysValues };

/**
 * `cachedSelfAttention` on our strided kernel (`./kernels/`): the keys are cached transposed,
 * [B, H, dh, S], so that q · k reads q where it lies and writes the scores [B, H, C, S+C];
 * probs · v reads the values [B, H, S, dh] in place and writes [B*C, d]. Each product adds in
 * order of its inner axis.
 */
export const inPlaceCachedAttention: CachedAttention = (h, wqkv, bqkv, { batch, heads, mask, past }) => {
  const { rows, width, length, headSize } = chunkShape(h, { batch, heads });
  const kT = sessionHeads(h, wqkv, bqkv, { batch, heads }, 1, [0, 2, 3, 1]); // [B, H, dh, C]
  const v = sessionHeads(h, wqkv, bqkv, { batch, heads }, 2, [0, 2, 1, 3]); // [B, H, C, dh]
  const keys = past === undefined ? kT : tf.concat([past.keys, kT], 3); // [B, H, dh, S+C]
  const values = past === undefined ? v : tf.concat([past.values, v], 2); // [B, H, S+C, dh]
  const total = values.shape[2];
  const qScaled = mul(projection(h, wqkv, bqkv, 0), 1 / Math.sqrt(headSize)); // [B*C, d]
  const shape = { batch, heads };
  const scores = stridedProduct(qScaled, keys, {
    ...shape,
    rows: length,
    depth: headSize,
    cols: total,
    aStrides: [length * width, headSize, width, 1],
    bStrides: [heads * headSize * total, headSize * total, total],
    cStrides: [heads * length * total, length * total, total],
    outShape: [batch, heads, length, total],
  });
  const probs = tf.softmax(add(scores, mask));
  const out = stridedProduct(probs, values, {
    ...shape,
    rows: length,
    depth: total,
    cols: headSize,
    aStrides: [heads * length * total, length * total, total, 1],
    bStrides: [heads * total * headSize, total * headSize, headSize],
    cStrides: [length * width, headSize, width],
    outShape: [rows, width],
  }) as tf.Tensor2D;
  return { out, cache: { keys, values } };
};

/**
 * Self-attention of a chunk of C new positions per row over the S cached slots before them and
 * over themselves, forward only (sampling), in plain tfjs: h [B*C, d] -> [B*C, d], with the
 * layer's keys and values after the chunk's are appended, [B, H, S+C, dh]. `past` is undefined
 * before the first chunk. The additive `mask` [B, 1, C, S+C] carries both causality and the
 * padding of ragged chunks.
 */
export const cachedSelfAttention: CachedAttention = (h, wqkv, bqkv, { batch, heads, mask, past }) => {
  const { rows, width, headSize } = chunkShape(h, { batch, heads });
  // Each role's [B*C, d] -> [B, H, C, dh].
  const project = (role: number) => sessionHeads(h, wqkv, bqkv, { batch, heads }, role, [0, 2, 1, 3]);
  const keys = past === undefined ? project(1) : tf.concat([past.keys, project(1)], 2); // [B, H, S+C, dh]
  const values = past === undefined ? project(2) : tf.concat([past.values, project(2)], 2);
  const out = matMulAttention(mul(project(0), 1 / Math.sqrt(headSize)), keys, values, mask); // [B, H, C, dh]
  return { out: reshape(tf.transpose(out, [0, 2, 1, 3]), [rows, width]), cache: { keys, values } };
};
