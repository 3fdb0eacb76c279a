import { checkFinite, checkFiniteValues, checkInteger, checkUnits } from './validate.ts';

/** Arithmetic mean. @throws StatisticsError on an empty array or a value that is not finite. */
export function mean(values: ArrayLike<number>): number {
  checkFiniteValues(values);
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  return sum / values.length;
}

/**
 * Sample variance with the n - 1 denominator (numpy `var(ddof=1)`); one value, where numpy
 * returns nan, is an error.
 * @throws StatisticsError on fewer than 2 values or a value that is not finite.
 */
export function sampleVariance(values: ArrayLike<number>): number {
  checkUnits(values, 2, 'values', 'a sample variance');
  const center = mean(values);
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += (values[i]! - center) ** 2;
  return sum / (values.length - 1);
}

/**
 * Whether every value is the same. The bootstrap of their mean then has no spread (every resampled
 * mean is that one value), and its interval would have zero width, which would claim certainty.
 */
export function allAlike(values: ArrayLike<number>): boolean {
  for (let i = 1; i < values.length; i++) if (values[i] !== values[0]) return false;
  return true;
}

/** Sample standard deviation (n - 1 denominator). */
export function sampleStandardDeviation(values: ArrayLike<number>): number {
  return Math.sqrt(sampleVariance(values));
}

/**
 * Standard error of a mean of n values, s / sqrt(n) (n - 1 denominator): lm-evaluation-harness's
 * `mean_stderr` (its `acc_stderr`) and scipy's `stats.sem`. Over task means, the task-level SE.
 * @throws StatisticsError as sampleVariance.
 */
export function meanStandardError(values: ArrayLike<number>): number {
  return sampleStandardDeviation(values) / Math.sqrt(values.length);
}

export type GroupSpread = { sd: number; n: number };

/**
 * The pooled SD of two groups that Student's two-sample t test assumes (statsmodels
 * `ttest_ind(usevar="pooled")`), s_p = sqrt(((n_a - 1) s_a^2 + (n_b - 1) s_b^2) / (n_a + n_b - 2)).
 * @throws StatisticsError on an SD that is not finite and >= 0, or a group of fewer than 2 units.
 */
export function pooledStandardDeviation(a: GroupSpread, b: GroupSpread): number {
  checkFinite(a.sd, 'a.sd', { nonNegative: true });
  checkFinite(b.sd, 'b.sd', { nonNegative: true });
  checkInteger(a.n, 'a.n', 2);
  checkInteger(b.n, 'b.n', 2);
  return Math.sqrt(((a.n - 1) * a.sd ** 2 + (b.n - 1) * b.sd ** 2) / (a.n + b.n - 2));
}

/**
 * Shannon entropy in bits of the empirical distribution of counts, H = -sum q_i log2 q_i
 * (Cover & Thomas 2.1; 0 log 0 = 0); null when nothing is counted. Chapter 17, exercise 4.
 * @throws StatisticsError on a count that is not a finite number >= 0.
 */
export function shannonEntropy(counts: Readonly<Record<string, number>>): number | null {
  const values = Object.values(counts);
  values.forEach((value, i) => checkFinite(value, `counts[${i}]`, { nonNegative: true }));
  const total = values.reduce((sum, value) => sum + value, 0);
  if (total === 0) return null;
  return values.reduce(
    (sum, value) => (value === 0 ? sum : sum - (value / total) * Math.log2(value / total)),
    0,
  );
}
