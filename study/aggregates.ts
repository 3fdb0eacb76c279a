import {
  AGGREGATE_REPS,
  mean,
  meanTInterval,
  probabilityOfImprovementInterval,
  rliableAggregates,
  type Estimate,
} from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';
import { taskRates, type StudyResults } from './results.ts';

export { AGGREGATE_REPS };

/** The thresholds of the performance profiles: 0, 0.05, ..., 1. */
export const PROFILE_TAUS = Array.from({ length: 21 }, (_, i) => i / 20);

/**
 * The aggregates of one chapter step over seeds x tasks, with a seed as the unit (docs/CLAIMS.md,
 * section 1: a seed is one policy evaluated on every task, so its tasks are correlated): the mean
 * of the per-task pass rates with the t interval on the seed means; the interquartile mean and,
 * with `profile`, the performance profile (the share of seed x task scores above each tau; Agarwal
 * et al. 2021) with percentile intervals from 50,000 replicates that redraw whole seeds; with
 * `taskBootstrap` also the IQM's interval when the tasks are redrawn too. The stream is forked
 * from `seed` by the step alone, and the replicates are drawn the same whatever is computed from
 * them, so `exp:seeds` and `study report` give one interval for one quantity.
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
  // The profile's 21 bands cost 21 sorts of 50,000 replicates: only where it is drawn.
  const { metrics, profile: bands } = rliableAggregates(scores, {
    metrics: ['iqm'],
    taus: profile ? PROFILE_TAUS : [],
    reps,
    wholeRuns: true,
    rng: rng.fork('seeds'),
  });
  const { estimate: meanEstimate, low, high } = meanTInterval(scores.map((row) => mean(row)));
  return {
    mean: { estimate: meanEstimate, low, high },
    iqm: metrics.iqm!,
    profile: profile ? bands : null,
    iqmTaskBootstrap: taskBootstrap
      ? rliableAggregates(scores, {
          metrics: ['iqm'],
          reps,
          rng: rng.fork('seeds-and-tasks'),
          wholeRuns: true,
          taskBootstrap: true,
        }).metrics.iqm!
      : null,
  };
}

/**
 * The probability that a seed x task score of step `later` beats one of step `earlier`
 * (rliable's probability of improvement), with its 95% interval from replicates that redraw whole
 * seeds, the same seeds at both steps; the stream forked from `seed` by the two steps alone, as
 * `stepAggregates`.
 */
export function improvement(
  results: StudyResults,
  later: number,
  earlier: number,
  { seed, reps = AGGREGATE_REPS }: { seed: number; reps?: number },
): Estimate {
  return probabilityOfImprovementInterval(taskRates(results, later), taskRates(results, earlier), {
    reps,
    wholeRuns: true,
    paired: true,
    rng: new Rng(seed).fork(`improvement/${later}-${earlier}`),
  });
}
