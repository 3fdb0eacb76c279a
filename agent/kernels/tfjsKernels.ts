import * as tf from '@tensorflow/tfjs';
import { boundsChecked, kernels } from './instance.ts';
import { BINARY_OPS } from './text.ts';

/**
 * tfjs-backend-wasm's kernels that ours replace, each giving the same bits, since none of them
 * rounds differently: Identity, Add, Sub, Multiply and Concat. tfjs's gradients are per op name,
 * not per backend, so they stay tfjs's. `restoreTfjsKernels` puts tfjs's back.
 *
 * - Identity shares its input's data, as every other backend's Identity and wasm's own Reshape
 *   do, where wasm's copies it. tfjs clones each tensor a custom gradient saves, so the copy cost
 *   every training step a copy of every saved activation. Tensors are immutable; the one thing
 *   that writes into a tensor's data is Adam, into its own moments (./adam.ts), which nothing
 *   clones.
 * - Add, Sub and Multiply run on our elementwise kernels (`binary_OP` in ./text.ts) for float32
 *   operands of one shape, or one of them a scalar, a trailing block of the other's dimensions
 *   ([64] against [N, 64]) or the other's shape with its last dimension 1 ([N, 1] against
 *   [N, 64]): the broadcasts a transformer's layers make. Each output is one IEEE operation on
 *   its two inputs, which any implementation rounds alike. tfjs-backend-wasm adds a general
 *   broadcast and a call through emscripten's `ccall` with the shapes copied to its stack, on
 *   every one of a training step's hundreds of calls. Other calls go to tfjs's own kernel.
 * - Concat of float32 tensors copies each input's rows with `copyRows` (./text.ts), where wasm's
 *   copies them one `subarray` at a time in JavaScript: a sampling session's cached keys grow by
 *   a concat along their last axis at every token, thousands of rows of a few floats each.
 */

const replaced = new Map<string, tf.KernelConfig>();

/** Registers ours in place of tfjs-backend-wasm's (./install.ts); each falls back to tfjs's own. */
export function replaceTfjsKernels(): void {
  replace(
    'Identity',
    () =>
      (({ inputs }: { inputs: { x: tf.TensorInfo } }) =>
        kernels().internals.share(inputs.x)) as unknown as tf.KernelFunc,
  );
  for (const op of Object.keys(BINARY_OPS) as Op[]) replace(op, (tfjs) => binaryKernel(op, tfjs));
  replace('Concat', concatKernel);
}

export function restoreTfjsKernels(): void {
  for (const [name, tfjs] of replaced) {
    tf.unregisterKernel(name, 'wasm');
    tf.registerKernel(tfjs);
  }
  replaced.clear();
}

function replace(name: string, make: (tfjs: tf.KernelFunc) => tf.KernelFunc): void {
  const tfjs = tf.getKernel(name, 'wasm');
  if (tfjs === undefined) throw new Error(`tfjs-backend-wasm has no ${name} kernel`);
  replaced.set(name, tfjs);
  tf.unregisterKernel(name, 'wasm');
  tf.registerKernel({ kernelName: name, backendName: 'wasm', kernelFunc: make(tfjs.kernelFunc) });
}

type Op = keyof typeof BINARY_OPS;
type Args = { inputs: { a: tf.TensorInfo; b: tf.TensorInfo }; backend: unknown; attrs?: unknown };

/** How an operand is read along out's [outer, inner] layout, in elements: per row and per element. */
type Steps = { perRow: number; perElement: 0 | 1 };

const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/** `shape` without its leading 1s. */
function trimmed(shape: readonly number[]): number[] {
  const first = shape.findIndex((d) => d !== 1);
  return first < 0 ? [] : shape.slice(first);
}

/**
 * out's [outer, inner] layout and each operand's steps through it, or undefined when the two
 * shapes broadcast otherwise than our kernel reads.
 */
