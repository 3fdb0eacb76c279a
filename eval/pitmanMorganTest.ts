import betaCdf from '@stdlib/stats-base-dists-beta-cdf';
import { pearsonCorrelation } from './paired.ts';
import { sampleVariance } from './describe.ts';
import { checkUnits } from './validate.ts';

/**
 * Pitman-Morgan test that two paired samples have equal variances (Pitman 1939, Morgan 1939):
 * Var a = Var b exactly when the sums a_j + b_j and the differences a_j - b_j are uncorrelated, so
 * with r their Pearson correlation over n pairs,
 *
 *   t = r sqrt(n - 2) / sqrt(1 - r^2),  df = n - 2,
 *
 * two-sided p = P(|T_{n-2}| > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2). `ratio` is Var a / Var b.
 * Same p as scipy's `pearsonr(a + b, a - b)` (and R's PairedData::Var.test).
 * @throws RangeError on fewer than 3 pairs, different lengths, a value that is not finite, or
 *   sums or differences without spread.
 * @example pitmanMorganTest([1, 2, 3, 4], [1.5, 2, 2.5, 3.5]).p
 */
export function pitmanMorganTest(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
): { ratio: number; correlation: number; t: number; df: number; p: number } {
  checkUnits(a, 3, 'a', 'a Pitman-Morgan test');
  const sums = Array.from(a, (value, j) => value + (b[j] as number));
  const differences = Array.from(a, (value, j) => value - (b[j] as number));
  const correlation = pearsonCorrelation(sums, differences);
  const df = a.length - 2;
  const t =
    correlation === 1 || correlation === -1
      ? Infinity
      : (correlation * Math.sqrt(df)) / Math.sqrt(1 - correlation ** 2);
  const p = Number.isFinite(t) ? betaCdf(df / (df + t * t), df / 2, 0.5) : 0;
  return { ratio: sampleVariance(a) / sampleVariance(b), correlation, t, df, p };
}
