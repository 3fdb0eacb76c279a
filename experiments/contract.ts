import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprint, fingerprintDifferences, isFingerprint, type Fingerprint } from '../agent/index.ts';

/**
 * The committed numbers as a versioned contract (docs/CONTRACT.md): every results file records the
 * fingerprint of the code and arithmetic that made it (agent/fingerprint.ts), and these functions
 * compare a fresh fingerprint with a committed one.
 *
 * Two kinds of difference:
 * - **arithmetic** (`tfjs`, `backend`, `backendVersion`, and `kernel` when our kernel ran on one
 *   side only, `off` on the other): another float rounding; exact numbers are not expected to
 *   match, so `test:repro` checks the chapter's qualitative claims instead;
 * - **code** (`version`, `sources`, `kernel` between two versions of it, `threads`): the same
 *   arithmetic by other code; the numbers must still match bit for bit (a change that moves them
 *   needs `--rebaseline`).
 */
const ARITHMETIC_PARTS: readonly (keyof Fingerprint)[] = ['tfjs', 'backend', 'backendVersion'];

/** The fingerprint a parsed record (a results file, a manifest) holds, or undefined when it holds none or a partial one. */
export function fingerprintOf(record: unknown): Fingerprint | undefined {
  const value = (record as { fingerprint?: unknown } | null)?.fingerprint;
  return isFingerprint(value) ? value : undefined;
}

/** The fingerprint a results file records, or undefined for a file written before fingerprints (or a damaged one). */
export function recordedFingerprint(path: string): Fingerprint | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return fingerprintOf(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return undefined;
  }
}

/**
 * Whether two fingerprints differ in their arithmetic (then exact numbers cannot be compared). A
 * side whose backend is `none` made its numbers without tfjs (the pure-statistics experiments run
 * before any backend starts), so its arithmetic is plain JavaScript's on both sides.
 */
export function arithmeticDiffers(committed: Fingerprint, fresh: Fingerprint): boolean {
  if (committed.backend === 'none' || fresh.backend === 'none') return false;
  return arithmeticParts(committed, fresh).some((part) => committed[part] !== fresh[part]);
}

/** The parts that decide the arithmetic between two fingerprints: `kernel` too when it ran on one side only. */
function arithmeticParts(committed: Fingerprint, fresh: Fingerprint): readonly (keyof Fingerprint)[] {
  return (committed.kernel === 'off') === (fresh.kernel === 'off')
    ? ARITHMETIC_PARTS
    : [...ARITHMETIC_PARTS, 'kernel'];
}

/** The fingerprint the committed chapter results in `resultsDir` were made with (its 17.1.json's: every experiment on a trained agent shares it). */
export function committedFingerprint(resultsDir: string): Fingerprint | undefined {
  return recordedFingerprint(join(resultsDir, '17.1.json'));
}

const arithmeticOf = (print: Fingerprint) =>
  `${print.backend} (tfjs ${print.tfjs}, ${print.backend === 'none' ? 'no backend' : `backend ${print.backendVersion}`})`;

/**
 * The one-line notice `train`, the experiments and `test:repro` print at start when the running
 * backend is not the one the committed results were made on; undefined when it is (or when
 * nothing committed records a fingerprint).
 */
export function backendNotice(
  committed: Fingerprint | undefined,
  fresh: Fingerprint = fingerprint(),
): string | undefined {
  if (committed === undefined || !arithmeticDiffers(committed, fresh)) return undefined;
  const parts = arithmeticParts(committed, fresh);
  const differs = fingerprintDifferences(committed, fresh).filter((line) =>
    parts.some((part) => line.startsWith(`${part}:`)),
  );
  return (
    `notice: this process computes on ${arithmeticOf(fresh)}, the committed results on ${arithmeticOf(committed)}: ` +
    `its numbers will differ from results/ in their last bits (${differs.join(', ')}); test:repro checks the chapter's qualitative claims instead (TINYAGENT_BACKEND=wasm computes as the committed results did)`
  );
}

let noticed = false;

/** Prints `backendNotice` on stderr once per process (after the backend started), against the results in `resultsDir`. */
export function sayBackendNotice(resultsDir: string): void {
  if (noticed) return;
  const notice = backendNotice(committedFingerprint(resultsDir));
  if (notice === undefined) return;
  noticed = true;
  process.stderr.write(`${notice}\n`);
}
