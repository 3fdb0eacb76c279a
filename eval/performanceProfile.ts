import { StatisticsError } from '../lib/errors.ts';

/**
 * Score distribution, or performance profile (Agarwal et al. 2021, section 4.1; rliable's
 * `create_performance_profile` with `score_distributions`): for each threshold tau, the fraction
 * of runs x tasks whose score is strictly above tau, F(tau) = (1 / (N M)) sum_{n,m} 1[x_{n,m} > tau].
 * @throws StatisticsError on no scores.
 * @example performanceProfile([0, 0.5, 1], [0, 0.5]) // [0.6667, 0.3333]
 */
export function performanceProfile(scores: ArrayLike<number>, thresholds: readonly number[]): number[] {
  if (scores.length === 0) throw new StatisticsError('performanceProfile: no scores');
  if (!thresholds.every(Number.isFinite))
    throw new StatisticsError('performanceProfile: every one of thresholds must be a finite number');
  const values = Array.from(scores);
  return thresholds.map((tau) => values.filter((score) => score > tau).length / values.length);
}
