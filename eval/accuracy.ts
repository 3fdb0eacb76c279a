import type { Outcomes } from './prefix.ts';
import { checkOutcomes, checkSuccesses, checkTrials } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/** One task's counts: c successes among n samples. */
export interface TaskCounts {
  n: number;
  c: number;
}

/**
 * Mean accuracy (pass@1 from all samples, the chapter's p-bar): the mean over tasks of c_j / n_j.
 * Tasks weigh equally whatever their n_j, so it is not the share of passing samples unless every
 * task has the same n.
 *
 * @throws StatisticsError on no tasks, or a task whose n is not a positive integer or whose c is not
 *   an integer in [0, n].
 * @example meanAccuracy([{ n: 10, c: 1 }, { n: 10, c: 2 }]) // 0.15
 */
export function meanAccuracy(tasks: readonly TaskCounts[]): number {
  if (!Array.isArray(tasks) || tasks.length === 0)
    throw new StatisticsError('tasks must be a non-empty array');
  let sum = 0;
  tasks.forEach(({ n, c }, j) => {
    checkTrials(n, `tasks[${j}].n`);
    checkSuccesses(c, n, `tasks[${j}].c`);
    sum += c / n;
  });
  return sum / tasks.length;
}

/**
 * First-sample accuracy: the share of tasks whose sample 0 passed (one generation per task).
 *
 * @throws StatisticsError on no tasks, a task with no samples, or an outcome other than 0/1/true/false.
 * @example firstSampleAccuracy([[1, 0], [0, 1]]) // 0.5
 */
export function firstSampleAccuracy(tasks: readonly Outcomes[]): number {
  if (!Array.isArray(tasks) || tasks.length === 0)
    throw new StatisticsError('tasks must be a non-empty array');
  let sum = 0;
  tasks.forEach((outcomes, j) => {
    checkOutcomes(outcomes, `tasks[${j}]`);
    if (outcomes.length === 0) throw new StatisticsError(`tasks[${j}] has no samples`);
    if (outcomes[0]) sum += 1;
  });
  return sum / tasks.length;
}
