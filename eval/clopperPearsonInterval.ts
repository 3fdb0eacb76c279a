import betaQuantile from '@stdlib/stats-base-dists-beta-quantile';
import type { Interval, ProportionIntervalOptions } from './interval.ts';
import { checkLevel, checkSuccesses, checkTrials } from './validate.ts';

/**
 * Clopper-Pearson "exact" interval (Clopper & Pearson 1934), from beta quantiles:
 * low = Beta(c, n-c+1).ppf(a/2), high = Beta(c+1, n-c).ppf(1-a/2), with low = 0 at c = 0 and
 * high = 1 at c = n. Same as statsmodels `proportion_confint(c, n, method="beta")`.
 * Conservative: coverage at least the level for every p.
 *
 * @throws StatisticsError if n < 1, c outside [0, n] or level outside (0, 1).
 * @example clopperPearsonInterval(3, 10) // { low: 0.06674, high: 0.65245 }
 */
export function clopperPearsonInterval(
  c: number,
  n: number,
  { level = 0.95 }: ProportionIntervalOptions = {},
): Interval {
  checkTrials(n);
  checkSuccesses(c, n);
  checkLevel(level);
  const alpha = 1 - level;
  const low = c === 0 ? 0 : betaQuantile(alpha / 2, c, n - c + 1);
  const high = c === n ? 1 : betaQuantile(1 - alpha / 2, c + 1, n - c);
  return { low, high };
}
