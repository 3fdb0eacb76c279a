import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectVersion } from '../lib/version.ts';
import { activeBackend, recordedBackend } from './backend.ts';
import { productsInstalled } from './kernels/index.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/**
 * What made a number's bits: the one definition that results files, run manifests and study job
 * outputs record, and that `test:repro` and `study report` compare. Each part is described in
 * docs/CONTRACT.md, "The fingerprint"; experiments' own choices (sizes, seeds) are in each results
 * file's config, not here.
 */
export interface Fingerprint {
  version: string;
  sources: string;
  tfjs: string;
  backend: string;
  backendVersion: string;
  kernel: string;
  threads: string;
}

/** The folders whose files decide the numbers (`Fingerprint.sources`). */
export const SOURCE_FOLDERS = ['gym', 'agent', 'train', 'eval', 'lib'] as const;

/** The fingerprint's parts, in the order `fingerprintDifferences` names them. */
export const FINGERPRINT_PARTS: readonly (keyof Fingerprint)[] = [
  'version',
  'sources',
  'tfjs',
  'backend',
  'backendVersion',
  'kernel',
  'threads',
];

let sourcesHash: string | undefined;

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return filesUnder(path);
      return entry.isFile() ? [path] : [];
    })
    .sort();
}

/** sha256 over SOURCE_FOLDERS' files (path, NUL, content, NUL each, sorted by path); computed once. */
export function sourcesSha256(root: string = ROOT): string {
  if (root === ROOT && sourcesHash !== undefined) return sourcesHash;
  const hash = createHash('sha256');
  for (const folder of SOURCE_FOLDERS)
    for (const path of filesUnder(join(root, folder))) {
      hash.update(relative(root, path).split('\\').join('/'));
      hash.update('\0');
      hash.update(readFileSync(path));
      hash.update('\0');
    }
  const digest = hash.digest('hex');
  if (root === ROOT) sourcesHash = digest;
  return digest;
}

const require = createRequire(import.meta.url);

/**
 * The version of the installed package `name` that this code loads, `missing` if none: found as
 * Node resolves an import, so in the checkout's node_modules as in a project that installed
 * tinyagent, where npm hoists the dependencies beside it.
 */
export function packageVersion(name: string): string {
  try {
    const path = require.resolve(`${name}/package.json`);
    return (JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown }).version?.toString() ?? 'unknown';
  } catch {
    return 'missing';
  }
}

const BACKEND_PACKAGES: Record<string, string> = {
  wasm: '@tensorflow/tfjs-backend-wasm',
  tensorflow: '@tensorflow/tfjs-node',
  cpu: '@tensorflow/tfjs-backend-cpu',
};

/** The running process's fingerprint (the backend part is `none` before `initBackend`). */
export function fingerprint(): Fingerprint {
  const backend = recordedBackend() ?? 'none';
  const name = activeBackend();
  const backendPackage = name === undefined ? undefined : BACKEND_PACKAGES[name];
  const threads =
    name === 'tensorflow'
      ? (process.env['TF_NUM_INTRAOP_THREADS'] ?? 'default')
      : name === undefined
        ? 'none'
        : '1';
  return {
    version: projectVersion(),
    sources: sourcesSha256(),
    tfjs: packageVersion('@tensorflow/tfjs'),
    backend,
    backendVersion: backendPackage === undefined ? 'none' : packageVersion(backendPackage),
    kernel:
      name === 'wasm' && productsInstalled()
        ? sha256File(join(ROOT, 'agent', 'kernels', 'kernels.wat'))
        : 'off',
    threads,
  };
}

function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/**
 * The parts in which two fingerprints differ, each as `part: a -> b` (hashes cut to 12
 * characters), in FINGERPRINT_PARTS' order; empty when they are equal. A record with no
 * fingerprint (made before fingerprints were recorded) differs in every part, as `missing`.
 */
export function fingerprintDifferences(
  a: Partial<Fingerprint> | undefined,
  b: Partial<Fingerprint> | undefined,
): string[] {
  const show = (value: string | undefined): string =>
    value === undefined ? 'missing' : /^[0-9a-f]{64}$/.test(value) ? value.slice(0, 12) : value;
  return FINGERPRINT_PARTS.filter((part) => a?.[part] !== b?.[part]).map(
    (part) => `${part}: ${show(a?.[part])} -> ${show(b?.[part])}`,
  );
}

/** Whether a parsed value is a whole fingerprint (every part a string). */
export function isFingerprint(value: unknown): value is Fingerprint {
  return (
    typeof value === 'object' &&
    value !== null &&
    FINGERPRINT_PARTS.every((part) => typeof (value as Record<string, unknown>)[part] === 'string')
  );
}
