import {
  AGGREGATE_REPS,
  expandedPercentileLevel,
  mean,
  meanTInterval,
  probabilityOfImprovement,
  probabilityOfImprovementInterval,
  rliableAggregates,
  type AggregateMetric,
  type Estimate,
} from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';
import { taskRates, type StudyResults } from '../study/index.ts';

/** The thresholds of the performance profiles: 0, 0.05, ..., 1. */
const PROFILE_TAUS = Array.from({ length: 21 }, (_, i) => i / 20);

/**
 * rliable's aggregates of a seeds x tasks matrix with a seed as the unit (docs/CLAIMS.md, section
 * 1: a seed is one policy evaluated on every task, so its tasks are correlated): replicates that
 * redraw whole seeds (with `taskBootstrap`, the tasks too), read as expanded percentile intervals
 * (`expandedPercentileLevel`), so that few seeds do not make them narrow.
 */
export function seedAggregates(
  scores: number[][],
  options: { metrics: AggregateMetric[]; taus?: number[]; reps: number; rng: Rng; taskBootstrap?: boolean },
) {
  return rliableAggregates(scores, {
    ...options,
    wholeRuns: true,
    level: expandedPercentileLevel(scores.length, 0.95),
  });
}

/** rliable's probability of improvement of `later` over `earlier`, the same seeds at two steps: whole seeds redrawn for both, read as `seedAggregates`. */
export function seedImprovement(
  later: number[][],
  earlier: number[][],
  { reps, rng }: { reps: number; rng: Rng },
): Estimate {
  return probabilityOfImprovementInterval(later, earlier, {
    reps,
    wholeRuns: true,
    paired: true,
    level: expandedPercentileLevel(later.length, 0.95),
    rng,
  });
}

/**
 * The aggregates of one chapter step over seeds x tasks, a seed the unit: the mean of the per-task
 * pass rates with the t interval on the seed means; the interquartile mean and, with `profile`,
 * the performance profile (the share of seed x task scores above each tau; Agarwal et al. 2021)
 * from `seedAggregates` (50,000 replicates); with `taskBootstrap` also the IQM's interval when
 * the tasks are redrawn too. The stream is forked from `seed` by the step alone, and the
 * replicates are drawn the same whatever is computed from them, so `exp:seeds` and `study report`
 * give one interval for one quantity.
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
) {
  const scores = taskRates(results, step);
  // A study of one seed: the estimates, and no interval.
  if (scores.length < 2) {
    const { metrics } = rliableAggregates(scores, { metrics: ['mean', 'iqm'], reps: 1, rng: new Rng(0) });
    const alone = (value?: Estimate): SeedEstimate => ({ estimate: value!.estimate, low: null, high: null });
    return { mean: alone(metrics.mean), iqm: alone(metrics.iqm), profile: null, iqmTaskBootstrap: null };
  }
  const rng = new Rng(seed).fork(`aggregates/${step}`);
  // The profile's 21 bands cost 21 sorts of 50,000 replicates: only where it is drawn.
  const { metrics, profile: bands } = seedAggregates(scores, {
    metrics: ['iqm'],
    taus: profile ? PROFILE_TAUS : [],
    reps,
    rng: rng.fork('seeds'),
  });
  const { estimate: meanEstimate, low, high } = meanTInterval(scores.map((row) => mean(row)));
  return {
    mean: { estimate: meanEstimate, low, high },
    iqm: metrics.iqm!,
    profile: profile ? bands : null,
    iqmTaskBootstrap: taskBootstrap
      ? seedAggregates(scores, {
          metrics: ['iqm'],
          reps,
          rng: rng.fork('seeds-and-tasks'),
          taskBootstrap: true,
        }).metrics.iqm!
      : null,
  };
}

/** A number over seeds with its interval; a study of one seed has no spread to measure, and its interval is null, never 0 wide. */
type SeedEstimate = { estimate: number; low: number | null; high: number | null };

/**
 * The probability that a seed x task score of step `later` beats one of step `earlier`
 * (rliable's probability of improvement), with its 95% interval (`seedImprovement`); the stream
 * forked from `seed` by the two steps alone, as `stepAggregates`.
 */
export function improvement(
  results: StudyResults,
  later: number,
  earlier: number,
  { seed, reps = AGGREGATE_REPS }: { seed: number; reps?: number },
): SeedEstimate {
  const [x, y] = [taskRates(results, later), taskRates(results, earlier)];
  if (x.length < 2) return { estimate: probabilityOfImprovement(x, y), low: null, high: null };
  return seedImprovement(x, y, {
    reps,
    rng: new Rng(seed).fork(`improvement/${later}-${earlier}`),
  });
}
