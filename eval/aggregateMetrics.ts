import {
  stratifiedBootstrap,
  type Estimate,
  type StratifiedBootstrapOptions,
} from './stratifiedBootstrap.ts';
import { checkFinite } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/** The aggregate metrics rliable reports (rliable/metrics.py), in the order they are computed. */
export const AGGREGATE_METRICS = ['mean', 'median', 'iqm', 'optimalityGap'] as const;
export type AggregateMetric = (typeof AGGREGATE_METRICS)[number];

/**
 * The mean of the middle half of sorted values, floor(n / 4) dropped from each end (rliable's
 * `aggregate_iqm`, `scipy.stats.trim_mean(x, 0.25)`), for a bootstrap's replicates.
 */
export function interquartileMeanOfSorted(sorted: ArrayLike<number>): number {
  const cut = Math.floor(0.25 * sorted.length);
  let sum = 0;
  for (let i = cut; i < sorted.length - cut; i += 1) sum += sorted[i]!;
  return sum / (sorted.length - 2 * cut);
}

/**
 * The share of sorted values strictly above each threshold, F(tau) = (1 / NM) sum 1[x > tau]
 * (rliable's score distribution, `create_performance_profile`), in one pass; `taus` ascending.
 */
export function profileOfSorted(sorted: ArrayLike<number>, taus: readonly number[]): number[] {
  let atOrBelow = 0;
  return taus.map((tau) => {
    while (atOrBelow < sorted.length && sorted[atOrBelow]! <= tau) atOrBelow += 1;
    return (sorted.length - atOrBelow) / sorted.length;
  });
}

/**
 * One statistic of rliable (Agarwal et al. 2021, rliable/metrics.py) of a flat runs x tasks
 * sample laid out task by task (`sample[task * runs + run]`) and the same values sorted:
 * mean = mean over tasks of each task's mean over runs (`aggregate_mean`); median = the median
 * of those task means (`aggregate_median`, np.median); iqm = trim_mean(all values, 0.25)
 * (`aggregate_iqm`); optimalityGap = gamma - mean(min(x, gamma)) = mean(max(gamma - x, 0))
 * (`aggregate_optimality_gap`, default gamma 1).
 */
function metricOf(
  metric: AggregateMetric,
  sample: Float64Array,
  sorted: Float64Array,
  runs: number,
  gamma: number,
): number {
  if (metric === 'iqm') return interquartileMeanOfSorted(sorted);
  if (metric === 'optimalityGap') {
    let gap = 0;
    for (let i = 0; i < sample.length; i += 1) gap += Math.max(gamma - sample[i]!, 0);
    return gap / sample.length;
  }
  if (metric === 'mean') {
    // Every task has the same runs, so the mean of task means is the mean of all values; summed
    // in sorted order, as the seed study's numbers always were.
    let total = 0;
    for (let i = 0; i < sorted.length; i += 1) total += sorted[i]!;
    return total / sorted.length;
  }
  const taskMeans = Float64Array.from({ length: sample.length / runs }, (_, task) => {
    let sum = 0;
    for (let run = 0; run < runs; run += 1) sum += sample[task * runs + run]!;
    return sum / runs;
  }).sort();
  const middle = taskMeans.length >> 1;
  return taskMeans.length % 2 === 1 ? taskMeans[middle]! : (taskMeans[middle - 1]! + taskMeans[middle]!) / 2;
}

/** What to compute, and the options of the `stratifiedBootstrap` it is computed over. */
export interface AggregateOptions extends StratifiedBootstrapOptions {
  /** Which of AGGREGATE_METRICS to compute (each costs a sort of its replicates). */
  metrics: readonly AggregateMetric[];
  /** Performance-profile thresholds, ascending; none: no profile. */
  taus?: readonly number[];
  /** The optimality gap's threshold; default 1 (rliable's). */
  gamma?: number;
}

/**
 * rliable's aggregate metrics of one runs x tasks score matrix (`scores[run][task]`) with their
 * stratified-bootstrap percentile intervals (`rly.get_interval_estimates`, and the performance
 * profile's bands, `rly.create_performance_profile`), all from one set of replicates
 * (`stratifiedBootstrap`): the replicates are drawn the same whatever is computed from them, so
 * one stream gives one interval for one quantity.
 * @throws StatisticsError as stratifiedBootstrap does, on unsorted or non-finite taus, or a gamma that is not finite.
 * @example rliableAggregates([[0.1, 0.9], [0.3, 0.7]], { metrics: ['iqm'], rng: new Rng(1) }).iqm
 */
export function rliableAggregates(
  scores: ReadonlyArray<ReadonlyArray<number>>,
  { metrics, taus = [], gamma = 1, ...bootstrap }: AggregateOptions,
): { metrics: Partial<Record<AggregateMetric, Estimate>>; profile: Array<Estimate & { tau: number }> } {
  checkFinite(gamma, 'gamma');
  if (!taus.every((tau, i) => Number.isFinite(tau) && (i === 0 || tau > taus[i - 1]!)))
    throw new StatisticsError('rliableAggregates: taus must be finite and ascending');
  const runs = scores.length;
  const estimates = stratifiedBootstrap(
    scores,
    (sample, sortedSample) => {
      const sorted = sortedSample();
      const values = metrics.map((metric) => metricOf(metric, sample, sorted, runs, gamma));
      return taus.length === 0 ? values : [...values, ...profileOfSorted(sorted, taus)];
    },
    bootstrap,
  );
  return {
    metrics: Object.fromEntries(metrics.map((metric, i) => [metric, estimates[i]!])),
    profile: taus.map((tau, i) => ({ tau, ...estimates[metrics.length + i]! })),
  };
}
