import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { mean } from './describe.ts';
import { normalCdfStandard, normalQuantile } from './normal.ts';
import { randomIndex, type RandomSource } from './random.ts';
import { checkFiniteValues, checkInteger, checkLevel, checkRandomSource, checkUnits } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/** The default number of bootstrap replicates: of every interval here, of the commands' --reps and of the chapter's intervals. */
export const DEFAULT_REPLICATES = 2000;

export interface BootstrapOptions {
  /** Number of bootstrap replicates; default DEFAULT_REPLICATES. */
  reps?: number;
  /** Confidence level in (0, 1); default 0.95. */
  level?: number;
  rng: RandomSource;
  /** 'percentile' (default) or 'bca' (bias-corrected and accelerated, Efron 1987). */
  method?: 'percentile' | 'bca';
}

export interface BootstrapInterval {
  estimate: number;
  low: number;
  high: number;
  level: number;
  reps: number;
  /** The bootstrap's method, or the exact interval a task or episode bootstrap fell back to (`withoutCollapse`). */
  method: 'percentile' | 'bca' | 'exact over tasks' | 'exact over episodes';
}

/**
 * Bootstrap replicates of the mean: `reps` times, draw values.length units with replacement
 * and average them (Efron & Tibshirani 1993, ch. 6). One Float64Array, no per-replicate
 * allocation. Units are whatever `values` holds one number per: episodes, tasks, or per-task
 * differences of two systems.
 *
 * @throws StatisticsError on empty values, a value that is not finite, reps < 1, or no rng.
 * @example bootstrapMeans([0, 1, 1], { reps: 1000, rng: new Rng(1) })
 */
export function bootstrapMeans(
  values: ArrayLike<number>,
  { reps = DEFAULT_REPLICATES, rng }: { reps?: number; rng: RandomSource },
): Float64Array {
  checkFiniteValues(values);
  checkInteger(reps, 'reps', 1);
  checkRandomSource(rng);
  const units = Float64Array.from(values as ArrayLike<number>);
  const count = units.length;
  const replicates = new Float64Array(reps);
  for (let r = 0; r < reps; r++) {
    let sum = 0;
    for (let i = 0; i < count; i++) sum += units[randomIndex(rng, count)] as number;
    replicates[r] = sum / count;
  }
  return replicates;
}

/**
 * The type-7 q-quantile of sorted values (numpy's default): at position q (n - 1) = j + w,
 * sorted[j] + (sorted[j + 1] - sorted[j]) w, unchecked. Every percentile interval takes its ends
 * from it (bootstrapCI, episodeBootstrapCI, the report's resampled intervals). Its form, not
 * sorted[j] (1 - w) + sorted[j + 1] w, which can differ in the last bit, is the one the intervals
 * have always used.
 */
export function percentileOfSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0)
    throw new StatisticsError('percentileOfSorted: sorted must hold at least one value');
  if (!(q >= 0 && q <= 1)) throw new StatisticsError(`percentileOfSorted: q must be in [0, 1], got ${q}`);
  const position = q * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  return (
    (sorted[below] as number) + ((sorted[above] as number) - (sorted[below] as number)) * (position - below)
  );
}

/**
 * The percentile interval of bootstrap replicates at `level`: with alpha = 1 - level, their
 * type-7 quantiles alpha/2 and 1 - alpha/2 (percentileOfSorted), the replicates sorted in place.
 * @throws RangeError on no replicates or a level outside (0, 1).
 * @example percentileInterval(Float64Array.of(3, 1, 2, 4), 0.5) // { low: 1.75, high: 3.25 }
 */
export function percentileInterval(replicates: Float64Array, level: number): { low: number; high: number } {
  if (replicates.length === 0)
    throw new StatisticsError('percentileInterval: replicates must hold at least one value');
  checkLevel(level);
  replicates.sort();
  const alpha = 1 - level;
  return {
    low: percentileOfSorted(replicates, alpha / 2),
    high: percentileOfSorted(replicates, 1 - alpha / 2),
  };
}

/**
 * BCa percentile levels (Efron 1987; Efron & Tibshirani 1993, ch. 14): bias correction
 * z0 = Phi^{-1}(#{theta* < theta-hat} / B), acceleration from the jackknife of the mean,
 * a = sum (m - m_i)^3 / (6 (sum (m - m_i)^2)^{3/2}).
 * Replicates equal to theta-hat are not counted as below (Efron & Tibshirani, eq. 14.14);
 * scipy.stats.bootstrap counts them as half, which differs on 0/1 data where many replicates
 * tie (docs/METRICS.md gives the comparison).
 */