export function binaryLayout(
  aShape: readonly number[],
  bShape: readonly number[],
  outShape: readonly number[],
): { outer: number; inner: number; a: Steps; b: Steps } | undefined {
  const n = size(outShape);
  const last = outShape[outShape.length - 1] ?? 1;
  const out = trimmed(outShape);
  const kind = (shape: readonly number[]) => {
    const own = trimmed(shape);
    if (size(shape) === n) return { full: true } as const;
    if (own.length === 0) return { scalar: true } as const;
    const tail = out.slice(out.length - own.length);
    if (own.every((d, i) => d === tail[i])) return { row: size(own) } as const;
    const padded = [...new Array<number>(outShape.length - shape.length).fill(1), ...shape];
    if (padded[padded.length - 1] === 1 && padded.slice(0, -1).every((d, i) => d === outShape[i]))
      return { column: true } as const;
    return undefined;
  };
  const kinds = [kind(aShape), kind(bShape)];
  if (kinds.some((k) => k === undefined)) return undefined;
  const rows = kinds.flatMap((k) => (k !== undefined && 'row' in k ? [k.row] : []));
  const columns = kinds.some((k) => k !== undefined && 'column' in k);
  if (new Set(rows).size > 1 || (columns && rows.some((row) => row !== last))) return undefined;
  const inner = rows[0] ?? (columns ? last : n);
  const steps = (k: (typeof kinds)[number]): Steps =>
    k === undefined || 'scalar' in k
      ? { perRow: 0, perElement: 0 }
      : 'full' in k
        ? { perRow: inner, perElement: 1 }
        : 'row' in k
          ? { perRow: 0, perElement: 1 }
          : { perRow: 1, perElement: 0 };
  return { outer: inner === 0 ? 0 : n / inner, inner, a: steps(kinds[0]), b: steps(kinds[1]) };
}

/** The kernel function of `op` over tfjs's own (`fallback`). */
function binaryKernel(op: Op, fallback: tf.KernelFunc): tf.KernelFunc {
  return ((args: Args) => {
    const { a, b } = args.inputs;
    const outShape = tf.backend_util.assertAndGetBroadcastShape(a.shape, b.shape);
    const layout =
      a.dtype === 'float32' && b.dtype === 'float32' ? binaryLayout(a.shape, b.shape, outShape) : undefined;
    if (layout === undefined || layout.outer * layout.inner === 0)
      return fallback(args as unknown as Parameters<tf.KernelFunc>[0]);
    const { internals, binary } = kernels();
    const [placeA, placeB] = [internals.place(a, `${op} a`), internals.place(b, `${op} b`)];
    const { outer, inner } = layout;
    if (boundsChecked())
      for (const [x, place, steps] of [
        ['a', placeA, layout.a],
        ['b', placeB, layout.b],
      ] as const)
        if ((outer - 1) * steps.perRow + (inner - 1) * steps.perElement + 1 > place.size)
          throw new Error(`${op}: operand ${x} [${place.size}] is shorter than [${outer}, ${inner}] reads`);
    const out = internals.makeOutput([...outShape]);
    binary.get(op)!(
      placeA.offset,
      4 * layout.a.perRow,
      4 * layout.a.perElement,
      placeB.offset,
      4 * layout.b.perRow,
      4 * layout.b.perElement,
      internals.place(out, `${op} out`).offset,
      outer,
      inner,
    );
    return out;
  }) as unknown as tf.KernelFunc;
}

/**
 * Concat along `axis` of float32 tensors: out's rows (the dimensions before the axis) each the
 * inputs' rows in turn; tfjs's own for other dtypes.
 */
function concatKernel(fallback: tf.KernelFunc): tf.KernelFunc {
  return ((args: { inputs: tf.TensorInfo[]; attrs: { axis: number | number[] }; backend: unknown }) => {
    const { inputs } = args;
    const first = inputs[0]!;
    const axis = tf.util.parseAxisParam(args.attrs.axis, first.shape)[0]!;
    const nonEmpty = inputs.filter((input) => size(input.shape) > 0);
    if (nonEmpty.length < 2 || inputs.some((input) => input.dtype !== 'float32'))
      return fallback(args as unknown as Parameters<tf.KernelFunc>[0]);
    const shapes = inputs.map((input) => input.shape);
    tf.backend_util.assertParamsConsistent(shapes, axis);
    const outShape = tf.backend_util.computeOutShape(shapes, axis);
    const { internals, copyRows } = kernels();
    const out = internals.makeOutput(outShape);
    const rows = size(outShape.slice(0, axis));
    const outRow = 4 * size(outShape.slice(axis));
    let at = internals.place(out, 'Concat out').offset;
    for (const input of nonEmpty) {
      const row = 4 * size(input.shape.slice(axis));
      const place = internals.place(input, 'Concat input');
      if (boundsChecked() && rows * row !== 4 * place.size)
        throw new Error(`Concat: an input of ${place.size} elements is not ${rows} rows of ${row / 4}`);
      copyRows(place.offset, row, at, outRow, rows, row);
      at += row;
    }
    return out;
  }) as unknown as tf.KernelFunc;
}
