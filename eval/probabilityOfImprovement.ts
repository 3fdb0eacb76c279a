import { StatisticsError } from '../lib/errors.ts';

/**
 * Probability of improvement (Agarwal et al. 2021, section 4.3; rliable's
 * `metrics.probability_of_improvement`): for each task m, the Mann-Whitney statistic
 * P(X_m > Y_m) = (1 / (N K)) sum_{i,j} S(x_{i,m}, y_{j,m}), S = 1 if x > y, 1/2 if equal, 0
 * otherwise, over the N runs of algorithm X and the K runs of Y; then the mean over tasks.
 * `x[run][task]`, `y[run][task]`; the two may have different numbers of runs.
 * @throws StatisticsError on an empty or ragged matrix, or different task counts.
 * @example probabilityOfImprovement([[1], [0]], [[0], [0]]) // 0.75
 */
export function probabilityOfImprovement(
  x: ReadonlyArray<ReadonlyArray<number>>,
  y: ReadonlyArray<ReadonlyArray<number>>,
): number {
  const tasks = x[0]?.length ?? 0;
  if (x.length === 0 || y.length === 0 || tasks === 0 || [...x, ...y].some((row) => row.length !== tasks))
    throw new StatisticsError(
      'probabilityOfImprovement: x and y must be non-empty runs x tasks matrices with the same tasks',
    );
  let total = 0;
  for (let task = 0; task < tasks; task += 1) {
    let wins = 0;
    for (const xRow of x)
      for (const yRow of y) {
        const a = xRow[task] as number;
        const b = yRow[task] as number;
        wins += a > b ? 1 : a === b ? 0.5 : 0;
      }
    total += wins / (x.length * y.length);
  }
  return total / tasks;
}
