import { probabilityOfImprovementInterval, stratifiedBootstrap, type Estimate } from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';
import { taskRates, type StudyResults } from './results.ts';

/** The thresholds of the performance profiles: 0, 0.05, ..., 1. */
export const PROFILE_TAUS = Array.from({ length: 21 }, (_, i) => i / 20);

/** rliable's default number of bootstrap replicates. */
export const AGGREGATE_REPS = 50_000;

/** The IQM of sorted values (`interquartileMean` without its copy and sort: it runs 50,000 times). */
function interquartileMeanOfSorted(sorted: Float64Array): number {
  const cut = Math.floor(0.25 * sorted.length);
  let sum = 0;
  for (let i = cut; i < sorted.length - cut; i += 1) sum += sorted[i]!;
  return sum / (sorted.length - 2 * cut);
}

function sumOf(values: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < values.length; i += 1) sum += values[i]!;
  return sum;
}

/** The share of sorted values above each of PROFILE_TAUS, in one pass. */
function profileOfSorted(sorted: Float64Array): number[] {
  let atOrBelow = 0;
  return PROFILE_TAUS.map((tau) => {
    while (atOrBelow < sorted.length && sorted[atOrBelow]! <= tau) atOrBelow += 1;
    return (sorted.length - atOrBelow) / sorted.length;
  });
}

/**
 * The aggregates of one chapter step over seeds x tasks, as rliable reports them (Agarwal et al.
 * 2021): the mean and the interquartile mean of the per-task pass rates and, with `profile`, the
 * performance profile (the share of seed x task scores above each tau), each with a
 * stratified-bootstrap 95% interval (runs redrawn within each task) from the same 50,000
 * replicates; with `taskBootstrap` also the IQM's interval when the tasks are redrawn too. The
 * stream is forked from `seed` by the step alone, and the replicates are drawn the same whatever
 * is computed from them, so `exp:seeds` and `study report` give one interval for one quantity.
 */
export function stepAggregates(
  results: StudyResults,
  step: number,
  {
    seed,
    reps = AGGREGATE_REPS,
    profile = false,
    taskBootstrap = false,
  }: { seed: number; reps?: number; profile?: boolean; taskBootstrap?: boolean },
): {
  mean: Estimate;
  iqm: Estimate;
  profile: Array<Estimate & { tau: number }> | null;
  iqmTaskBootstrap: Estimate | null;
} {
  const scores = taskRates(results, step);
  const rng = new Rng(seed).fork(`aggregates/${step}`);
  const [meanEstimate, iqm, ...bands] = stratifiedBootstrap(
    scores,
    (sample) => {
      const sorted = sample.slice().sort();
      const statistics = [sumOf(sorted) / sorted.length, interquartileMeanOfSorted(sorted)];
      // The profile's 21 bands cost 21 sorts of 50,000 replicates: only where it is drawn.
      return profile ? [...statistics, ...profileOfSorted(sorted)] : statistics;
    },
    { reps, rng: rng.fork('stratified') },
  );
  return {
    mean: meanEstimate!,
    iqm: iqm!,
    profile: profile ? PROFILE_TAUS.map((tau, i) => ({ tau, ...bands[i]! })) : null,
    iqmTaskBootstrap: taskBootstrap
      ? stratifiedBootstrap(scores, (sample) => [interquartileMeanOfSorted(sample.slice().sort())], {
          reps,
          rng: rng.fork('tasks'),
          taskBootstrap: true,
        })[0]!
      : null,
  };
}

/**
 * The probability that a seed x task score of step `later` beats one of step `earlier`
 * (rliable's probability of improvement), with its stratified-bootstrap 95% interval; the stream
 * forked from `seed` by the two steps alone, as `stepAggregates`.
 */
export function improvement(
  results: StudyResults,
  later: number,
  earlier: number,
  { seed, reps = AGGREGATE_REPS }: { seed: number; reps?: number },
): Estimate {
  return probabilityOfImprovementInterval(taskRates(results, later), taskRates(results, earlier), {
    reps,
    rng: new Rng(seed).fork(`improvement/${later}-${earlier}`),
  });
}
