import * as tf from '@tensorflow/tfjs';
import { add, dense, layerNorm, pickRows } from './layers.ts';

// The transformer's parts that the full forward (./model.ts) and a sampling session
// (./session.ts) share: the weights by role, one block, the head.

export interface BlockWeights {
  ln1Gain: tf.Tensor1D;
  ln1Bias: tf.Tensor1D;
  wqkv: tf.Tensor2D;
  bqkv: tf.Tensor1D;
  wo: tf.Tensor2D;
  bo: tf.Tensor1D;
  ln2Gain: tf.Tensor1D;
  ln2Bias: tf.Tensor1D;
  w1: tf.Tensor2D;
  b1: tf.Tensor1D;
  w2: tf.Tensor2D;
  b2: tf.Tensor1D;
}

/** The model's weights by role: rank-typed views of its variables. */
export interface ModelWeights {
  wte: tf.Tensor2D;
  wpe: tf.Tensor2D;
  blocks: readonly BlockWeights[];
  lnfGain: tf.Tensor1D;
  lnfBias: tf.Tensor1D;
  headW: tf.Tensor2D;
  headB: tf.Tensor1D;
}

/**
 * One pre-LayerNorm block on rows x [N, d]: x += attend(ln1(x)) · Wo + bo, then
 * x += relu(ln2(x) · W1 + b1) · W2 + b2. `attend` is self-attention with its input projection,
 * ln1(x) [N, d] -> [N, d]: the one part that differs between the full-sequence forward
 * (`causalSelfAttention`, with gradients) and a session's incremental one
 * (`cachedSelfAttention`, over the key/value cache).
 *
 * With `rows`, the block's output is wanted at those rows only (the last block, whose output
 * feeds nothing but the head): `attend` gives its output at those rows ([R, d]; every row's key
 * and value are still read), and the rest of the block runs on them alone. Every step after
 * attention is row-wise, so those rows get the same values, and the same gradients.
 */
export function transformerBlock(
  x: tf.Tensor2D,
  w: BlockWeights,
  attend: (normed: tf.Tensor2D, rows: ArrayLike<number> | undefined) => tf.Tensor2D,
  rows?: ArrayLike<number>,
): tf.Tensor2D {
  const heads = attend(layerNorm(x, w.ln1Gain, w.ln1Bias), rows);
  const attended = add(rows === undefined ? x : pickRows(x, rows), dense(heads, w.wo, w.bo));
  const hidden = dense(layerNorm(attended, w.ln2Gain, w.ln2Bias), w.w1, w.b1, { relu: true }); // [N, f]
  return add(attended, dense(hidden, w.w2, w.b2));
}

/** Next-token logits [N, V] from rows [N, d] out of the last block: the final LayerNorm, then the head. */
export function outputLogits(x: tf.Tensor2D, weights: ModelWeights): tf.Tensor2D {
  return dense(layerNorm(x, weights.lnfGain, weights.lnfBias), weights.headW, weights.headB);
}
