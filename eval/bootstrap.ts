import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { mean } from './describe.ts';
import { normalCdfStandard, normalQuantile } from './normal.ts';
import { randomIndex, type RandomSource } from './random.ts';
import { checkFiniteValues, checkInteger, checkLevel, checkRandomSource, checkUnits } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/** The default number of bootstrap replicates, here, in the commands' --reps and in the chapter. */
export const DEFAULT_REPLICATES = 2000;

export interface BootstrapOptions {
  /** Defaults: DEFAULT_REPLICATES replicates, level 0.95, the percentile method. */
  reps?: number;
  level?: number;
  rng: RandomSource;
  /** 'bca': bias-corrected and accelerated (Efron 1987). */
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
 * and average them (Efron & Tibshirani 1993, ch. 6). Units are whatever `values` holds one
 * number per: episodes, tasks, or per-task differences of two systems.
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
    for (let i = 0; i < count; i++) sum += units[randomIndex(rng, count)]!;
    replicates[r] = sum / count;
  }
  return replicates;
}

/**
 * The type-7 q-quantile of sorted values (numpy's default): at position q (n - 1) = j + w,
 * sorted[j] + (sorted[j + 1] - sorted[j]) w, the ends of every percentile interval. Keep this
 * form: sorted[j] (1 - w) + sorted[j + 1] w can differ in the last bit.
 */
export function percentileOfSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0)
    throw new StatisticsError('percentileOfSorted: sorted must hold at least one value');
  if (!(q >= 0 && q <= 1)) throw new StatisticsError(`percentileOfSorted: q must be in [0, 1], got ${q}`);
  const position = q * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below);
}

/** The type-7 quantiles alpha/2 and 1 - alpha/2 of bootstrap replicates, sorted in place. */
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
 * BCa percentile levels (Efron & Tibshirani 1993, ch. 14): bias correction z0 = Phi^{-1}(#{theta*
 * < theta-hat} / B), acceleration a = sum (m - m_i)^3 / (6 (sum (m - m_i)^2)^{3/2}) from the
 * jackknife of the mean. Ties with theta-hat are not counted as below (their eq. 14.14); scipy
 * counts them as half, which differs on 0/1 data (docs/METRICS.md).
 */
function bcaLevels(values: Float64Array, estimate: number, sorted: Float64Array, alpha: number) {
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
  return [adjust(normalQuantile(alpha / 2)), adjust(normalQuantile(1 - alpha / 2))] as const;
}

/**
 * Bootstrap confidence interval (percentile or BCa) of the mean of one value per unit: per-task
 * pass rates give the task-level (cluster) interval of chapter 17.3. One unit has no spread to
 * resample (a zero-width interval that claims certainty), so at least two are required.
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
  const sorted = bootstrapMeans(values, { reps, rng }).sort();
  const alpha = 1 - level;
  const [lowQ, highQ] =
    method === 'percentile'
      ? [alpha / 2, 1 - alpha / 2]
      : bcaLevels(Float64Array.from(values), estimate, sorted, alpha);
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
 * The level at which a percentile bootstrap over n units is as wide as a t interval: the expanded
 * percentile interval (Hesterberg 2015, "What Teachers Should Know About the Bootstrap", section
 * 4.4). The percentile interval of a mean is narrow by sqrt((n - 1) / n) and uses z where t
 * belongs; reading it at 1 - a' with z_{1 - a'/2} = sqrt(n / (n - 1)) t_{1 - a/2, n - 1} corrects both.
 * @example expandedPercentileLevel(16, 0.95) // 0.97229 (scipy: 1 - 2 norm.sf(sqrt(16/15) t.ppf(0.975, 15)))
 */
export function expandedPercentileLevel(n: number, level: number): number {
  checkInteger(n, 'n', 2);
  checkLevel(level);
  const z = Math.sqrt(n / (n - 1)) * tQuantile(1 - (1 - level) / 2, n - 1);
  // At 2 or 3 units z is so far out that 1 - 2 P(Z > z) rounds to 1: the extreme replicates then.
  return Math.min(1 - 2 * (1 - normalCdfStandard(z)), 1 - 1e-12);
}
