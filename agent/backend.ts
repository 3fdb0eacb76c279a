import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { InputError, UsageError } from '../lib/errors.ts';
import { installKernels } from './kernels/index.ts';

/**
 * Chooses and starts the tfjs backend, once per process.
 *
 * Order for 'auto': `@tensorflow/tfjs-node` (native TensorFlow, backend name 'tensorflow') when it
 * is installed and loads; otherwise the WebAssembly backend (SIMD, single-threaded under Node);
 * otherwise the plain JavaScript 'cpu' backend, the slowest.
 * `TINYAGENT_BACKEND` (auto | tensorflow | wasm | cpu) overrides an 'auto' or absent preference.
 * An explicit choice that cannot start throws an error naming the backend and the reason.
 */
export type BackendPreference = 'auto' | 'tensorflow' | 'wasm' | 'cpu';

export const BACKEND_PREFERENCES: readonly BackendPreference[] = ['auto', 'tensorflow', 'wasm', 'cpu'];

/** A backend that could not start (exit 1); the message says which and what to do. */
export class BackendError extends InputError {
  override name = 'BackendError';
}

/** A name (the preference, the flag or TINYAGENT_BACKEND) that is no backend at all: a usage error (exit 2). */
export class UnknownBackendError extends UsageError {
  override name = 'UnknownBackendError';
}

let active: string | undefined;
let starting: Promise<string> | undefined;
let startingPreference: BackendPreference | undefined;

/** The name of the backend `initBackend` started ('tensorflow', 'wasm' or 'cpu'), or undefined before. */
export function activeBackend(): string | undefined {
  return active;
}

let wasmSimd: boolean | undefined;

/**
 * The backend as checkpoints, run logs and result files record it: tfjs's name, except for the
 * wasm backend's build without WebAssembly SIMD, `wasm-no-simd`. tfjs loads that build when the
 * runtime has no SIMD (our product kernel, SIMD itself, is then off too), and its kernels give
 * other bits than the SIMD build's: the same seed trains another checkpoint
 * (test/backend-build.test.ts), so a record must tell the two builds apart. `wasm` is the SIMD
 * build.
 */
export function recordedBackend(): string | undefined {
  return active === 'wasm' && wasmSimd === false ? 'wasm-no-simd' : active;
}

/**
 * Starts the backend and returns its name. Idempotent: later calls return the running backend
 * (an explicit preference that differs from the running one is switched to, if it can start).
 *
 * @example
 *   const name = await initBackend();            // 'wasm' on a machine without tfjs-node
 *   await initBackend({ preference: 'cpu' });   // 'cpu'
 */
export async function initBackend({
  preference = 'auto',
}: { preference?: BackendPreference } = {}): Promise<string> {
  const chosen = resolvePreference(preference);
  if (active !== undefined && (chosen === 'auto' || chosen === active)) return active;
  if (starting !== undefined && startingPreference === chosen) return starting;
  startingPreference = chosen;
  starting = start(chosen).finally(() => {
    starting = undefined;
    startingPreference = undefined;
  });
  return starting;
}

function resolvePreference(preference: BackendPreference): BackendPreference {
  if (!BACKEND_PREFERENCES.includes(preference)) {
    throw new UnknownBackendError(
      `initBackend: unknown backend '${String(preference)}' (have ${BACKEND_PREFERENCES.join(', ')})`,
    );
  }
  if (preference !== 'auto') return preference;
  const fromEnv = process.env['TINYAGENT_BACKEND']?.trim().toLowerCase();
  if (fromEnv === undefined || fromEnv === '') return 'auto';
  if (!(BACKEND_PREFERENCES as readonly string[]).includes(fromEnv))
    throw new UnknownBackendError(
      `TINYAGENT_BACKEND='${fromEnv}' is not a backend (have ${BACKEND_PREFERENCES.join(', ')}); unset it to choose automatically`,
    );
  return fromEnv as BackendPreference;
}

async function start(chosen: BackendPreference): Promise<string> {
  if (chosen === 'auto') {
    for (const name of ['tensorflow', 'wasm', 'cpu'] as const) {
      try {
        return await startOne(name);
      } catch {
        // fall through to the next, slower backend
      }
    }
    throw new BackendError('initBackend: no tfjs backend could start (tried tensorflow, wasm, cpu)');
  }
  return startOne(chosen);
}

async function startOne(name: 'tensorflow' | 'wasm' | 'cpu'): Promise<string> {
  try {
    if (name === 'tensorflow') await loadTfjsNode();
    if (name === 'wasm') await registerWasm();
    const ok = await tf.setBackend(name);
    if (!ok || tf.getBackend() !== name)
      throw new Error(
        `tf.setBackend('${name}') returned ${String(ok)}; running backend is '${tf.getBackend()}'`,
      );
    await tf.ready();
    if (name === 'wasm') wasmSimd = (await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')) === true;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new BackendError(
      `backend '${name}' could not start: ${reason}${name === 'tensorflow' ? ' (install @tensorflow/tfjs-node, or choose TINYAGENT_BACKEND=wasm)' : ''}`,
    );
  }
  if (name === 'wasm') {
    // Our product kernel is the fast path: if it cannot start, wasm runs on tfjs's products and
    // attention in its reference form (other numbers in their last bits, the fingerprint's
    // `kernel` is `off`), and says why in `productKernelProblem`. It is SIMD code, so it is not
    // tried on the build without SIMD.
    try {
      if (wasmSimd === false)
        throw new Error('WebAssembly SIMD is not available, and the product kernel is SIMD code');
      await installKernels();
    } catch (error) {
      productProblem = error instanceof Error ? error.message : String(error);
    }
  }
  active = name;
  return name;
}

let productProblem: string | undefined;

/** Why our wasm product kernel could not start (the products then run on tfjs's own), or undefined. */
export function productKernelProblem(): string | undefined {
  return productProblem;
}

async function loadTfjsNode(): Promise<void> {
  // A variable specifier keeps TypeScript and bundlers from requiring the optional package.
  const specifier = '@tensorflow/tfjs-node';
  await import(specifier);
  if (tf.findBackendFactory('tensorflow') === null) {
    throw new Error(
      "@tensorflow/tfjs-node loaded but registered no 'tensorflow' backend with this copy of @tensorflow/tfjs (version mismatch?)",
    );
  }
}

let wasmRegistered = false;

async function registerWasm(): Promise<void> {
  // `node --jitless` (or a runtime without WebAssembly) has no WebAssembly object at all.
  if (typeof WebAssembly === 'undefined')
    throw new Error(
      'this Node has no WebAssembly (node --jitless turns it off); run node without --jitless, or choose TINYAGENT_BACKEND=cpu',
    );
  if (wasmRegistered) return;
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  // Node cannot start the threaded build; the SIMD one is found in the package's dist folder.
  const require = createRequire(import.meta.url);
  const distFolder = dirname(require.resolve('@tensorflow/tfjs-backend-wasm'));
  wasm.setWasmPaths(`${distFolder}/`);
  wasmRegistered = true;
}
