import type { TaskCount } from '../gym/index.ts';
import { passAtK, perTaskBootstrapCI } from '../eval/index.ts';
import type { Rng } from '../lib/rng.ts';

/** The counts of an evaluation as the statistics take them. */
export function countsOf(perTask: readonly TaskCount[]): { successes: number[]; trials: number[] } {
  return {
    successes: perTask.map((count) => count.successes),
    trials: perTask.map((count) => count.episodes),
  };
}

/**
 * Mean unbiased pass@k over tasks for k = 1..maxK, with a task-level bootstrap band (1,000
 * replicates, the stream `k<k>` of `rng`) at each k that `banded` keeps, null elsewhere and over
 * one task. Where every task's pass@k is alike (all 1 at large k) the exact band over the tasks
 * stands in (`perTaskBootstrapCI`): never a zero-width band.
 */
export function passAtKCurve(
  counts: readonly number[],
  n: number,
  { maxK = n, banded = () => true, rng }: { maxK?: number; banded?: (k: number) => boolean; rng: Rng },
) {
  return Array.from({ length: maxK }, (_, i) => {
    const k = i + 1;
    const perTask = counts.map((c) => passAtK(n, c, k));
    const mean = perTask.reduce((a, b) => a + b, 0) / perTask.length;
    const band =
      perTask.length > 1 && banded(k)
        ? perTaskBootstrapCI(perTask, { reps: 1000, rng: rng.fork(`k${k}`) })
        : null;
    return { k, mean, low: band?.low ?? null, high: band?.high ?? null };
  });
}
