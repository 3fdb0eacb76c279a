import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { twoSidedTPower } from './noncentralT.ts';
import { checkFinite } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

export interface RequiredSeedsOptions {
  /** SD of one seed's score under recipe A. */
  sdA: number;
  /** SD under recipe B; equal to sdA unless given. */
  sdB?: number;
  /** The difference of the two recipes' means to detect. */
  delta: number;
  /** Two-sided significance level; default 0.05. */
  alpha?: number;
  /** Power to reach, in (alpha, 1); default 0.8. */
  power?: number;
  /**
   * 'equal' (default): Student's two-sample t test, sigma^2 = (sdA^2 + sdB^2) / 2, df 2n - 2;
   * 'unequal': Welch's test, df from Welch-Satterthwaite at n seeds each.
   */
  variances?: 'equal' | 'unequal';
}

/**
 * Seeds per recipe (equal groups of n) for a two-sided t test of two recipes' means to reach a
 * power, from the exact power of the test rather than the normal approximation of
 * `requiredUnits` (chapter 17.4): the statistic is noncentral t with noncentrality
 * delta / sqrt((sdA^2 + sdB^2) / n), and n is the smallest with
 *
 *   P(|T| > t_{1-alpha/2, df}) >= power.
 *
 * With equal variances df = 2n - 2 (Student; statsmodels `TTestIndPower().solve_power`, rounded
 * up). With unequal ones df = (sdA^2 + sdB^2)^2 (n - 1) / (sdA^4 + sdB^4) (Welch-Satterthwaite
 * at the planned n), the usual approximation of Welch's test's power by a noncentral t.
 * @throws StatisticsError when an SD is not finite and > 0, delta not finite and > 0, alpha outside
 *   (0, 1), power outside (alpha, 1), or n above 10^7.
 * @example requiredSeeds({ sdA: 0.1, delta: 0.1 }) // 17 (statsmodels: 16.71)
 */
export function requiredSeeds({
  sdA,
  sdB = sdA,
  delta,
  alpha = 0.05,
  power = 0.8,
  variances = 'equal',
}: RequiredSeedsOptions): number {
  checkFinite(sdA, 'sdA', { positive: true });
  checkFinite(sdB, 'sdB', { positive: true });
  checkFinite(delta, 'delta', { positive: true });
  if (!(alpha > 0 && alpha < 1)) throw new StatisticsError(`alpha must be in (0, 1), got ${alpha}`);
  if (!(power > alpha && power < 1)) throw new StatisticsError(`power must be in (alpha, 1), got ${power}`);
  const [va, vb] = [sdA * sdA, sdB * sdB];
  const powerAt = (n: number) => {
    const df = variances === 'equal' ? 2 * n - 2 : ((va + vb) ** 2 * (n - 1)) / (va * va + vb * vb);
    const noncentrality = delta / Math.sqrt((va + vb) / n);
    return twoSidedTPower(df, Math.min(noncentrality, 37), tQuantile(1 - alpha / 2, df));
  };
  // Power rises with n: double until it is reached, then bisect.
  let [low, high] = [1, 2];
  while (powerAt(high) < power) {
    [low, high] = [high, high * 2];
    if (high > 1e7)
      throw new StatisticsError(`more than 10^7 seeds per recipe are needed to detect ${delta}`);
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (powerAt(middle) >= power) high = middle;
    else low = middle;
  }
  return high;
}
