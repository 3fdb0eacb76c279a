import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { mean, sampleVariance } from './describe.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * Welch's interval for the difference of two means with unequal variances (Welch 1947): with
 * v_a = s_a^2 / n_a and v_b = s_b^2 / n_b, the difference mean(b) - mean(a) +- t_{1-alpha/2, df}
 * sqrt(v_a + v_b), df = (v_a + v_b)^2 / (v_a^2 / (n_a - 1) + v_b^2 / (n_b - 1)) (Welch-Satterthwaite).
 * Same as scipy's `ttest_ind(b, a, equal_var=False).confidence_interval()`. df is null, and the
 * interval [diff, diff], when both groups have no spread.
 * @throws StatisticsError when a group has fewer than 2 values or level is outside (0, 1).
 * @example welchInterval([0.8, 0.85, 0.9], [0.7, 0.9, 0.95])
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
