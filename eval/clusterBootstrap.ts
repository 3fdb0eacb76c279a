import betaCdf from '@stdlib/stats-base-dists-beta-cdf';
import { bootstrapCI, DEFAULT_REPLICATES, percentileInterval } from './bootstrap.ts';
import type { BootstrapInterval, BootstrapOptions } from './bootstrap.ts';
import { binomialPmf } from './discrete.ts';
import { withoutCollapse } from './proportionInterval.ts';
import { pooledCounts, taskRates, type CountsInput } from './clustered.ts';
import { checkInteger, checkLevel, checkRandomSource, checkFinite } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * Task-level (cluster) bootstrap interval of the mean pass rate, `bootstrapCI` of the per-task
 * rates c_j / n_j (chapter 17.3; Field & Welsh 2007): "how would it do on similar tasks?".
 */
export function taskBootstrapCI(counts: CountsInput, options: BootstrapOptions): BootstrapInterval {
  return perTaskBootstrapCI(taskRates(counts), options);
}

/**
 * `bootstrapCI` of one value in [0, 1] per task (a rate, a pass@k, a 0/1 outcome). Where every
 * task has the same value the exact interval over the tasks stands in (`withoutCollapse`), so
 * the interval never has zero width.
 */
export function perTaskBootstrapCI(values: ArrayLike<number>, options: BootstrapOptions): BootstrapInterval {
  const interval = bootstrapCI(values, options);
  const { low, high, method } = withoutCollapse(interval, interval.estimate, {
    units: values.length,
    unit: 'tasks',
    level: interval.level,
  });
  return method === 'percentile' ? interval : { ...interval, low, high, method };
}

/**
 * Episode-level bootstrap interval of the pooled share S/M, resampling the M episodes ignoring
 * their tasks (chapter 17.3's naive interval): each replicate is one Binomial(M, S/M) / M draw by
 * inversion, exactly the mean of M resampled 0/1 episodes. At S = 0 or M, `withoutCollapse`.
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

/** CDF of Binomial(m, p) at 0..m: binomialPmf's running sum over its total, so that it ends at 1. */
function binomialCdfTable(m: number, p: number): Float64Array {
  const cdf = binomialPmf(m, p);
  let total = 0;
  for (let x = 0; x <= m; x++) {
    total += cdf[x]!;
    cdf[x] = total;
  }
  for (let x = 0; x <= m; x++) cdf[x] = cdf[x]! / total;
  return cdf;
}

/** Smallest x with cdf[x] > u (inversion sampling). */
function searchCdf(cdf: Float64Array, u: number): number {
  let low = 0;
  let high = cdf.length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (cdf[middle]! > u) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * The exact bootstrap distribution of the resampled total of N tasks with a common n: the N-fold
 * convolution of the counts' empirical pmf on 0..n (the "ideal bootstrap", Efron & Tibshirani
 * 1993, 6.4); the task-level replicate mean is this total over N n.
 * @example taskBootstrapDistribution([0, 2], 2) // [0.25, 0, 0.5, 0, 0.25] on totals 0..4
 */
export function taskBootstrapDistribution(successes: ArrayLike<number>, trials: number): Float64Array {
  checkInteger(trials, 'trials', 1);
  taskRates({ successes, trials });
  const tasks = successes.length;
  if (tasks < 2)
    throw new StatisticsError(`successes has ${tasks} task; a bootstrap distribution needs at least 2`);
  const weights = new Map<number, number>();
  for (let j = 0; j < tasks; j++) weights.set(successes[j]!, (weights.get(successes[j]!) ?? 0) + 1 / tasks);
  let total = Float64Array.of(1);
  for (let draw = 0; draw < tasks; draw++) {
    const next = new Float64Array(total.length + trials);
    for (const [value, weight] of weights)
      for (let x = 0; x < total.length; x++) next[x + value] = next[x + value]! + weight * total[x]!;
    total = next;
  }
  return total;
}

/**
 * P(the type-7 sample q-quantile of B iid draws from `pmf` (on 0..m) is <= t), exactly. With
 * position q (B - 1) = j + w, the quantile is X_j + w (X_{j+1} - X_j) over the order statistics,
 * so it is <= t when X_{j+1} <= floor(t), or when X_j = a <= floor(t) < X_{j+1} = b with
 * a + w (b - a) <= t; and P(X_j <= A, X_{j+1} = b) = C(B, j+1) F(A)^{j+1} (S(b-1)^{B-j-1} - S(b)^{B-j-1})
 * for A < b, with F the cdf and S = 1 - F.
 */
