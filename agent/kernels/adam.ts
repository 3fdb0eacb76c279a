import * as tf from '@tensorflow/tfjs';
import { boundsChecked, kernels } from './instance.ts';
import { ADAM_SCALARS } from './text.ts';

/**
 * The training step's optimizer arithmetic on our kernels (train/optimizer.ts): Adam's update of
 * a variable in one pass (`adamUpdate`, the tfjs kernel `TinyAgentAdam`) and the clip's sum of
 * squares (`sumOfSquares`), each the same bits as the tfjs ops they replace.
 */

export const ADAM_KERNEL = 'TinyAgentAdam';

/** The operands of `adamUpdate`, each rounded to float32 by the kernel. */
export type AdamScalars = Record<(typeof ADAM_SCALARS)[number], number>;

/** The registered tfjs kernel `TinyAgentAdam` (./install.ts): w, g, m and v of one size, checked before anything is written. */
export function adamUpdateKernel({
  inputs,
  attrs,
}: {
  inputs: { w: tf.TensorInfo; g: tf.TensorInfo; m: tf.TensorInfo; v: tf.TensorInfo };
  attrs: AdamScalars;
}): tf.TensorInfo {
  const { internals, adam } = kernels();
  const place = (name: keyof typeof inputs) => internals.place(inputs[name], `${ADAM_KERNEL} ${name}`);
  const [w, g, m, v] = [place('w'), place('g'), place('m'), place('v')];
  if (boundsChecked())
    for (const [name, operand] of Object.entries({ g, m, v }))
      if (operand.size !== w.size)
        throw new Error(`${ADAM_KERNEL}: ${name} holds ${operand.size} elements, the weights ${w.size}`);
  const out = internals.makeOutput(inputs.w.shape);
  adam(
    w.offset,
    g.offset,
    m.offset,
    v.offset,
    internals.place(out, `${ADAM_KERNEL} out`).offset,
    w.size,
    ...ADAM_SCALARS.map((name) => attrs[name]),
  );
  return out;
}

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
  return tf
    .engine()
    .runKernel(ADAM_KERNEL, { w, g, m, v }, scalars as unknown as tf.NamedAttrMap) as tf.Tensor;
}

/** sum(x²) over a float32 tensor on our kernel (`productsInstalled()` must hold), added in order: tfjs's `sum(square(x))` on wasm, bit for bit. It reads exactly x's buffer. */
export function sumOfSquares(x: tf.Tensor): number {
  if (x.dtype !== 'float32') throw new Error(`sumOfSquares: a ${x.dtype} tensor`);
  const { internals, sumSquares } = kernels();
  const { offset, size } = internals.place(x, 'sumOfSquares');
  return sumSquares(offset, size);
}
