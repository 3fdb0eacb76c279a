import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectVersion } from '../lib/version.ts';
import { activeBackend, recordedBackend } from './backend.ts';
import { productsInstalled } from './kernels/index.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** The fingerprint's parts, in the order `fingerprintDifferences` names them. */
export const FINGERPRINT_PARTS = [
  'version',
  'sources',
  'tfjs',
  'backend',
  'backendVersion',
  'kernel',
  'threads',
] as const;

/**
 * What made a number's bits: the one definition that results files, run manifests and study job
 * outputs record, and that `test:repro` and `study report` compare. Each part is described in
 * docs/CONTRACT.md, "The fingerprint"; experiments' own choices (sizes, seeds) are in each results
 * file's config, not here.
 */
export type Fingerprint = Record<(typeof FINGERPRINT_PARTS)[number], string>;

/** The folders whose files decide the numbers (`Fingerprint.sources`). */
export const SOURCE_FOLDERS = ['gym', 'agent', 'train', 'eval', 'lib'] as const;

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

/**
 * sha256 over SOURCE_FOLDERS' files (path, NUL, content, NUL each, sorted by path); computed once.
 * A TypeScript or JavaScript file counts by its code alone (`codeText`), so a comment or a
 * reflowed line is not other code; every other file counts byte for byte.
 */
export function sourcesSha256(root: string = ROOT): string {
  if (root === ROOT && sourcesHash !== undefined) return sourcesHash;
  const hash = createHash('sha256');
  for (const folder of SOURCE_FOLDERS)
    for (const path of filesUnder(join(root, folder))) {
      hash.update(relative(root, path).split('\\').join('/'));
      hash.update('\0');
      hash.update(/\.(ts|js)$/.test(path) ? codeText(readFileSync(path, 'utf8')) : readFileSync(path));
      hash.update('\0');
    }
  const digest = hash.digest('hex');
  if (root === ROOT) sourcesHash = digest;
  return digest;
}

/** Words after which a `/` begins a regular expression, not a division. */
const BEFORE_REGEX = new Set(
  'return typeof case in of new delete void throw instanceof yield await else do'.split(' '),
);

/**
 * A TypeScript or JavaScript text without its comments, each run of white space (a comment
 * counts as one) made one space, and strings, template literals and regular expressions kept
 * whole: two texts that differ only in comments and layout give the same code text.
 */
export function codeText(text: string): string {
  let out = '';
  let space = false;
  // The last character of code written (not space), and the word it ends, decide what `/` starts.
  let word = '';
  let last = '';
  const templates: number[] = []; // open `${` braces of each enclosing template literal
  const emit = (piece: string) => {
    if (space && out !== '') out += ' ';
    space = false;
    out += piece;
    last = piece[piece.length - 1]!;
  };
  // Copies the literal that opens at `start` (quote `end`) up to its closing quote, escapes kept.
  const literal = (start: number, end: string): number => {
    let i = start + 1;
    let inClass = false;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '\\') i += 2;
      else if (end === '/' && c === '[') ((inClass = true), (i += 1));
      else if (end === '/' && c === ']') ((inClass = false), (i += 1));
      else if (c === end && !inClass) return i + 1;
      else if (end === '`' && c === '$' && text[i + 1] === '{') return i + 2;
      else i += 1;
    }
    return i;
  };
  // A `!` right after an operand is TypeScript's non-null assertion: a `/` after it divides.
  const nonNull = () => last === '!' && /[\w$)\]]/.test(out[out.length - 2] ?? '');
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (/\s/.test(c)) {
      space = true;
      i += 1;
    } else if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
      space = true;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 2;
      space = true;
    } else if (
      c === "'" ||
      c === '"' ||
      c === '`' ||
      (c === '}' && templates.length > 0 && templates.at(-1) === 0)
    ) {
      // A string, a template literal, or the rest of a template literal after a `${ }`.
      if (c === '}') templates.pop();
      const end = literal(i, c === '}' ? '`' : c);
      const piece = text.slice(i, end);
      if ((c === '`' || c === '}') && piece.endsWith('${')) templates.push(0);
      emit(piece);
      word = '';
      i = end;
    } else if (c === '/' && (!/[\w$)\]}'"`]/.test(last) || BEFORE_REGEX.has(word)) && !nonNull()) {
      let end = literal(i, '/');
      while (end < text.length && /[a-z]/.test(text[end]!)) end += 1;
      emit(text.slice(i, end));
      word = '';
      i = end;
    } else {
      if (templates.length > 0 && c === '{') templates[templates.length - 1]! += 1;
      if (templates.length > 0 && c === '}') templates[templates.length - 1]! -= 1;
      word = /[\w$]/.test(c) ? (space || !/[\w$]/.test(last) ? c : word + c) : '';
      emit(c);
      i += 1;
    }
  }
  return out;
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
  const name = activeBackend();
  const backendPackage = name === undefined ? undefined : BACKEND_PACKAGES[name];
  return {
    version: projectVersion(),
    sources: sourcesSha256(),
    tfjs: packageVersion('@tensorflow/tfjs'),
    backend: recordedBackend() ?? 'none',
    backendVersion: backendPackage === undefined ? 'none' : packageVersion(backendPackage),
    kernel:
      name === 'wasm' && productsInstalled()
        ? createHash('sha256')
            .update(readFileSync(join(ROOT, 'agent', 'kernels', 'kernels.wat')))
            .digest('hex')
        : 'off',
    threads:
      name === 'tensorflow'
        ? (process.env['TF_NUM_INTRAOP_THREADS'] ?? 'default')
        : name === undefined
          ? 'none'
          : '1',
  };
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
