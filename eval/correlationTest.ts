import betaCdf from '@stdlib/stats-base-dists-beta-cdf';
import { sampleVariance } from './describe.ts';
import { pearsonCorrelation } from './paired.ts';
import { checkSameLength, checkUnits } from './validate.ts';

/**
 * Test of no correlation between paired values (Fisher 1915; the t form of Student's
 * distribution of r): with r the Pearson correlation of n pairs, t = r sqrt(n - 2) / sqrt(1 - r^2)
 * has Student's t distribution with n - 2 df when the pairs are independent normals, and the
 * two-sided p = P(|T| > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2). Same as scipy's
 * `pearsonr(a, b).pvalue`. p is 0 when |r| = 1.
 * @throws StatisticsError on fewer than 3 pairs, different lengths, a value that is not finite or a
 *   side without spread.
 * @example correlationTest([1, 2, 3, 4], [1, 3, 2, 4]).p // 0.2
 */
export function correlationTest(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
): { correlation: number; t: number; df: number; p: number } {
  checkUnits(a, 3, 'a', 'a correlation test');
  const correlation = pearsonCorrelation(a, b);
  const df = a.length - 2;
  if (Math.abs(correlation) === 1) return { correlation, t: Math.sign(correlation) * Infinity, df, p: 0 };
  const t = (correlation * Math.sqrt(df)) / Math.sqrt(1 - correlation ** 2);
  return { correlation, t, df, p: betaCdf(df / (df + t * t), df / 2, 0.5) };
}

/**
 * Pitman-Morgan test that two paired samples have equal variances (Pitman 1939, Morgan 1939):
 * Var a = Var b exactly when the sums a_j + b_j and the differences a_j - b_j are uncorrelated,
 * Cov(a + b, a - b) = Var a - Var b, so the test is `correlationTest` of the sums against the
 * differences: t = r sqrt(n - 2) / sqrt(1 - r^2), n - 2 df, two-sided. `ratio` is Var a / Var b.
 * Same p as scipy's `pearsonr(a + b, a - b)` (and R's PairedData::Var.test).
 * @throws StatisticsError on fewer than 3 pairs, different lengths, a value that is not finite, or
 *   sums or differences without spread.
 * @example pitmanMorganTest([1, 2, 3, 4], [1.5, 2, 2.5, 3.5]).p
 */
export function pitmanMorganTest(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
): { ratio: number; correlation: number; t: number; df: number; p: number } {
  checkUnits(a, 3, 'a', 'a Pitman-Morgan test');
  checkSameLength(a, b);
  const sums = Array.from(a, (value, j) => value + (b[j] as number));
  const differences = Array.from(a, (value, j) => value - (b[j] as number));
  return { ratio: sampleVariance(a) / sampleVariance(b), ...correlationTest(sums, differences) };
}
