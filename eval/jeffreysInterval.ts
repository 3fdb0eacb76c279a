import betaQuantile from '@stdlib/stats-base-dists-beta-quantile';
import type { Interval, ProportionIntervalOptions } from './interval.ts';
import { checkLevel, checkSuccesses, checkTrials } from './validate.ts';

/**
 * Jeffreys interval: the equal-tailed posterior interval under the Jeffreys prior Beta(1/2, 1/2),
 * i.e. Beta(c + 1/2, n - c + 1/2) quantiles at a/2 and 1 - a/2 (Brown, Cai & DasGupta 2001,
 * section 4.1.2). Following their convention the lower bound is 0 at c = 0 and the upper bound 1
 * at c = n, so the interval always contains c/n. Inside (0 < c < n) it equals statsmodels
 * `proportion_confint(c, n, method="jeffreys")`; at the edges statsmodels (0.13, 0.14) returns the
 * raw quantile for that bound instead.
 *
 * @throws StatisticsError if n < 1, c outside [0, n] or level outside (0, 1).
 * @example jeffreysInterval(3, 10) // { low: 0.09269, high: 0.60582 }
 */
export function jeffreysInterval(
  c: number,
  n: number,
  { level = 0.95 }: ProportionIntervalOptions = {},
): Interval {
  checkTrials(n);
  checkSuccesses(c, n);
  checkLevel(level);
  const alpha = 1 - level;
  const low = c === 0 ? 0 : betaQuantile(alpha / 2, c + 0.5, n - c + 0.5);
  const high = c === n ? 1 : betaQuantile(1 - alpha / 2, c + 0.5, n - c + 0.5);
  return { low, high };
}
