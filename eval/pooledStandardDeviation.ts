import { checkFinite, checkInteger } from './validate.ts';

/** One group's sample SD and size. */
export interface GroupSpread {
  sd: number;
  n: number;
}

/**
 * The pooled SD of two groups, the one SD a two-sample t test with equal variances assumes:
 *
 *   s_p = sqrt(((n_a - 1) s_a^2 + (n_b - 1) s_b^2) / (n_a + n_b - 2))
 *
 * (Student's two-sample test; statsmodels `ttest_ind(usevar="pooled")` pools the same way). Each
 * group's SD weighs by its degrees of freedom.
 *
 * @throws StatisticsError on an SD that is not finite and >= 0, or a group of fewer than 2 units.
 * @example pooledStandardDeviation({ sd: 0.1193, n: 16 }, { sd: 0.0495, n: 8 }) // 0.1024
 */
export function pooledStandardDeviation(a: GroupSpread, b: GroupSpread): number {
  checkFinite(a.sd, 'a.sd', { nonNegative: true });
  checkFinite(b.sd, 'b.sd', { nonNegative: true });
  checkInteger(a.n, 'a.n', 2);
  checkInteger(b.n, 'b.n', 2);
  return Math.sqrt(((a.n - 1) * a.sd ** 2 + (b.n - 1) * b.sd ** 2) / (a.n + b.n - 2));
}
