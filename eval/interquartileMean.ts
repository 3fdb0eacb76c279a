import type { RandomSource } from './randomSource.ts';
import { randomIndex } from './randomSource.ts';
import { percentileOfSorted } from './bootstrap.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * Interquartile mean (Agarwal et al. 2021, "Deep RL at the edge of the statistical precipice",
 * section 4.2; rliable's `metrics.aggregate_iqm`, which is `scipy.stats.trim_mean(x, 0.25)`): the
 * mean of the middle 50% of the values, after dropping floor(0.25 n) from each end of the sorted
 * list. Robust to a few outlying runs and, unlike the median, uses half of the data.
 * @throws StatisticsError on no values or a value that is not finite.
 * @example interquartileMean([0, 0.1, 0.5, 0.6, 0.9, 1]) // 0.4 (drops 0 and 1: floor(1.5) = 1 each end)
 */
export function interquartileMean(values: ArrayLike<number>): number {
  if (values.length === 0) throw new StatisticsError('interquartileMean: no values');
  const sorted = Float64Array.from(values).sort();
  if (!sorted.every(Number.isFinite)) throw new StatisticsError('interquartileMean: a value is not finite');
  const cut = Math.floor(0.25 * sorted.length);
  let sum = 0;
  for (let i = cut; i < sorted.length - cut; i += 1) sum += sorted[i] as number;
  return sum / (sorted.length - 2 * cut);
}

/**
 * The IQM of a runs x tasks score matrix (`scores[run][task]`, all runs over all tasks
 * flattened) with a stratified bootstrap percentile interval (rliable's
 * `get_interval_estimates`, `StratifiedBootstrap`): each replicate resamples the runs with
 * replacement independently within each task, so every task keeps its weight.
 * @throws StatisticsError on an empty or ragged matrix, reps < 1, or level outside (0, 1).
 * @example stratifiedIqm([[0.1, 0.9], [0.3, 0.7]], { reps: 2000, rng: new Rng(1) })
 */
export function stratifiedIqm(
  scores: ReadonlyArray<ReadonlyArray<number>>,
  { reps = 2000, level = 0.95, rng }: { reps?: number; level?: number; rng: RandomSource },
): { estimate: number; low: number; high: number } {
  const runs = scores.length;
  const tasks = scores[0]?.length ?? 0;
  if (runs === 0 || tasks === 0 || scores.some((row) => row.length !== tasks))
    throw new StatisticsError('stratifiedIqm: scores must be a non-empty runs x tasks matrix');
  if (!Number.isInteger(reps) || reps < 1)
    throw new StatisticsError(`stratifiedIqm: reps must be >= 1, got ${reps}`);
  if (!(level > 0 && level < 1))
    throw new StatisticsError(`stratifiedIqm: level must be in (0, 1), got ${level}`);
  const replicates = new Float64Array(reps);
  const sample = new Float64Array(runs * tasks);
  for (let r = 0; r < reps; r += 1) {
    for (let task = 0; task < tasks; task += 1)
      for (let run = 0; run < runs; run += 1)
        sample[task * runs + run] = scores[randomIndex(rng, runs)]![task] as number;
    replicates[r] = interquartileMean(sample);
  }
  replicates.sort();
  const alpha = 1 - level;
  return {
    estimate: interquartileMean(scores.flat()),
    low: percentileOfSorted(replicates, alpha / 2),
    high: percentileOfSorted(replicates, 1 - alpha / 2),
  };
}
