import {
  bootstrapCI,
  DEFAULT_REPLICATES,
  percentileInterval,
  type BootstrapInterval,
  type BootstrapOptions,
} from './bootstrap.ts';
import { binomialPmf } from './discrete.ts';
import { withoutCollapse } from './exactOverUnits.ts';
import { pooledCounts, taskRates, type CountsInput } from './counts.ts';
import { checkInteger, checkLevel, checkRandomSource } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * Task-level (cluster) bootstrap interval of the mean pass rate: resample tasks, each taking its
 * episodes along, i.e. `bootstrapCI` of the per-task rates c_j / n_j (chapter 17.3; Field &
 * Welsh 2007 on the cluster bootstrap). Answers "how would it do on similar tasks?". When every
 * task has the same rate (all 0 or all 1) the resamples have no spread, and the exact interval
 * over the tasks stands in (`withoutCollapse`, method 'exact over tasks').
 *
 * @throws StatisticsError on bad counts, fewer than 2 tasks, or bad options (see taskRates, bootstrapCI).
 * @example taskBootstrapCI({ successes: [32, 1, 17], trials: 32 }, { rng: new Rng(1) })
 */
export function taskBootstrapCI(counts: CountsInput, options: BootstrapOptions): BootstrapInterval {
  const rates = taskRates(counts);
  const interval = bootstrapCI(rates, options);
  const { low, high, method } = withoutCollapse(interval, interval.estimate, {
    units: rates.length,
    unit: 'tasks',
    level: interval.level,
  });
  return method === 'percentile' ? interval : { ...interval, low, high, method };
}

/**
 * Episode-level bootstrap interval: pools all M = sum n_j episodes and resamples M of them with
 * replacement, ignoring which task each came from (the naive interval of chapter 17.3; answers
 * only "how did it do on these tasks?", and too narrow even for that when tasks differ).
 *
 * Resampling M 0/1 episodes holding S successes gives a mean distributed exactly as
 * Binomial(M, S/M) / M, so each replicate is one draw by inversion of that CDF (binary search
 * in a table built once) instead of M draws: the same bootstrap distribution, M times cheaper.
 * The estimate is the pooled share S/M (equal to the mean of task rates when all n_j agree). At
 * S = 0 or S = M the resamples have no spread, and the exact interval over the episodes stands
 * in (`withoutCollapse`, method 'exact over episodes').
 *
 * @throws StatisticsError on bad counts, fewer than 2 episodes in all, reps < 1, level outside (0, 1)
 *   or no rng.
 * @example episodeBootstrapCI({ successes: [32, 1, 17], trials: 32 }, { rng: new Rng(1) })
 */
export function episodeBootstrapCI(
  counts: CountsInput,
  { reps = DEFAULT_REPLICATES, level = 0.95, rng }: BootstrapOptions,
): BootstrapInterval {
  taskRates(counts);
  checkLevel(level);
  checkInteger(reps, 'reps', 1);
  checkRandomSource(rng);
  const { episodes, successes } = pooledCounts(counts);
  if (episodes < 2)
    throw new StatisticsError('counts has 1 episode; an episode-level bootstrap interval needs at least 2');
  const cdf = binomialCdfTable(episodes, successes / episodes);
  const replicates = new Float64Array(reps);
  for (let r = 0; r < reps; r++) replicates[r] = searchCdf(cdf, rng.next()) / episodes;
  const estimate = successes / episodes;
  const interval = withoutCollapse(percentileInterval(replicates, level), estimate, {
    units: episodes,
    unit: 'episodes',
    level,
  });
  return { estimate, low: interval.low, high: interval.high, level, reps, method: interval.method };
}

/** CDF of Binomial(m, p) at 0..m: the running sum of binomialPmf, divided by its total so that the last entry is 1. */
function binomialCdfTable(m: number, p: number): Float64Array {
  const cdf = binomialPmf(m, p);
  let total = 0;
  for (let x = 0; x <= m; x++) {
    total += cdf[x] as number;
    cdf[x] = total;
  }
  for (let x = 0; x <= m; x++) cdf[x] = (cdf[x] as number) / total;
  return cdf;
}

/** Smallest x with cdf[x] > u (inversion sampling). */
function searchCdf(cdf: Float64Array, u: number): number {
  let low = 0;
  let high = cdf.length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((cdf[middle] as number) > u) high = middle;
    else low = middle + 1;
  }
  return low;
}
