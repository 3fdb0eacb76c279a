import * as tf from '@tensorflow/tfjs';
import wabtInit from 'wabt';
import { Rng } from '../../lib/rng.ts';
import { kernels, setKernels, type Exported } from './instance.ts';
import { ROW_KERNELS, rowKernelFunc, type RowKernelName } from './rowwise.ts';
import { kernelProduct, matrixProductGeometry, PRODUCT_KERNEL, productKernel } from './products.ts';
import { scalarProduct } from './reference.ts';
import { BINARY_OPS, kernelsModuleText, ROWS, WIDTHS } from './text.ts';
import { replaceTfjsKernels, restoreTfjsKernels } from './tfjsKernels.ts';
import { wasmInternals } from './tfjsWasm.ts';

/**
 * Assembles the kernels (the WAT of ./text.ts, by wabt, the WebAssembly Binary Toolkit),
 * instantiates them over the running wasm backend's memory, registers the tfjs kernels and runs
 * the self-test (`selfTest`). Called by `initBackend` once wasm is running; idempotent. When
 * any of it fails, nothing stays installed and the error says why: the products then run on
 * tfjs's own kernels, which give the same numbers, slower. `text` is for tests that install a
 * deliberately wrong kernel.
 */
export async function installKernels({ text = kernelsModuleText() }: { text?: string } = {}): Promise<void> {
  if (installed) return;
  const { version_wasm } = await import('@tensorflow/tfjs-backend-wasm');
  const internals = wasmInternals(version_wasm);
  const { exports } = await instantiate(text, internals.memory);
  setKernels({
    internals,
    tiles: tileKernels(exports),
    pack8: exports['pack8'] as Exported,
    sumSquares: exports['sumSquares'] as (pointer: number, count: number) => number,
    binary: new Map(
      Object.entries(BINARY_OPS).map(([op, name]) => [op, exports[`binary_${name}`] as Exported]),
    ),
    copyRows: exports['copyRows'] as Exported,
    rowwise: new Map(
      Object.values(ROW_KERNELS).map(({ exported }) => [exported, exports[exported] as Exported]),
    ),
  });
  tf.registerKernel({
    kernelName: PRODUCT_KERNEL,
    backendName: 'wasm',
    kernelFunc: productKernel as unknown as tf.KernelFunc,
  });
  for (const kernelName of Object.keys(ROW_KERNELS) as RowKernelName[])
    tf.registerKernel({ kernelName, backendName: 'wasm', kernelFunc: rowKernelFunc(kernelName) });
  replaceTfjsKernels();
  installed = true;
  let problem: string | undefined;
  try {
    problem = selfTest();
  } catch (error) {
    problem = `it failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (problem !== undefined) {
    uninstallKernels();
    throw new Error(`self-test: ${problem}`);
  }
}

let installed = false;

/** The module of `text`, assembled by wabt (relaxed SIMD allowed) and instantiated over `memory`. */
async function instantiate(text: string, memory: WebAssembly.Memory): Promise<WebAssembly.Instance> {
  const parsed = (await wabtInit()).parseWat('kernels.wat', text, { simd: true, relaxed_simd: true });
  let binary: Uint8Array<ArrayBuffer>;
  try {
    binary = new Uint8Array(parsed.toBinary({}).buffer);
  } finally {
    parsed.destroy();
  }
  return new WebAssembly.Instance(new WebAssembly.Module(binary), { tfjs: { memory } });
}

/** A module's tile kernels by name (`Kernels.tiles`). */
function tileKernels(exports: WebAssembly.Exports): Map<string, Exported> {
  const tiles = new Map<string, Exported>();
  for (const order of ['', 'c'])
    for (const rows of ROWS)
      for (const width of WIDTHS)
        tiles.set(`${rows}x${width}${order}`, exports[`tile${rows}x${width}${order}`] as Exported);
  return tiles;
}

/**
 * The tile kernels of `text` over the installed kernels' memory, not installed and not
 * self-tested: for `npm run bench`, to time tiles of other bits (`kernelsModuleText({ fused:
 * true })`) with `withTiles`. Throws when the runtime cannot compile them.
 */
export async function tilesOf(text: string): Promise<Map<string, Exported>> {
  return tileKernels((await instantiate(text, kernels().internals.memory)).exports);
}

/** Runs `f` with `tiles` in place of the installed tile kernels, then puts those back. */
export async function withTiles<T>(tiles: Map<string, Exported>, f: () => Promise<T>): Promise<T> {
  const current = kernels();
  setKernels({ ...current, tiles });
  try {
    return await f();
  } finally {
    setKernels(current);
  }
}

/** Undoes `installKernels` (after a failed self-test, and in tests that install another kernel). */
export function uninstallKernels(): void {
  if (!installed) return;
  tf.unregisterKernel(PRODUCT_KERNEL, 'wasm');
  for (const name of Object.keys(ROW_KERNELS)) tf.unregisterKernel(name, 'wasm');
  restoreTfjsKernels();
  setKernels(undefined);
  installed = false;
}

/**
 * One small product on our kernel against its scalar reference (./reference.ts), bit for bit:
 * undefined when they agree, else what differs. It guards against a tfjs build whose internals
 * (./tfjsWasm.ts) differ from the ones the kernels were written for, and a runtime whose float
 * arithmetic differs from the reference's.
 */
export function selfTest(): string | undefined {
  // [6, 9] · [9, 13] + bias, ReLU'd, so every row and column tail runs.
  const [rows, depth, cols] = [6, 9, 13];
  const rng = new Rng('kernels/self-test');
  const values = (count: number) => Float32Array.from({ length: count }, () => rng.normal());
  const [a, b, bias] = [values(rows * depth), values(depth * cols), values(cols)];
  const ours = tf.tidy(() =>
    kernelProduct(tf.tensor2d(a, [rows, depth]), tf.tensor2d(b, [depth, cols]), {
      bias: tf.tensor1d(bias),
      relu: true,
      transposeA: false,
    }).dataSync(),
  );
  const reference = new Float32Array(rows * cols);
  scalarProduct(a, b, reference, matrixProductGeometry(rows, depth, cols, { transposeA: false }), {
    bias,
    relu: true,
  });
  const oursBits = new Uint32Array(Float32Array.from(ours).buffer);
  const referenceBits = new Uint32Array(Float32Array.from(reference).buffer);
  const differ = oursBits.filter((bits, i) => bits !== referenceBits[i]).length;
  if (differ === 0) return undefined;
  const first = oursBits.findIndex((bits, i) => bits !== referenceBits[i]);
  return `a [${rows}, ${depth}] · [${depth}, ${cols}] product with bias and ReLU differs from its scalar reference in ${differ} of ${rows * cols} outputs (the first, output ${first}: ${ours[first]} against ${reference[first]})`;
}
