import type { TaskCount } from '../gym/index.ts';

/** The counts of an evaluation as the statistics take them. */
export function countsOf(perTask: readonly TaskCount[]): { successes: number[]; trials: number[] } {
  return {
    successes: perTask.map((count) => count.successes),
    trials: perTask.map((count) => count.episodes),
  };
}
