import type { Outcomes } from './prefix.ts';

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
 * @throws RangeError on no tasks or a task with n < 1.
 * @example meanAccuracy([{ n: 10, c: 1 }, { n: 10, c: 2 }]) // 0.15
 */
export function meanAccuracy(tasks: readonly TaskCounts[]): number {
  if (tasks.length === 0) throw new RangeError('meanAccuracy: no tasks');
  let sum = 0;
  for (const { n, c } of tasks) {
    if (!(n >= 1)) throw new RangeError(`meanAccuracy: a task has n = ${n}`);
    sum += c / n;
  }
  return sum / tasks.length;
}

/**
 * First-sample accuracy: the share of tasks whose sample 0 passed (one generation per task).
 *
 * @throws RangeError on no tasks or a task with no samples.
 * @example firstSampleAccuracy([[1, 0], [0, 1]]) // 0.5
 */
export function firstSampleAccuracy(tasks: readonly Outcomes[]): number {
  if (tasks.length === 0) throw new RangeError('firstSampleAccuracy: no tasks');
  let sum = 0;
  for (const outcomes of tasks) {
    if (outcomes.length === 0) throw new RangeError('firstSampleAccuracy: a task has no samples');
    if (outcomes[0]) sum += 1;
  }
  return sum / tasks.length;
}
