import betaQuantile from '@stdlib/stats-base-dists-beta-quantile';
import { binomialPmf } from './discrete.ts';
import { twoSidedZ } from './normal.ts';
import { checkCounts, checkInteger, checkLevel, checkProbability } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

export type Interval = { low: number; high: number };

type Level = { level?: number };

/** The check every interval below makes first (its StatisticsError): n >= 1, c in [0, n], level in (0, 1). */
function checked(c: number, n: number, level: number): number {
  checkCounts(n, c);
  checkLevel(level);
  return level;
}

const clipped = (center: number, half: number): Interval => ({
  low: Math.max(0, center - half),
  high: Math.min(1, center + half),
});

/**
 * Wald interval for a binomial proportion, p-hat +- z sqrt(p-hat (1 - p-hat) / n), clipped to
 * [0, 1] as statsmodels `proportion_confint(c, n, method="normal")` does. Zero width at c = 0
 * or c = n and undercovers near the boundary (chapter 17.3); for comparison, prefer Wilson.
 * @example waldInterval(3, 10) // { low: 0.0160, high: 0.5840 }
 */
export function waldInterval(c: number, n: number, { level = 0.95 }: Level = {}): Interval {
  const p = c / n;
  return clipped(p, twoSidedZ(checked(c, n, level)) * Math.sqrt((p * (1 - p)) / n));
}

/**
 * Wilson score interval (Wilson 1927; Brown, Cai & DasGupta 2001): the p not rejected by the
 * score test |p-hat - p| <= z sqrt(p (1-p) / n), i.e.
 *
 *   (p-hat + z^2/2n) / (1 + z^2/n)  +-  z / (1 + z^2/n) * sqrt(p-hat (1-p-hat) / n + z^2 / 4n^2).
 *
 * Same as statsmodels `proportion_confint(c, n, method="wilson")`.
 * @example wilsonInterval(0, 40) // { low: 0, high: 0.08762 }
 */
