/**
 * Argument checks shared by the estimators; each throws a StatisticsError naming the argument.
 * Counts must be safe integers (at most 2^53 - 1): above that `i++` stops advancing and two
 * different counts compare equal, so no result computed from them could be trusted.
 */

import { StatisticsError } from '../lib/errors.ts';

const show = (value: unknown) =>
  typeof value === 'number' || typeof value === 'bigint'
    ? String(value)
    : (JSON.stringify(value) ?? String(value));

/** A safe integer in [min, max]. */
export function checkInteger(value: number, name: string, min = 0, max?: number): void {
  if (!Number.isSafeInteger(value) || value < min || (max !== undefined && value > max))
    throw new StatisticsError(
      `${name} must be an integer in [${min}, ${max ?? '2^53 - 1'}], got ${show(value)}`,
    );
}

/** n >= 1 samples of which c succeeded, and if given 1 <= k <= n. */
export function checkCounts(n: number, c: number, k?: number): void {
  checkInteger(n, 'n', 1);
  checkInteger(c, 'c', 0, n);
  if (k === undefined) return;
  checkInteger(k, 'k', 1);
  if (k > n)
    throw new StatisticsError(`k = ${k} exceeds the number of samples n = ${n}; pass@k needs 1 <= k <= n`);
}

export function checkLevel(level: number): void {
  if (typeof level !== 'number' || !(level > 0 && level < 1))
    throw new StatisticsError(`level must be in (0, 1), got ${show(level)}`);
}

/** A finite number in [0, 1]. */
export function checkProbability(p: number, name: string): void {
  if (typeof p !== 'number' || !(p >= 0 && p <= 1))
    throw new StatisticsError(`${name} must be a number in [0, 1], got ${show(p)}`);
}

/** A finite number (optionally > 0 or >= 0). */
export function checkFinite(value: number, name: string, { positive = false, nonNegative = false } = {}) {
  if (!Number.isFinite(value))
    throw new StatisticsError(`${name} must be a finite number, got ${show(value)}`);
  if (positive && !(value > 0)) throw new StatisticsError(`${name} must be > 0, got ${value}`);
  if (nonNegative && !(value >= 0)) throw new StatisticsError(`${name} must be >= 0, got ${value}`);
}

/** Each entry of an array-like, `ok` or a StatisticsError naming it and `expected`. */
function checkEntries<T>(
  values: ArrayLike<T>,
  name: string,
  what: string,
  ok: (value: T) => boolean,
  expected: string,
): void {
  if (values === null || typeof values !== 'object' || typeof values.length !== 'number')
    throw new StatisticsError(`${name} must be an array of ${what}`);
  for (let i = 0; i < values.length; i++)
    if (!ok(values[i] as T))
      throw new StatisticsError(`${name}[${i}] must be ${expected}, got ${show(values[i])}`);
}

/** Non-empty, every entry finite. */
export function checkFiniteValues(values: ArrayLike<number>, name = 'values'): void {
  if (values !== null && typeof values === 'object' && values.length === 0)
    throw new StatisticsError(`${name} is empty`);
  checkEntries(values, name, 'numbers', Number.isFinite, 'a finite number');
}

/** At least `min` finite values: a standard error or resampling interval from fewer than 2 units does not exist. */
export function checkUnits(values: ArrayLike<number>, min: number, name = 'values', what = 'this statistic') {
  checkFiniteValues(values, name);
  if (values.length < min)
    throw new StatisticsError(`${name} has ${values.length} unit(s); ${what} needs at least ${min}`);
}

export function checkSameLength(a: ArrayLike<number>, b: ArrayLike<number>): void {
  if (a.length !== b.length)
    throw new StatisticsError(`paired samples differ in length: a has ${a.length}, b has ${b.length}`);
}

export function checkRandomSource(rng: unknown): void {
  if (typeof rng !== 'object' || rng === null || typeof (rng as { next?: unknown }).next !== 'function')
    throw new StatisticsError('rng must be a random source with next() (e.g. new Rng(seed))');
}

/** `compute()`, or null where it throws a StatisticsError: a number that does not exist for this input. */
export function orNull<T>(compute: () => T): T | null {
  try {
    return compute();
  } catch (error) {
    if (error instanceof StatisticsError) return null;
    throw error;
  }
}

/** Outcomes of one task: each 0, 1, false or true. */
export function checkOutcomes(outcomes: ArrayLike<number | boolean>, name = 'outcomes'): void {
  const binary = (value: unknown) => value === 0 || value === 1 || value === true || value === false;
  checkEntries(outcomes, name, '0/1 outcomes', binary, '0, 1, false or true');
}
