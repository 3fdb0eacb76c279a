import { correlationTest } from './correlationTest.ts';
import { sampleVariance } from './describe.ts';
import { checkSameLength, checkUnits } from './validate.ts';

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
