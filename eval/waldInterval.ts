import type { Interval, ProportionIntervalOptions } from './interval.ts';
import { twoSidedZ } from './normal.ts';
import { checkLevel, checkSuccesses, checkTrials } from './validate.ts';

/**
 * Wald interval for a binomial proportion, p-hat +- z sqrt(p-hat (1 - p-hat) / n), clipped to
 * [0, 1] as statsmodels `proportion_confint(c, n, method="normal")` does. Zero width at c = 0
 * or c = n and undercovers near the boundary (chapter 17.3: about 70% at p = 0.03, n = 40);
 * provided for comparison, prefer Wilson.
 *
 * @throws StatisticsError if n < 1, c outside [0, n] or level outside (0, 1).
 * @example waldInterval(3, 10) // { low: 0.0160, high: 0.5840 }
 */
export function waldInterval(
  c: number,
  n: number,
  { level = 0.95 }: ProportionIntervalOptions = {},
): Interval {
  checkTrials(n);
  checkSuccesses(c, n);
  checkLevel(level);
  const p = c / n;
  const half = twoSidedZ(level) * Math.sqrt((p * (1 - p)) / n);
  return { low: Math.max(0, p - half), high: Math.min(1, p + half) };
}
