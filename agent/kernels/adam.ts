import * as tf from '@tensorflow/tfjs';
import { kernels } from './instance.ts';
import { rowKernel } from './rowwise.ts';
import type { ADAM_SCALARS } from './text.ts';

/**
 * The training step's optimizer arithmetic on our kernels (train/optimizer.ts): Adam's update of
 * a variable in one pass (`adamUpdate`, the row kernel `TinyAgentAdam` of ./rowwise.ts) and the
 * clip's sum of squares (`sumOfSquares`), each the same bits as the tfjs ops they replace.
 */

/** The operands of `adamUpdate`, each rounded to float32 by the kernel. */
export type AdamScalars = Record<(typeof ADAM_SCALARS)[number], number>;

/**
 * One Adam update on our kernel (`productsInstalled()` must hold): returns the new weights, and
 * overwrites the moments `m` and `v` in place, so they must be tensors no one else reads (the
 * optimizer's own). See `adamKernel` (./text.ts) for the arithmetic, the same bits as
 * tf.train.adam's.
 */
export function adamUpdate(
  w: tf.Tensor,
  g: tf.Tensor,
  m: tf.Tensor,
  v: tf.Tensor,
  scalars: AdamScalars,
): tf.Tensor {
  for (const [name, t] of Object.entries({ g, m, v }))
    if (t.size !== w.size || t.dtype !== 'float32' || w.dtype !== 'float32')
      throw new Error(`adamUpdate: ${name} is ${t.dtype} [${t.shape}], the weights ${w.dtype} [${w.shape}]`);
  return rowKernel('TinyAgentAdam', { w, g, m, v }, scalars)[0];
}

/** sum(x²) over a float32 tensor on our kernel (`productsInstalled()` must hold), added in order: tfjs's `sum(square(x))` on wasm, bit for bit. It reads exactly x's buffer. */
export function sumOfSquares(x: tf.Tensor): number {
  if (x.dtype !== 'float32') throw new Error(`sumOfSquares: a ${x.dtype} tensor`);
  const { internals, sumSquares } = kernels();
  const { offset, size } = internals.place(x, 'sumOfSquares');
  return sumSquares(offset, size);
}
