import betaQuantile from '@stdlib/stats-base-dists-beta-quantile';
import type { Interval } from './proportionInterval.ts';
import { checkInteger, checkLevel, checkProbability } from './validate.ts';

/**
 * The interval a bootstrap falls back to when every unit it resamples has the same value (all
 * tasks at 0 or at 1, say): the percentile bootstrap then has no spread and gives [v, v], which
 * covers nothing. This is the Clopper-Pearson interval of x = m v successes in m units (Clopper &
 * Pearson 1934, beta quantiles: low = Beta(x, m - x + 1).ppf(a/2), high = Beta(x + 1, m - x)
 * .ppf(1 - a/2)), equal to statsmodels `proportion_confint(x, m, method="beta")` at whole x.
 *
 * It covers at the boundary for any per-unit values in [0, 1] with an unbiased per-unit estimate
 * (a task's accuracy c/n, its unbiased pass@k): a unit scores 1 with probability at most its mean
 * theta_j (an estimate in [0, 1] is 1 no more often than its expectation), so m independent units
 * all score 1 with probability at most prod theta_j <= mu^m, below a/2 whenever mu is under the
 * lower end (a/2)^(1/m); the same for 0 with 1 - mu. Between 0 and 1 (every unit at 0.5) it is
 * the binomial's bound for the most spread-out units of that mean, a conservative stand-in.
 *
 * @throws StatisticsError if units < 1, value outside [0, 1] or level outside (0, 1).
 * @example exactOverUnits(1, 5) // { low: 0.4782, high: 1 }: five tasks, all solved
 */
export function exactOverUnits(value: number, units: number, { level = 0.95 } = {}): Interval {
  checkInteger(units, 'units', 1);
  checkProbability(value, 'value');
  checkLevel(level);
  const alpha = 1 - level;
  const x = value * units;
  return {
    low: value === 0 ? 0 : betaQuantile(alpha / 2, x, units - x + 1),
    high: value === 1 ? 1 : betaQuantile(1 - alpha / 2, x + 1, units - x),
  };
}

/** Which interval a resampled estimate carries: its percentile bootstrap, or the exact one over its units where the bootstrap collapsed. */
export type ResampledMethod = 'percentile' | 'exact over tasks' | 'exact over episodes';

/**
 * A percentile interval, or `exactOverUnits` in its place when it has no width (every resampled
 * unit alike): an interval never reports zero width at the task or episode level.
 */
export function withoutCollapse(
  interval: Interval,
  estimate: number,
  { units, unit, level }: { units: number; unit: 'tasks' | 'episodes'; level: number },
): Interval & { method: ResampledMethod } {
  if (interval.low < interval.high || units < 1) return { ...interval, method: 'percentile' };
  return { ...exactOverUnits(estimate, units, { level }), method: `exact over ${unit}` };
}