export function wilsonInterval(c: number, n: number, { level = 0.95 }: Level = {}): Interval {
  const z = twoSidedZ(checked(c, n, level));
  const p = c / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denominator;
  return clipped(center, (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator);
}

/**
 * Agresti-Coull interval (Agresti & Coull 1998): add z^2/2 successes and z^2/2 failures, then
 * Wald: n~ = n + z^2, p~ = (c + z^2/2) / n~, p~ +- z sqrt(p~ (1-p~) / n~), clipped to [0, 1].
 * Same as statsmodels `proportion_confint(c, n, method="agresti_coull")`.
 * @example agrestiCoullInterval(3, 10) // { low: 0.10333, high: 0.60737 }
 */
export function agrestiCoullInterval(c: number, n: number, { level = 0.95 }: Level = {}): Interval {
  const z = twoSidedZ(checked(c, n, level));
  const adjustedTrials = n + z * z;
  const center = (c + (z * z) / 2) / adjustedTrials;
  return clipped(center, z * Math.sqrt((center * (1 - center)) / adjustedTrials));
}

/**
 * Clopper-Pearson "exact" interval (Clopper & Pearson 1934), from beta quantiles:
 * low = Beta(c, n-c+1).ppf(a/2), high = Beta(c+1, n-c).ppf(1-a/2), with low = 0 at c = 0 and
 * high = 1 at c = n. Same as statsmodels `proportion_confint(c, n, method="beta")`; conservative.
 * @example clopperPearsonInterval(3, 10) // { low: 0.06674, high: 0.65245 }
 */
export function clopperPearsonInterval(c: number, n: number, { level = 0.95 }: Level = {}): Interval {
  return clopperPearsonBounds(c, n, 1 - checked(c, n, level));
}

/** Clopper-Pearson's beta quantiles of x successes in n (x may be fractional), unchecked. */
function clopperPearsonBounds(x: number, n: number, alpha: number): Interval {
  return {
    low: x === 0 ? 0 : betaQuantile(alpha / 2, x, n - x + 1),
    high: x === n ? 1 : betaQuantile(1 - alpha / 2, x + 1, n - x),
  };
}

/**
 * Jeffreys interval: the equal-tailed posterior interval under the Jeffreys prior Beta(1/2, 1/2),
 * i.e. Beta(c + 1/2, n - c + 1/2) quantiles at a/2 and 1 - a/2 (Brown, Cai & DasGupta 2001,
 * section 4.1.2), with their low = 0 at c = 0 and high = 1 at c = n. Inside (0 < c < n) it equals
 * statsmodels `proportion_confint(c, n, method="jeffreys")`, which keeps the raw quantile at the edges.
 * @example jeffreysInterval(3, 10) // { low: 0.09269, high: 0.60582 }
 */
export function jeffreysInterval(c: number, n: number, { level = 0.95 }: Level = {}): Interval {
  const alpha = 1 - checked(c, n, level);
  const low = c === 0 ? 0 : betaQuantile(alpha / 2, c + 0.5, n - c + 0.5);
  const high = c === n ? 1 : betaQuantile(1 - alpha / 2, c + 0.5, n - c + 0.5);
  return { low, high };
}

const INTERVALS = {
  wilson: wilsonInterval,
  wald: waldInterval,
  'clopper-pearson': clopperPearsonInterval,
  jeffreys: jeffreysInterval,
  'agresti-coull': agrestiCoullInterval,
} as const;
export type ProportionMethod = keyof typeof INTERVALS;
export const PROPORTION_METHODS = Object.keys(INTERVALS) as readonly ProportionMethod[];

/** One proportion c/n with an interval by name (default Wilson, level 0.95). */
export function proportionInterval(
  c: number,
  n: number,
  { method = 'wilson', level = 0.95 }: { method?: ProportionMethod; level?: number } = {},
): { estimate: number; low: number; high: number; method: ProportionMethod; level: number } {
  const interval = INTERVALS[method];
  if (interval === undefined)
    throw new StatisticsError(
      `unknown interval method '${String(method)}' (have ${PROPORTION_METHODS.join(', ')})`,
    );
  const { low, high } = interval(c, n, { level });
  return { estimate: c / n, low, high, method, level };
}

/**
 * Exact coverage of a one-proportion interval at true rate p: the Binomial(n, p) probability of
 * the counts c whose interval contains p, sum_c pmf(c) 1[low(c) <= p <= high(c)]
 * (Brown, Cai & DasGupta 2001, eq. 2). No simulation error.
 * @example intervalCoverage(40, 0.2, wilsonInterval) // 0.928
 */
export function intervalCoverage(n: number, p: number, interval: (c: number, n: number) => Interval): number {
  checkInteger(n, 'n', 1);
  checkProbability(p, 'p');
  if (typeof interval !== 'function')
    throw new StatisticsError('interval must be a function (c, n) => { low, high }');
  const pmf = binomialPmf(n, p);
  let coverage = 0;
  for (let c = 0; c <= n; c++) {
    const { low, high } = interval(c, n);
    if (low <= p && p <= high) coverage += pmf[c]!;
  }
  return coverage;
}

/**
 * The interval a bootstrap falls back to when every unit it resamples has the same value (all
 * tasks at 0 or at 1, say): the percentile bootstrap then has no spread and gives [v, v], which
 * covers nothing. This is the Clopper-Pearson interval of x = m v successes in m units, equal to
 * statsmodels `proportion_confint(x, m, method="beta")` at whole x.
 *
 * It covers at the boundary for any unbiased per-unit estimates in [0, 1]: m independent units
 * all score 1 with probability at most prod theta_j <= mu^m, below a/2 whenever mu is under the
 * lower end (a/2)^(1/m) (the same for 0); in between it is a conservative stand-in.
 *
 * @example exactOverUnits(1, 5) // { low: 0.4782, high: 1 }: five tasks, all solved
 */
export function exactOverUnits(value: number, units: number, { level = 0.95 } = {}): Interval {
  checkInteger(units, 'units', 1);
  checkProbability(value, 'value');
  checkLevel(level);
  // value * units is 0 only at value 0 and units only at value 1 (a float below 1 rounds below units)
  return clopperPearsonBounds(value * units, units, 1 - level);
}

export type ResampledMethod = 'percentile' | 'exact over tasks' | 'exact over episodes';

/** A percentile interval, or `exactOverUnits` where it has no width: never a zero-width interval. */
export function withoutCollapse(
  interval: Interval,
  estimate: number,
  { units, unit, level }: { units: number; unit: 'tasks' | 'episodes'; level: number },
): Interval & { method: ResampledMethod } {
  if (interval.low < interval.high || units < 1) return { ...interval, method: 'percentile' };
  return { ...exactOverUnits(estimate, units, { level }), method: `exact over ${unit}` };
}
