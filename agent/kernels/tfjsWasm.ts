import * as tf from '@tensorflow/tfjs';

/**
 * Every private part of tfjs-backend-wasm our kernels use, in one place: the wasm module's
 * memory (`wasm.asm.memory`), its allocator (`wasm._malloc`, `wasm._free`), a tensor's place and
 * shape in that memory (`dataIdMap.get(dataId)`: `memoryOffset`, `shape`, `dtype`),
 * `makeOutput` and `incRef` (a second tensor on the same data, as its Reshape makes). None of it is public API: it is checked against the version pinned in
 * package.json (`PINNED_TFJS`, which a test compares with package.json), and the self-test at
 * start (./install.ts) checks that the kernels still give tfjs's bits through it.
 */

/** The tfjs and tfjs-backend-wasm version whose internals this file was written against. */
export const PINNED_TFJS = '4.22.0';

type Backend = {
  wasm?: { asm?: { memory?: unknown }; _malloc?: unknown; _free?: unknown };
  dataIdMap?: { get?: unknown };
  makeOutput?: unknown;
  incRef?: unknown;
};

type TensorData = { memoryOffset: number; shape: number[]; dtype: string };

/** The running wasm backend as our kernels see it. */
export interface WasmInternals {
  memory: WebAssembly.Memory;
  /** A tensor's first byte in `memory` and its element count; throws unless it is of `dtype` (float32 by default). */
  place(tensor: tf.TensorInfo, name: string, dtype?: 'float32' | 'int32'): { offset: number; size: number };
  makeOutput(shape: number[]): tf.TensorInfo;
  /** Another tensor on `tensor`'s data, no copy: the data is freed when both are disposed. */
  share(tensor: tf.TensorInfo): tf.TensorInfo;
  malloc(bytes: number): number;
  free(pointer: number): void;
}

/**
 * The running wasm backend's internals, or an error naming what is not as expected (another
 * tfjs version, another build). `wasmVersion` is tfjs-backend-wasm's own `version_wasm`.
 */
export function wasmInternals(wasmVersion: string): WasmInternals {
  const versions = { '@tensorflow/tfjs-core': tf.version_core, '@tensorflow/tfjs-backend-wasm': wasmVersion };
  for (const [name, version] of Object.entries(versions))
    if (version !== PINNED_TFJS)
      throw new Error(
        `${name} is ${version}; the kernels' use of its internals is checked against ${PINNED_TFJS}`,
      );
  const backend = tf.backend() as unknown as Backend;
  const wasm = backend.wasm;
  const memory = wasm?.asm?.memory;
  if (!(memory instanceof WebAssembly.Memory))
    throw new Error(
      'the wasm backend exposes no WebAssembly.Memory (wasm.asm.memory): another tfjs-backend-wasm build?',
    );
  const missing = [
    ['wasm._malloc', wasm?._malloc],
    ['wasm._free', wasm?._free],
    ['dataIdMap.get', backend.dataIdMap?.get],
    ['makeOutput', backend.makeOutput],
    ['incRef', backend.incRef],
  ].filter(([, f]) => typeof f !== 'function');
  if (missing.length > 0)
    throw new Error(
      `the wasm backend has no ${missing.map(([name]) => name).join(', ')}: another tfjs-backend-wasm build?`,
    );
  const malloc = wasm!._malloc as (bytes: number) => number;
  const free = wasm!._free as (pointer: number) => void;
  const dataIdMap = backend.dataIdMap as { get(id: object): TensorData | undefined };
  const makeOutput = backend.makeOutput as (shape: number[], dtype: 'float32') => tf.TensorInfo;
  const incRef = backend.incRef as (dataId: object) => void;
  return {
    memory,
    place(tensor, name, dtype = 'float32') {
      const data = dataIdMap.get(tensor.dataId);
      if (data === undefined) throw new Error(`${name}: a tensor the wasm backend does not hold (disposed?)`);
      if (data.dtype !== dtype) throw new Error(`${name}: a ${data.dtype} tensor, not ${dtype}`);
      return { offset: data.memoryOffset, size: data.shape.reduce((a, b) => a * b, 1) };
    },
    makeOutput: (shape) => makeOutput.call(backend, shape, 'float32'),
    share: ({ dataId, shape, dtype }) => {
      incRef.call(backend, dataId);
      return { dataId, shape, dtype };
    },
    malloc: (bytes) => malloc.call(wasm, bytes) >>> 0,
    free: (pointer) => free.call(wasm, pointer),
  };
}
