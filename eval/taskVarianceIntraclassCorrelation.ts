import { taskRates, trialsOf, type CountsInput } from './counts.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * The chapter's intraclass correlation rho = sigma_task^2 / (mu (1 - mu)) (chapter 17.3, from
 * the law of total variance mu (1 - mu) = sigma_task^2 + E[p_j (1 - p_j)]), with the between-task
 * variance corrected for binomial noise:
 *
 *   mu = (1/N) sum r_j,   s^2 = sum (r_j - mu)^2 / (N - 1),
 *   sigma_task^2 = s^2 - (1/N) sum r_j (1 - r_j) / (n_j - 1),   rho = sigma_task^2 / (mu (1 - mu)),
 *
 * where r_j = c_j / n_j. E[r_j (1 - r_j)] = p_j (1 - p_j) (n_j - 1) / n_j, so the subtracted term
 * is unbiased for the binomial part E[p_j (1 - p_j) / n_j] of E[s^2], and sigma_task^2 is a
 * moment estimate. Unlike the one-way ANOVA estimator (`intraclassCorrelation`) it weights tasks
 * equally, as the mean pass rate does. It is returned as is: negative when tasks are alike, and
 * above 1 when few tasks sit at 0 and 1 (s^2 divides by N - 1, mu (1 - mu) by N).
 *
 * @throws StatisticsError on bad counts, fewer than 2 tasks, a task with fewer than 2 episodes, or
 *   mu of 0 or 1 (no variance to split).
 * @example taskVarianceIntraclassCorrelation({ successes: [32, 32, 0, 0], trials: 32 }) // 4/3
 */
export function taskVarianceIntraclassCorrelation(counts: CountsInput): number {
  const rates = taskRates(counts);
  const tasks = rates.length;
  if (tasks < 2) throw new StatisticsError('taskVarianceIntraclassCorrelation needs at least 2 tasks');
  let sum = 0;
  let binomial = 0;
  for (let j = 0; j < tasks; j++) {
    const n = trialsOf(counts.trials, j);
    if (n < 2)
      throw new StatisticsError(
        `taskVarianceIntraclassCorrelation needs 2+ episodes per task; task ${j} has ${n}`,
      );
    const rate = rates[j] as number;
    sum += rate;
    binomial += (rate * (1 - rate)) / (n - 1);
  }
  const mu = sum / tasks;
  if (!(mu > 0 && mu < 1))
    throw new StatisticsError('the intraclass correlation is undefined: every episode has the same outcome');
  let squares = 0;
  for (const rate of rates) squares += (rate - mu) ** 2;
  const taskVariance = squares / (tasks - 1) - binomial / tasks;
  return taskVariance / (mu * (1 - mu));
}
