import type { Interval, ProportionIntervalOptions } from './interval.ts';
import { twoSidedZ } from './normal.ts';
import { checkLevel, checkSuccesses, checkTrials } from './validate.ts';

/**
 * Agresti-Coull interval (Agresti & Coull 1998): add z^2/2 successes and z^2/2 failures, then
 * Wald: n~ = n + z^2, p~ = (c + z^2/2) / n~, p~ +- z sqrt(p~ (1-p~) / n~), clipped to [0, 1].
 * Same as statsmodels `proportion_confint(c, n, method="agresti_coull")`.
 *
 * @throws StatisticsError if n < 1, c outside [0, n] or level outside (0, 1).
 * @example agrestiCoullInterval(3, 10) // { low: 0.10333, high: 0.60737 }
 */
export function agrestiCoullInterval(
  c: number,
  n: number,
  { level = 0.95 }: ProportionIntervalOptions = {},
): Interval {
  checkTrials(n);
  checkSuccesses(c, n);
  checkLevel(level);
  const z = twoSidedZ(level);
  const adjustedTrials = n + z * z;
  const center = (c + (z * z) / 2) / adjustedTrials;
  const half = z * Math.sqrt((center * (1 - center)) / adjustedTrials);
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}
