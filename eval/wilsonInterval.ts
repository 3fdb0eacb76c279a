import type { Interval, ProportionIntervalOptions } from './interval.ts';
import { twoSidedZ } from './normal.ts';
import { checkLevel, checkSuccesses, checkTrials } from './validate.ts';

/**
 * Wilson score interval (Wilson 1927; Brown, Cai & DasGupta 2001): the p not rejected by the
 * score test |p-hat - p| <= z sqrt(p (1-p) / n), i.e.
 *
 *   (p-hat + z^2/2n) / (1 + z^2/n)  +-  z / (1 + z^2/n) * sqrt(p-hat (1-p-hat) / n + z^2 / 4n^2).
 *
 * Same as statsmodels `proportion_confint(c, n, method="wilson")`. Never zero width.
 *
 * @throws StatisticsError if n < 1, c outside [0, n] or level outside (0, 1).
 * @example wilsonInterval(0, 40) // { low: 0, high: 0.08762 }
 */
export function wilsonInterval(
  c: number,
  n: number,
  { level = 0.95 }: ProportionIntervalOptions = {},
): Interval {
  checkTrials(n);
  checkSuccesses(c, n);
  checkLevel(level);
  const p = c / n;
  const z = twoSidedZ(level);
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}
