import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import betaCdf from '@stdlib/stats-base-dists-beta-cdf';
import { mean, sampleVariance } from './describe.ts';
import { checkFiniteValues, checkSameLength, checkUnits, checkLevel } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';
import { bootstrapCI, type BootstrapOptions } from './bootstrap.ts';

/** The per-unit differences b_j - a_j of two paired samples, checked: non-empty, finite, of one length. */
export function differences(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  checkFiniteValues(a, 'a');
  checkFiniteValues(b, 'b');
  checkSameLength(a, b);
  const d = new Float64Array(a.length);
  for (let j = 0; j < a.length; j++) d[j] = b[j]! - a[j]!;
  return d;
}

/** Mean per-unit difference d-bar = mean(b_j - a_j); positive means B is higher. */
export function meanDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return mean(differences(a, b));
}

/**
 * Paired standard error sd(b_j - a_j) / sqrt(N): Var(d-bar) = (Var a + Var b - 2 Cov(a, b)) / N
 * (chapter 17.4), the covariance term being what pairing keeps. Undefined below 2 pairs.
 */
export function pairedStandardError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const d = differences(a, b);
  checkUnits(d, 2, 'a', 'a paired standard error');
  return Math.sqrt(sampleVariance(d) / d.length);
}

/**
 * Unpaired (Welch) standard error of mean(b) - mean(a), sqrt(Var a / N_a + Var b / N_b), as if
 * the two systems had run on independent task samples. Undefined below 2 units per side.
 */
export function unpairedStandardError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  checkUnits(a, 2, 'a', 'an unpaired standard error');
  checkUnits(b, 2, 'b', 'an unpaired standard error');
  return Math.sqrt(sampleVariance(a) / a.length + sampleVariance(b) / b.length);
}

/**
 * Pearson correlation of paired values (per-task pass rates of two systems). Undefined when
 * either side has no spread, which includes a single pair.
 */
export function pearsonCorrelation(a: ArrayLike<number>, b: ArrayLike<number>): number {
  differences(a, b); // checks both
  checkUnits(a, 2, 'a', 'a correlation');
  const meanA = mean(a);
  const meanB = mean(b);
  let covariance = 0;
  let varianceA = 0;
  let varianceB = 0;
  for (let j = 0; j < a.length; j++) {
    const da = a[j]! - meanA;
    const db = b[j]! - meanB;
    covariance += da * db;
    varianceA += da * da;
    varianceB += db * db;
  }
  if (varianceA === 0 || varianceB === 0)
    throw new StatisticsError(
      `the correlation is undefined: ${varianceA === 0 ? 'a' : 'b'} has zero variance`,
    );
  return Math.max(-1, Math.min(1, covariance / Math.sqrt(varianceA * varianceB)));
}

/**
 * Paired bootstrap of the difference between two systems on the same units (tasks), `bootstrapCI`
 * of b_j - a_j: each replicate resamples the same units for both, so the shared task difficulty
 * cancels (Efron & Tibshirani 1993, ch. 16; chapter 17.4). Positive means B is higher.
 */
export function pairedBootstrapDiff(a: ArrayLike<number>, b: ArrayLike<number>, options: BootstrapOptions) {
  return bootstrapCI(differences(a, b), options);
}

/**
 * The one-sample t interval for the mean of n values (Student 1908), x-bar +- t_{1-alpha/2, n-1}
 * sd(x) / sqrt(n), as scipy's `stats.ttest_1samp(x, 0).confidence_interval()`. 17.8's figures over
 * seeds use it: at 8 and 16 seeds it covers near 95% where the percentile bootstrap does not
 * (results/coverage.md).
 */
export function meanTInterval(values: ArrayLike<number>, { level = 0.95 }: { level?: number } = {}) {
  checkLevel(level);
  checkUnits(values, 2, 'values', 'a t interval');
  const estimate = mean(values);
  const standardError = Math.sqrt(sampleVariance(values) / values.length);
  const df = values.length - 1;
  const half = standardError === 0 ? 0 : tQuantile(1 - (1 - level) / 2, df) * standardError;
  return { estimate, low: estimate - half, high: estimate + half, df, standardError };
}

/**
 * The paired t interval for mean(b_j - a_j) over n pairs (chapter 17.4), the one-sample t
 * interval of the differences, as scipy's `ttest_rel(b, a).confidence_interval()`.
 */
export function pairedTInterval(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  { level = 0.95 }: { level?: number } = {},
): { difference: number; low: number; high: number; df: number; standardError: number } {
  checkLevel(level);
  const d = differences(a, b);
  checkUnits(d, 2, 'a', 'a paired t interval');
  const { estimate, ...rest } = meanTInterval(d, { level });
  return { difference: estimate, ...rest };
}

/**
 * Welch's interval for mean(b) - mean(a) with unequal variances (Welch 1947): +- t_{1-alpha/2, df}
 * sqrt(v_a + v_b), v = s^2 / n, df = (v_a + v_b)^2 / (v_a^2 / (n_a - 1) + v_b^2 / (n_b - 1)), as
 * scipy's `ttest_ind(b, a, equal_var=False).confidence_interval()`; df null when neither varies.
 */
export function welchInterval(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  { level = 0.95 }: { level?: number } = {},
): { difference: number; low: number; high: number; df: number | null; standardError: number } {
  if (a.length < 2 || b.length < 2)
    throw new StatisticsError('welchInterval: each group needs at least 2 values');
  if (!(level > 0 && level < 1))
    throw new StatisticsError(`welchInterval: level must be in (0, 1), got ${level}`);
  const va = sampleVariance(a) / a.length;
  const vb = sampleVariance(b) / b.length;
  const difference = mean(b) - mean(a);
  const standardError = Math.sqrt(va + vb);
  if (standardError === 0) return { difference, low: difference, high: difference, df: null, standardError };
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  const half = tQuantile(1 - (1 - level) / 2, df) * standardError;
  return { difference, low: difference - half, high: difference + half, df, standardError };
}

/**
 * Test of no correlation between paired values (Fisher 1915): with r the Pearson correlation of
 * n pairs, t = r sqrt(n - 2) / sqrt(1 - r^2) is Student's t with n - 2 df for independent normal
 * pairs, and the two-sided p = I_{df / (df + t^2)}(df / 2, 1 / 2), as scipy's `pearsonr(a, b).pvalue`.
 */
export function correlationTest(a: ArrayLike<number>, b: ArrayLike<number>) {
  checkUnits(a, 3, 'a', 'a correlation test');
  const correlation = pearsonCorrelation(a, b);
  const df = a.length - 2;
  if (Math.abs(correlation) === 1) return { correlation, t: Math.sign(correlation) * Infinity, df, p: 0 };
  const t = (correlation * Math.sqrt(df)) / Math.sqrt(1 - correlation ** 2);
  return { correlation, t, df, p: betaCdf(df / (df + t * t), df / 2, 0.5) };
}

/**
 * Pitman-Morgan test that two paired samples have equal variances (Pitman 1939, Morgan 1939):
 * Cov(a + b, a - b) = Var a - Var b, so it is `correlationTest` of the sums against the
 * differences (R's PairedData::Var.test). `ratio` is Var a / Var b.
 */
export function pitmanMorganTest(a: ArrayLike<number>, b: ArrayLike<number>) {
  checkUnits(a, 3, 'a', 'a Pitman-Morgan test');
  checkSameLength(a, b);
  const sums = Array.from(a, (value, j) => value + b[j]!);
  const differences = Array.from(a, (value, j) => value - b[j]!);
  return { ratio: sampleVariance(a) / sampleVariance(b), ...correlationTest(sums, differences) };
}
