import { percentileOfSorted } from './bootstrap.ts';
import { probabilityOfImprovement } from './probabilityOfImprovement.ts';
import { randomIndex, type RandomSource } from './randomSource.ts';
import { checkInteger, checkLevel, checkRandomSource } from './validate.ts';

/** A point estimate with its percentile interval. */
export interface Estimate {
  estimate: number;
  low: number;
  high: number;
}

export interface StratifiedBootstrapOptions {
  /** Replicates; default 50,000 (rliable's `reps`). */
  reps?: number;
  /** Confidence level in (0, 1); default 0.95. */
  level?: number;
  /** Also resample the tasks with replacement before the runs within each (rliable's `task_bootstrap=True`). */
  taskBootstrap?: boolean;
  rng: RandomSource;
}

function checkMatrix(scores: ReadonlyArray<ReadonlyArray<number>>, name: string): number {
  const tasks = scores[0]?.length ?? 0;
  if (scores.length === 0 || tasks === 0 || scores.some((row) => row.length !== tasks))
    throw new RangeError(`${name} must be a non-empty runs x tasks matrix`);
  if (!scores.every((row) => row.every(Number.isFinite)))
    throw new RangeError(`${name}: a score is not finite`);
  return tasks;
}

/**
 * rliable's stratified bootstrap (Agarwal et al. 2021, "Deep RL at the edge of the statistical
 * precipice", appendix A.4; `StratifiedBootstrap` in rliable/library.py) of one or more statistics
 * of a runs x tasks score matrix `scores[run][task]`: each replicate redraws the N runs with
 * replacement independently within each task (so every task keeps its weight); with
 * `taskBootstrap` it first redraws the M tasks with replacement, so that the interval also
 * speaks for tasks like these rather than for these tasks. `statistic` gets the replicate as a
 * flat array, task by task, and returns a vector; each component gets its percentile interval
 * (the type-7 quantiles alpha/2 and 1 - alpha/2 of its replicates). The estimate is the
 * statistic of the data.
 * @throws RangeError on an empty, ragged or non-finite matrix, reps < 1, level outside (0, 1) or no rng.
 * @example stratifiedBootstrap([[0.1, 0.9], [0.3, 0.7]], (s) => [s[0]! + s[1]!], { rng: new Rng(1) })
 */
export function stratifiedBootstrap(
  scores: ReadonlyArray<ReadonlyArray<number>>,
  statistic: (sample: Float64Array) => number[],
  { reps = 50_000, level = 0.95, taskBootstrap = false, rng }: StratifiedBootstrapOptions,
): Estimate[] {
  const tasks = checkMatrix(scores, 'stratifiedBootstrap: scores');
  checkInteger(reps, 'reps', 1);
  checkLevel(level);
  checkRandomSource(rng);
  const runs = scores.length;
  const sample = new Float64Array(runs * tasks);
  for (let task = 0; task < tasks; task += 1)
    for (let run = 0; run < runs; run += 1) sample[task * runs + run] = scores[run]![task]!;
  const estimates = statistic(sample);
  const replicates = estimates.map(() => new Float64Array(reps));
  for (let r = 0; r < reps; r += 1) {
    for (let slot = 0; slot < tasks; slot += 1) {
      const task = taskBootstrap ? randomIndex(rng, tasks) : slot;
      for (let run = 0; run < runs; run += 1)
        sample[slot * runs + run] = scores[randomIndex(rng, runs)]![task]!;
    }
    const values = statistic(sample);
    for (let c = 0; c < values.length; c += 1) replicates[c]![r] = values[c]!;
  }
  const alpha = 1 - level;
  return estimates.map((estimate, c) => {
    const sorted = replicates[c]!.sort();
    return {
      estimate,
      low: percentileOfSorted(sorted, alpha / 2),
      high: percentileOfSorted(sorted, 1 - alpha / 2),
    };
  });
}

/**
 * The probability of improvement P(X > Y) (`probabilityOfImprovement`) with rliable's interval
 * for it (`StratifiedIndependentBootstrap`): each replicate redraws the runs of X and, apart, the
 * runs of Y with replacement within each task, so the two may have different runs.
 * @throws RangeError as stratifiedBootstrap does, or on x and y with different task counts.
 * @example probabilityOfImprovementInterval(x, y, { rng: new Rng(1) })
 */
export function probabilityOfImprovementInterval(
  x: ReadonlyArray<ReadonlyArray<number>>,
  y: ReadonlyArray<ReadonlyArray<number>>,
  { reps = 50_000, level = 0.95, rng }: Omit<StratifiedBootstrapOptions, 'taskBootstrap'>,
): Estimate {
  const tasks = checkMatrix(x, 'probabilityOfImprovementInterval: x');
  if (checkMatrix(y, 'probabilityOfImprovementInterval: y') !== tasks)
    throw new RangeError('probabilityOfImprovementInterval: x and y must have the same tasks');
  checkInteger(reps, 'reps', 1);
  checkLevel(level);
  checkRandomSource(rng);
  const resample = (scores: ReadonlyArray<ReadonlyArray<number>>) => {
    const columns = Array.from({ length: tasks }, (_, t) =>
      scores.map(() => scores[randomIndex(rng, scores.length)]![t]!),
    );
    return scores.map((_, run) => columns.map((column) => column[run]!));
  };
  const replicates = Float64Array.from({ length: reps }, () =>
    probabilityOfImprovement(resample(x), resample(y)),
  ).sort();
  const alpha = 1 - level;
  return {
    estimate: probabilityOfImprovement(x, y),
    low: percentileOfSorted(replicates, alpha / 2),
    high: percentileOfSorted(replicates, 1 - alpha / 2),
  };
}
