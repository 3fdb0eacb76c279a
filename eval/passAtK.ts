import { noneDrawn } from './noneDrawn.ts';
import { checkCounts, checkInteger, checkOutcomes } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * Unbiased pass@k of one task from c successes among n samples (Chen et al. 2021, eq. 1),
 * 1 - C(n-c, k) / C(n, k) = 1 - prod_{i=n-c+1}^{n} (1 - k/i), in the product form that never forms
 * a binomial coefficient: the shorter of the two products, or past 100,000 factors a log-space
 * series (noneDrawn.ts). Exactly 1 when n - c < k.
 * @throws StatisticsError if n < 1, c outside [0, n], k outside [1, n], or a count above 2^53 - 1.
 * @example passAtK(10, 3, 5) // 0.9166... = 1 - 21/252
 */
export function passAtK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  return noneDrawn(n, c, k).complement;
}

/**
 * Plug-in pass@k, 1 - (1 - c/n)^k: substitutes p-hat = c/n into 1 - (1-p)^k. Biased low for
 * k >= 2 and 0 < p < 1 because the map is strictly concave (Jensen); kept only to show that
 * error (chapter 17.2). k may exceed n here, since it is a formula in p.
 * @example plugInPassAtK(10, 3, 5) // 1 - 0.7^5 = 0.83193
 */
export function plugInPassAtK(n: number, c: number, k: number): number {
  checkCounts(n, c);
  checkInteger(k, 'k', 1);
  return 1 - (1 - c / n) ** k;
}

/**
 * Unbiased all-k-correct (pass^k) of one task: the probability that k samples drawn without
 * replacement from the n are all successes,
 *
 *   C(c, k) / C(n, k) = prod_{i=0}^{k-1} (c - i) / (n - i) = C(n - (n-c), k) / C(n, k),
 *
 * the hypergeometric zero term of pass@k with the n - c failures marked (noneDrawn.ts). Unbiased
 * for p^k (the U-statistic argument of Chen et al. 2021). Exactly 0 when c < k.
 * @example allCorrectAtK(10, 10, 10) // 1; allCorrectAtK(10, 3, 2) // 6/90
 */
export function allCorrectAtK(n: number, c: number, k: number): number {
  checkCounts(n, c, k);
  return noneDrawn(n, n - c, k).probability;
}

/** A task's samples in generation order: 1/true = passed, 0/false = failed. */
export type Outcomes = ArrayLike<number | boolean>;

/** The first k outcomes, after checking that there are k. */
function firstK(outcomes: Outcomes, k: number): Array<number | boolean> {
  checkOutcomes(outcomes);
  checkInteger(k, 'k', 1);
  if (k > outcomes.length)
    throw new StatisticsError(`k = ${k} exceeds the ${outcomes.length} samples of this task`);
  return Array.prototype.slice.call(outcomes, 0, k);
}

/**
 * Prefix pass@k of one task: 1 if any of the first k samples (generation order) passed, else 0.
 * Monotone in k on one batch with no independence assumption (the pass@k-inversion note).
 * @example prefixPassAtK([0, 1, 1, 0], 2) // 1
 */
export function prefixPassAtK(outcomes: Outcomes, k: number): 0 | 1 {
  return firstK(outcomes, k).some(Boolean) ? 1 : 0;
}

/**
 * Prefix all-k-correct (pass^k) of one task: 1 if all of the first k samples passed; non-increasing in k.
 * @example prefixAllCorrectAtK([1, 1, 0], 2) // 1
 */
export function prefixAllCorrectAtK(outcomes: Outcomes, k: number): 0 | 1 {
  return firstK(outcomes, k).every(Boolean) ? 1 : 0;
}

/** One task's counts: c successes among n samples. */
export type TaskCounts = { n: number; c: number };

/** The mean over a non-empty array of tasks of `value` of each (which checks the task). */
function meanOverTasks<T>(tasks: readonly T[], value: (task: T, j: number) => number): number {
  if (!Array.isArray(tasks) || tasks.length === 0)
    throw new StatisticsError('tasks must be a non-empty array');
  let sum = 0;
  tasks.forEach((task, j) => (sum += value(task, j)));
  return sum / tasks.length;
}

/**
 * Mean accuracy (pass@1 from all samples, the chapter's p-bar): the mean over tasks of c_j / n_j.
 * Tasks weigh equally whatever their n_j, so it is not the share of passing samples unless every
 * task has the same n.
 * @example meanAccuracy([{ n: 10, c: 1 }, { n: 10, c: 2 }]) // 0.15
 */
export function meanAccuracy(tasks: readonly TaskCounts[]): number {
  return meanOverTasks(tasks, ({ n, c }, j) => {
    checkInteger(n, `tasks[${j}].n`, 1);
    checkInteger(c, `tasks[${j}].c`, 0, n);
    return c / n;
  });
}

/**
 * First-sample accuracy: the share of tasks whose sample 0 passed (one generation per task).
 * @example firstSampleAccuracy([[1, 0], [0, 1]]) // 0.5
 */
export function firstSampleAccuracy(tasks: readonly Outcomes[]): number {
  return meanOverTasks(tasks, (outcomes, j) => {
    checkOutcomes(outcomes, `tasks[${j}]`);
    if (outcomes.length === 0) throw new StatisticsError(`tasks[${j}] has no samples`);
    return outcomes[0] ? 1 : 0;
  });
}

/** The most bits of C(n, k) exact arithmetic is allowed (docs/MEASUREMENTS.md). */
const MAX_BITS = 50_000;

function binomial(n: bigint, k: bigint): bigint {
  if (k < 0n || k > n) return 0n;
  if (n - k < k) k = n - k;
  let result = 1n;
  for (let i = 1n; i <= k; i++) result = (result * (n - k + i)) / i;
  return result;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

/**
 * Unbiased pass@k in exact BigInt arithmetic, 1 - C(n-c, k) / C(n, k) as a reduced fraction
 * (Chen et al. 2021, eq. 1), for testing the product form where the coefficients do not fit
 * a float (C(2000, 1000) has 600 digits), with its nearest float (the fraction scaled by 2^64 first).
 *
 * @throws StatisticsError as passAtK, and when C(n, k) would exceed about 50,000 bits (the bound
 *   k' log2(e n / k'), k' = min(k, n - k)): use passAtK there.
 * @example exactPassAtK(10, 3, 5) // { numerator: 231n, denominator: 252n } reduced to 11n/12n
 */
export function exactPassAtK(n: number, c: number, k: number) {
  checkCounts(n, c, k);
  const shorter = Math.min(k, n - k);
  const bits = shorter === 0 ? 0 : shorter * Math.log2((Math.E * n) / shorter);
  if (bits > MAX_BITS)
    throw new StatisticsError(
      `k = ${k} with n = ${n}: C(n, k) has up to ${Math.round(bits)} bits; exact arithmetic is limited to ${MAX_BITS} (use passAtK)`,
    );
  const total = binomial(BigInt(n), BigInt(k));
  const allFail = binomial(BigInt(n - c), BigInt(k));
  const divisor = gcd(total - allFail, total) || 1n;
  const numerator = (total - allFail) / divisor;
  const denominator = total / divisor;
  const value = Number((numerator << 64n) / denominator) / 2 ** 64;
  return { numerator, denominator, value };
}