function sampleQuantileAtMost(
  cdf: Float64Array,
  survival: Float64Array,
  draws: number,
  q: number,
  t: number,
): number {
  const m = cdf.length - 1;
  if (t < 0) return 0;
  if (t >= m) return 1;
  const floor = Math.floor(t);
  const position = q * (draws - 1);
  const j = Math.floor(position);
  const w = position - j;
  // P(X_r <= x) = P(at least r + 1 draws <= x) = I_{F(x)}(r + 1, B - r)
  const orderAtMost = (r: number, x: number) => (cdf[x]! >= 1 ? 1 : betaCdf(cdf[x]!, r + 1, draws - r));
  if (w === 0 || j + 1 >= draws) return orderAtMost(j, floor);
  let probability = orderAtMost(j + 1, floor);
  const logChoose = logBinomialCoefficient(draws, j + 1);
  const rest = draws - j - 1;
  let allAtLeast = Math.exp(rest * Math.log(survival[floor]!)); // S(b - 1)^rest
  for (let b = floor + 1; b <= m && t - w * b >= 0 && allAtLeast > 0; b++) {
    const allAbove = Math.exp(rest * Math.log(survival[b]!));
    const highest = Math.min(floor, Math.floor((t - w * b) / (1 - w)));
    if (highest >= 0 && cdf[highest]! > 0)
      probability += Math.exp(logChoose + (j + 1) * Math.log(cdf[highest]!)) * (allAtLeast - allAbove);
    allAtLeast = allAbove;
  }
  return Math.min(1, probability);
}

/** log C(n, k), summed over the shorter side. */
function logBinomialCoefficient(n: number, k: number): number {
  let value = 0;
  const shorter = Math.min(k, n - k);
  for (let i = 1; i <= shorter; i++) value += Math.log((n - shorter + i) / i);
  return value;
}

/**
 * The exact probability that a percentile bootstrap interval contains `target`, given the
 * bootstrap distribution of the replicate statistic (`pmf` over x = 0..m, statistic x / scale).
 * With `reps` = B the interval is the type-7 a/2 and 1 - a/2 quantiles of B draws, as the
 * bootstraps here compute it, and the probability is P(low <= target) - P(high < target); with
 * reps = Infinity it is the limit, 1 or 0 as target lies between the pmf's quantiles or not.
 */
export function percentileCoverage(
  pmf: ArrayLike<number>,
  scale: number,
  target: number,
  { reps = DEFAULT_REPLICATES, level = 0.95 }: { reps?: number; level?: number } = {},
): number {
  if (pmf === null || typeof pmf !== 'object' || typeof pmf.length !== 'number' || pmf.length === 0)
    throw new StatisticsError('pmf must be a non-empty array of probabilities');
  checkFinite(scale, 'scale', { positive: true });
  checkFinite(target, 'target');
  if (reps !== Infinity) checkInteger(reps, 'reps', 2);
  checkLevel(level);
  const m = pmf.length - 1;
  const cdf = new Float64Array(m + 1);
  const survival = new Float64Array(m + 1);
  let below = 0;
  for (let x = 0; x <= m; x++) {
    const mass = pmf[x]!;
    if (!(mass >= 0 && Number.isFinite(mass)))
      throw new StatisticsError(`pmf[${x}] must be a finite number >= 0, got ${mass}`);
    below += mass;
    cdf[x] = below;
  }
  if (!(below > 0)) throw new StatisticsError('pmf must have positive total mass');
  let above = 0;
  for (let x = m; x >= 0; x--) {
    survival[x] = above; // P(X > x), summed from the top so that small tails keep their digits
    above += pmf[x]!;
  }
  for (let x = 0; x <= m; x++) cdf[x] = Math.min(1, cdf[x]! / below);
  for (let x = 0; x <= m; x++) survival[x] = survival[x]! / above;
  const alpha = 1 - level;
  const t = target * scale;
  if (reps === Infinity) {
    const quantile = (q: number) => cdf.findIndex((value) => value >= q);
    return quantile(alpha / 2) <= t && t <= quantile(1 - alpha / 2) ? 1 : 0;
  }
  const lowAtMost = sampleQuantileAtMost(cdf, survival, reps, alpha / 2, t);
  // P(high < t): just below t, where no attainable value a + w (b - a) lies unless it equals t
  const justBelow = t - 1e-9 * Math.max(1, Math.abs(t));
  const highBelow = sampleQuantileAtMost(cdf, survival, reps, 1 - alpha / 2, justBelow);
  return Math.max(0, lowAtMost - highBelow);
}
