import {
  AGGREGATE_REPS,
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
  // The profile's 21 bands cost 21 sorts of 50,000 replicates: only where it is drawn.
  const { metrics, profile: bands } = rliableAggregates(scores, {
    metrics: ['mean', 'iqm'],
    taus: profile ? PROFILE_TAUS : [],
    reps,
    rng: rng.fork('stratified'),
  });
  return {
    mean: metrics.mean!,
    iqm: metrics.iqm!,
    profile: profile ? bands : null,
    iqmTaskBootstrap: taskBootstrap
      ? rliableAggregates(scores, { metrics: ['iqm'], reps, rng: rng.fork('tasks'), taskBootstrap: true })
          .metrics.iqm!
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