function bcaLevels(
  values: Float64Array,
  estimate: number,
  sorted: Float64Array,
  alpha: number,
): [number, number] {
  let below = 0;
  for (const replicate of sorted) if (replicate < estimate) below++;
  const z0 = normalQuantile(Math.min(Math.max(below / sorted.length, 1e-12), 1 - 1e-12));
  const count = values.length;
  let sum = 0;
  for (const value of values) sum += value;
  let squares = 0;
  let cubes = 0;
  for (const value of values) {
    const leaveOneOut = (sum - value) / (count - 1);
    const deviation = estimate - leaveOneOut;
    squares += deviation ** 2;
    cubes += deviation ** 3;
  }
  const acceleration = squares > 0 ? cubes / (6 * squares ** 1.5) : 0;
  const adjust = (z: number) => normalCdfStandard(z0 + (z0 + z) / (1 - acceleration * (z0 + z)));
  return [adjust(normalQuantile(alpha / 2)), adjust(normalQuantile(1 - alpha / 2))];
}

/**
 * Bootstrap confidence interval of the mean of one value per unit: the percentile interval
 * (quantiles a/2 and 1 - a/2 of the replicate means) or BCa. The unit decides the question:
 * per-task pass rates give the task-level (cluster) interval of chapter 17.3.
 *
 * One unit has no spread to resample (every replicate equals it, a zero-width interval that
 * claims certainty), so at least two are required.
 *
 * @throws StatisticsError on fewer than 2 values, a value that is not finite, reps < 1, level outside
 *   (0, 1), an unknown method, or no rng.
 * @example bootstrapCI([0.1, 0.9, 1, 0.5], { reps: 2000, level: 0.95, rng: new Rng(3) })
 */
export function bootstrapCI(values: ArrayLike<number>, options: BootstrapOptions): BootstrapInterval {
  const {
    reps = DEFAULT_REPLICATES,
    level = 0.95,
    method = 'percentile',
    rng,
  } = options ?? ({} as BootstrapOptions);
  checkUnits(values, 2, 'values', 'a bootstrap interval');
  checkLevel(level);
  if (method !== 'percentile' && method !== 'bca')
    throw new StatisticsError(`method must be 'percentile' or 'bca', got ${JSON.stringify(method)}`);
  const estimate = mean(values);
  const replicates = bootstrapMeans(values, { reps, rng });
  if (method === 'percentile')
    return { estimate, ...percentileInterval(replicates, level), level, reps, method };
  const sorted = replicates.sort();
  const [lowQ, highQ] = bcaLevels(Float64Array.from(values), estimate, sorted, 1 - level);
  return {
    estimate,
    low: percentileOfSorted(sorted, lowQ),
    high: percentileOfSorted(sorted, highQ),
    level,
    reps,
    method,
  };
}

/**
 * The level at which to read a percentile bootstrap over n units so that it is as wide as a t
 * interval would be: the expanded percentile interval (Hesterberg 2015, "What Teachers Should Know
 * About the Bootstrap", The American Statistician 69(4), section 4.4). The percentile interval of
 * a mean from n units is narrow by sqrt((n - 1) / n) and uses z where t belongs; reading it at
 * the percentiles a'/2 and 1 - a'/2 with z_{1 - a'/2} = sqrt(n / (n - 1)) t_{1 - a/2, n - 1}
 * corrects both. Returns 1 - a'.
 *
 * The result stays below 1, where a few units would round it there (the interval is then the
 * replicates' range).
 * @throws StatisticsError if n < 2 or level is outside (0, 1).
 * @example expandedPercentileLevel(16, 0.95) // 0.97229 (scipy: 1 - 2 norm.sf(sqrt(16/15) t.ppf(0.975, 15)))
 */
export function expandedPercentileLevel(n: number, level: number): number {
  checkInteger(n, 'n', 2);
  checkLevel(level);
  const z = Math.sqrt(n / (n - 1)) * tQuantile(1 - (1 - level) / 2, n - 1);
  // At 2 or 3 units z is so far out that 1 - 2 P(Z > z) rounds to 1: the extreme replicates then.
  return Math.min(1 - 2 * (1 - normalCdfStandard(z)), 1 - 1e-12);
}
