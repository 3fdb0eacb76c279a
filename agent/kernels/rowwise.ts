import * as tf from '@tensorflow/tfjs';
import { boundsChecked, kernels } from './instance.ts';
import { ADAM_SCALARS } from './text.ts';

/**
 * Row-wise kernels of LayerNorm and of the layers' softmaxes (agent/layers.ts), each one call
 * where tfjs's ops take several: LayerNorm's forward (nine) and gradient (eleven), softmax's
 * gradient (four), the head's logits less their row maximum (two), its log-probability of the
 * target with or without the entropy once the exps and their log-sum are known (five or nine,
 * and the one-hot targets' two), and that one's gradient (two or seven); and Adam's update of a
 * variable (./adam.ts). Each is the same bits as the ops it replaces (./text.ts gives the
 * arithmetic, in tfjs's order). An operand is read as rows of its first input's last dimension.
 */

/**
 * How many values an operand holds, of rows of `width`: all of them, one per row, two per row, one
 * row, or one int32 per row (`targets`: a column index, the kernel's one-hot row).
 */
type Extent = 'all' | 'perRow' | 'pairPerRow' | 'width' | 'targets';

interface RowKernel {
  /** The WAT function's export (./text.ts): its inputs' addresses, its outputs', rows, width, then `scalars`. */
  exported: string;
  inputs: ReadonlyArray<readonly [name: string, extent: Extent]>;
  /** Each output's shape: the first input's, [rows, 1], [width], [rows] or [rows, 2]. */
  outputs: ReadonlyArray<'input' | 'column' | 'width' | 'rows' | 'pair'>;
  /** Attributes passed after rows and width, in order. */
  scalars?: readonly string[];
}

/** The head's pick, with or without the entropy: shifted logits, their exps, the exps' sums and log-sums, the int32 targets. */
const PICK_INPUTS = [
  ['shifted', 'all'],
  ['exps', 'all'],
  ['sums', 'perRow'],
  ['logSums', 'perRow'],
  ['targets', 'targets'],
] as const;

export const ROW_KERNELS = {
  TinyAgentLayerNorm: {
    exported: 'layerNorm',
    inputs: [
      ['x', 'all'],
      ['gain', 'width'],
      ['bias', 'width'],
    ],
    outputs: ['input', 'input', 'column'],
    scalars: ['eps'],
  },
  TinyAgentLayerNormGrad: {
    exported: 'layerNormGrad',
    inputs: [
      ['dy', 'all'],
      ['xhat', 'all'],
      ['rstd', 'perRow'],
      ['gain', 'width'],
    ],
    outputs: ['input', 'width', 'width'],
  },
  TinyAgentSoftmaxGrad: {
    exported: 'softmaxGrad',
    inputs: [
      ['p', 'all'],
      ['dy', 'all'],
    ],
    outputs: ['input'],
  },
  TinyAgentRowShift: { exported: 'rowShift', inputs: [['x', 'all']], outputs: ['input'] },
  TinyAgentPick: { exported: 'pick', inputs: PICK_INPUTS, outputs: ['input', 'rows'] },
  TinyAgentPickEntropy: {
    exported: 'pickEntropy',
    inputs: PICK_INPUTS,
    outputs: ['input', 'pair', 'input', 'column'],
  },
  TinyAgentPickGrad: {
    exported: 'pickGrad',
    inputs: [
      ['p', 'all'],
      ['targets', 'targets'],
      ['dy', 'perRow'],
    ],
    outputs: ['input'],
  },
  TinyAgentPickEntropyGrad: {
    exported: 'pickEntropyGrad',
    inputs: [
      ['p', 'all'],
      ['targets', 'targets'],
      ['dy', 'pairPerRow'],
      ['logProbs', 'all'],
      ['entropy', 'perRow'],
    ],
    outputs: ['input'],
  },
  /** Adam's update of one variable (./adam.ts): w, g and the moments m and v, overwritten in place. */
  TinyAgentAdam: {
    exported: 'adam',
    inputs: [
      ['w', 'all'],
      ['g', 'all'],
      ['m', 'all'],
      ['v', 'all'],
    ],
    outputs: ['input'],
    scalars: ADAM_SCALARS,
  },
} as const satisfies Record<string, RowKernel>;

export type RowKernelName = keyof typeof ROW_KERNELS;

/** The registered kernel function of `name`: inputs checked, outputs made, one call of the export. */
export function rowKernelFunc(name: RowKernelName): tf.KernelFunc {
  const spec: RowKernel = ROW_KERNELS[name];
  return (({ inputs, attrs }: { inputs: Record<string, tf.TensorInfo>; attrs?: Record<string, number> }) => {
    const installed = kernels();
    const { internals } = installed;
    const shape = inputs[spec.inputs[0]![0]]!.shape;
    const width = shape[shape.length - 1] ?? 1;
    const rows = width === 0 ? 0 : shape.reduce((a, b) => a * b, 1) / width;
    const wanted: Record<Extent, number> = {
      all: rows * width,
      perRow: rows,
      pairPerRow: 2 * rows,
      width,
      targets: rows,
    };
    const places = spec.inputs.map(([input, extent]) => {
      const place = internals.place(
        inputs[input]!,
        `${name} ${input}`,
        extent === 'targets' ? 'int32' : 'float32',
      );
      if (boundsChecked() && place.size !== wanted[extent])
        throw new Error(`${name}: ${input} holds ${place.size} values, not ${wanted[extent]}`);
      return place.offset;
    });
    const shapes = { input: [...shape], column: [rows, 1], width: [width], rows: [rows], pair: [rows, 2] };
    const outputs = spec.outputs.map((kind) => internals.makeOutput(shapes[kind]));
    if (width > 0)
      installed.rowwise.get(spec.exported)!(
        ...places,
        ...outputs.map((out) => internals.place(out, `${name} out`).offset),
        rows,
        width,
        ...(spec.scalars ?? []).map((scalar) => attrs![scalar]!),
      );
    return outputs;
  }) as unknown as tf.KernelFunc;
}

/** One tensor per entry of `T`. */
type TensorPer<T extends readonly unknown[]> = { -readonly [I in keyof T]: tf.Tensor };
/** One tensor per output of the row kernel `K`, in order. */
type Outputs<K extends RowKernelName> = TensorPer<(typeof ROW_KERNELS)[K]['outputs']>;

/** Runs the row kernel `name` on our kernels (`productsInstalled()` must hold): its outputs, in order. */
export function rowKernel<K extends RowKernelName>(
  name: K,
  inputs: Record<string, tf.Tensor>,
  attrs: Record<string, number> = {},
): Outputs<K> {
  return tf.engine().runKernel(name, inputs, attrs) as unknown as Outputs<K>;
}
