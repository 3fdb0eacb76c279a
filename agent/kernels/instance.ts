import * as tf from '@tensorflow/tfjs';
import type { WasmInternals } from './tfjsWasm.ts';

/** An exported kernel: i32 addresses and counts, f32 scalars. */
export type Exported = (...args: number[]) => void;

/** The assembled kernels over the running wasm backend (./install.ts). */
export interface Kernels {
  internals: WasmInternals;
  /** By name: `${rows}x${width}` (rows of tiles outer) or `${rows}x${width}c` (columns outer). */
  tiles: Map<string, Exported>;
  pack8: Exported;
  sumSquares: (pointer: number, count: number) => number;
  /** By the tfjs op each serves: Add, Sub, Multiply (`binary_add`, ... in ./text.ts). */
  binary: Map<string, Exported>;
  copyRows: Exported;
  /** The row-wise kernels and Adam's (./rowwise.ts), by their export's name. */
  rowwise: Map<string, Exported>;
}

let installed: Kernels | undefined;
let enabled = true;
let boundsChecks = true;

/** Records the installed kernels (./install.ts), or none. */
export function setKernels(kernels: Kernels | undefined): void {
  installed = kernels;
}

/** The installed kernels; throws when there are none. */
export function kernels(): Kernels {
  if (installed === undefined)
    throw new Error('our wasm kernels are not installed (initBackend on wasm first)');
  return installed;
}

/**
 * Turns our kernels off (tfjs's own products and Adam again) or back on, to measure one against
 * the other in one process (`npm run bench`); the numbers are the same either way.
 */
export function useOwnProducts(on: boolean): void {
  enabled = on;
}

/** Whether the products run on our kernels: the wasm backend, the kernels installed and on. */
export function productsInstalled(): boolean {
  return enabled && installed !== undefined && tf.getBackend() === 'wasm';
}

/**
 * Turns the bounds checks of every kernel call off or back on: only for `npm run bench`, which
 * measures what they cost. Off, a wrong geometry writes anywhere in the wasm heap.
 */
export function useBoundsChecks(on: boolean): void {
  boundsChecks = on;
}

/** Whether kernel calls check their operands' bounds (always, but in the bench's measurement). */
export function boundsChecked(): boolean {
  return boundsChecks;
}

/**
 * A float32 tensor's values where the wasm backend holds them, not copied, when the kernels are
 * installed (else `dataSync`'s copy): read them before anything else runs on tfjs, since an
 * allocation may move the memory under the view.
 */
export function valuesInPlace(tensor: tf.Tensor): Float32Array {
  if (!productsInstalled()) return tensor.dataSync() as Float32Array;
  const { internals } = kernels();
  const { offset, size } = internals.place(tensor, 'valuesInPlace');
  return new Float32Array(internals.memory.buffer, offset, size);
}
