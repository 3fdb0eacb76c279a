import type { Harness, Task } from '../gym/index.ts';
import { episodeSpecs, episodeSucceeded, rollout, type Agent, type EpisodeRecord } from '../agent/index.ts';

export { episodeSucceeded };
import type { Rng } from '../lib/rng.ts';

export { writeResultFile, type ResultSample } from './io/resultWriter.ts';

export interface TaskCount {
  task: number;
  name: string;
  type: string;
  successes: number;
  episodes: number;
}

export interface SampleCountsResult {
  perTask: TaskCount[];
  /** Every episode, in task order then episode order. */
  records: EpisodeRecord[];
  /** Mean over tasks of successes / episodes. */
  passAt1: number;
}


/**
 * Success counts c_j out of n episodes for each task, always scored on hidden tests whatever
 * the harness's training reward is. Episode i of task j uses the stream `rng.fork(name/i)`
 * (env seed and token draws), so two agents given the same `rng` share random numbers.
 */
export function sampleCounts(agent: Agent, tasks: readonly Task[], n: number, harness: Harness, rng: Rng): SampleCountsResult {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`sampleCounts: n must be a positive integer, got ${n}`);
  const records = rollout(agent, harness, tasks, episodeSpecs(tasks, n, rng), { temperature: harness.temperature });
  const perTask = tasks.map((task, j) => {
    const own = records.slice(j * n, (j + 1) * n);
    return { task: task.id, name: task.name, type: task.type, successes: own.filter(episodeSucceeded).length, episodes: n };
  });
  const passAt1 = perTask.reduce((sum, count) => sum + count.successes / count.episodes, 0) / perTask.length;
  return { perTask, records, passAt1 };
}
