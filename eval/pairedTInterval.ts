import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { mean, sampleVariance } from './describe.ts';
import { differences } from './paired.ts';
import { checkLevel, checkUnits } from './validate.ts';

/**
 * The paired t interval for mean(b_j - a_j) over n pairs (Student 1908; chapter 17.4):
 * d-bar +- t_{1-alpha/2, n-1} sd(d) / sqrt(n). Same as scipy's
 * `ttest_rel(b, a).confidence_interval()`. The interval is [d-bar, d-bar] when every difference
 * is the same.
 * @throws RangeError on fewer than 2 pairs, different lengths, a value that is not finite, or a
 *   level outside (0, 1).
 * @example pairedTInterval([0.5, 0.7, 0.6], [0.6, 0.9, 0.6]) // difference 0.1, df 2
 */
export function pairedTInterval(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  { level = 0.95 }: { level?: number } = {},
): { difference: number; low: number; high: number; df: number; standardError: number } {
  checkLevel(level);
  const d = differences(a, b);
  checkUnits(d, 2, 'a', 'a paired t interval');
  const difference = mean(d);
  const standardError = Math.sqrt(sampleVariance(d) / d.length);
  const df = d.length - 1;
  const half = standardError === 0 ? 0 : tQuantile(1 - (1 - level) / 2, df) * standardError;
  return { difference, low: difference - half, high: difference + half, df, standardError };
}
