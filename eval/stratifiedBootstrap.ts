import { percentileInterval } from './bootstrap.ts';
import { randomIndex, type RandomSource } from './random.ts';
import { checkInteger, checkLevel, checkRandomSource, checkFinite } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/** rliable's default number of bootstrap replicates (`get_interval_estimates(..., reps=50000)`). */
export const AGGREGATE_REPS = 50_000;

/** A point estimate with its percentile interval. */
export type Estimate = { estimate: number; low: number; high: number };

export interface StratifiedBootstrapOptions {
  /** Defaults: AGGREGATE_REPS replicates (rliable's `reps`), level 0.95. */
  reps?: number;
  level?: number;
  /** Also resample the tasks with replacement before the runs within each (rliable's `task_bootstrap=True`). */
  taskBootstrap?: boolean;
  /** Redraw whole runs (rows) instead of the runs within each task: for correlated tasks. Not rliable's. */
  wholeRuns?: boolean;
  /** Called after each replicate with the number done. */
  progress?: (done: number) => void;
  rng: RandomSource;
}

function checkMatrix(scores: ReadonlyArray<ReadonlyArray<number>>, name: string): number {
  const tasks = scores[0]?.length ?? 0;
  if (scores.length === 0 || tasks === 0 || scores.some((row) => row.length !== tasks))
    throw new StatisticsError(`${name} must be a non-empty runs x tasks matrix`);
  if (!scores.every((row) => row.every(Number.isFinite)))
    throw new StatisticsError(`${name}: a score is not finite`);
  return tasks;
}

/** A runs x tasks matrix laid out task by task, `columns[task * runs + run]`. */
function columnsOf(scores: ReadonlyArray<ReadonlyArray<number>>): Float64Array {
  const runs = scores.length;
  const columns = new Float64Array(runs * scores[0]!.length);
  scores.forEach((row, run) => row.forEach((score, task) => (columns[task * runs + run] = score)));
  return columns;
}

/** Float64Array.prototype.sort's order of finite numbers (ECMA-262 TypedArray SortCompare): -0 before +0. */
const typedOrder = (a: number, b: number) =>
  a < b ? -1 : a > b ? 1 : Object.is(a, b) ? 0 : Object.is(a, -0) ? -1 : 1;

/**
 * Sorts a replicate in O(n): its values are drawn from the data's n cells (`drawn[i]` the cell of
 * value i), so counting draws per cell's rank in the data's sorted order lists them in
 * Float64Array.prototype.sort's order. The array returned is reused by the next call.
 */
function rankSorter(cells: Float64Array): (drawn: Int32Array) => Float64Array {
  const order = Array.from({ length: cells.length }, (_, i) => i).sort((i, j) =>
    typedOrder(cells[i]!, cells[j]!),
  );
  const rank = new Int32Array(cells.length);
  const byRank = new Float64Array(cells.length);
  order.forEach((cell, position) => {
    rank[cell] = position;
    byRank[position] = cells[cell]!;
  });
  const counts = new Int32Array(cells.length);
  const sorted = new Float64Array(cells.length);
  return (drawn) => {
    counts.fill(0);
    for (let i = 0; i < drawn.length; i += 1) counts[rank[drawn[i]!]!]! += 1;
    let next = 0;
    for (let position = 0; position < byRank.length; position += 1)
      for (let count = counts[position]!; count > 0; count -= 1) sorted[next++] = byRank[position]!;
    return sorted;
  };
}

/**
 * rliable's stratified bootstrap (Agarwal et al. 2021, "Deep RL at the edge of the statistical
 * precipice", appendix A.4; `StratifiedBootstrap` in rliable/library.py) of statistics of a runs x
 * tasks score matrix `scores[run][task]`: each replicate redraws the runs within each task (see
 * `redrawCells`). `statistic` gets the replicate as a flat array, task by task, and a function
 * giving the same values sorted (valid until the next replicate), and returns a vector; each
 * component gets the percentile interval of its replicates, around its value on the data.
 */
export function stratifiedBootstrap(
  scores: ReadonlyArray<ReadonlyArray<number>>,
  statistic: (sample: Float64Array, sorted: () => Float64Array) => number[],
  {
    reps = AGGREGATE_REPS,
    level = 0.95,
    taskBootstrap = false,
    wholeRuns = false,
    progress,
    rng,
  }: StratifiedBootstrapOptions,
): Estimate[] {
  checkMatrix(scores, 'stratifiedBootstrap: scores');
  checkInteger(reps, 'reps', 1);
  checkLevel(level);
  checkRandomSource(rng);
  const cells = columnsOf(scores);
  const sortCells = rankSorter(cells);
  const drawn = Int32Array.from({ length: cells.length }, (_, cell) => cell);
  const rows = wholeRuns ? new Int32Array(scores.length) : undefined;
  let sortedDrawn: Float64Array | undefined;
  const sorted = () => (sortedDrawn ??= sortCells(drawn));
  const sample = cells.slice();
  const estimates = statistic(sample, sorted);
  const replicates = estimates.map(() => new Float64Array(reps));
  for (let r = 0; r < reps; r += 1) {
    redrawCells(drawn, scores.length, rows, taskBootstrap, rng);
    for (let i = 0; i < cells.length; i += 1) sample[i] = cells[drawn[i]!]!;
    sortedDrawn = undefined;
    const values = statistic(sample, sorted);
    for (let c = 0; c < values.length; c += 1) replicates[c]![r] = values[c]!;
    progress?.(r + 1);
  }
  return estimates.map((estimate, c) => ({ estimate, ...percentileInterval(replicates[c]!, level) }));
}

/**
 * Redraws the cells of a runs x tasks matrix laid out task by task: `drawn[slot * runs + run]`
 * becomes the cell drawn for that place, its run drawn within each task apart (rliable's
 * stratified resampling) or, with `rows`, the same whole runs for every task; with
 * `taskBootstrap` each slot's task is drawn first, so the interval speaks for tasks like these.
 */
function redrawCells(
  drawn: Int32Array,
  runs: number,
  rows: Int32Array | undefined,
  taskBootstrap: boolean,
  rng: RandomSource,
): void {
  const tasks = drawn.length / runs;
  if (rows !== undefined) for (let run = 0; run < runs; run += 1) rows[run] = randomIndex(rng, runs);
  for (let slot = 0; slot < tasks; slot += 1) {
    const task = taskBootstrap ? randomIndex(rng, tasks) : slot;
    for (let run = 0; run < runs; run += 1)
      drawn[slot * runs + run] = task * runs + (rows === undefined ? randomIndex(rng, runs) : rows[run]!);
  }
}

/**
 * P(X > Y) of a replicate in O(N + K) per task: each run of X has a fixed count of Y's scores of
 * the task below it and at or below it, so the drawn runs of Y, counted in Y's sorted order, give
 * each drawn run of X its wins, sums of halves exact in any order (`probabilityOfImprovement`'s
 * number). `x`, `y` laid out task by task, the draws their cells.
 */
function improvementCounter(x: Float64Array, y: Float64Array, xRuns: number, yRuns: number) {
  const tasks = x.length / xRuns;
  const yRank = new Int32Array(y.length);
  const [below, atOrBelow] = [new Int32Array(x.length), new Int32Array(x.length)];
  for (let task = 0; task < tasks; task += 1) {
    const ys = y.subarray(task * yRuns, (task + 1) * yRuns);
    const order = Array.from({ length: yRuns }, (_, j) => j).sort((i, j) => ys[i]! - ys[j]!);
    order.forEach((run, rank) => (yRank[task * yRuns + run] = rank));
    for (let i = task * xRuns; i < (task + 1) * xRuns; i += 1)
      ys.forEach((score) => {
        below[i]! += score < x[i]! ? 1 : 0;
        atOrBelow[i]! += score <= x[i]! ? 1 : 0;
      });
  }
  const drawnBelow = new Int32Array(yRuns + 1); // [rank]: drawn runs of Y ranked below `rank`
  return (xDrawn: Int32Array, yDrawn: Int32Array) => {
    let total = 0;
    for (let task = 0; task < tasks; task += 1) {
      drawnBelow.fill(0);
      for (let k = task * yRuns; k < (task + 1) * yRuns; k += 1) drawnBelow[yRank[yDrawn[k]!]! + 1]! += 1;
      for (let rank = 1; rank <= yRuns; rank += 1) drawnBelow[rank]! += drawnBelow[rank - 1]!;
      let wins = 0;
      for (let k = task * xRuns; k < (task + 1) * xRuns; k += 1) {
        const beaten = drawnBelow[below[xDrawn[k]!]!]!;
        wins += beaten + 0.5 * (drawnBelow[atOrBelow[xDrawn[k]!]!]! - beaten);
      }
      total += wins / (xRuns * yRuns);
    }
    return total / tasks;
  };
}

/**
 * The probability of improvement P(X > Y) with rliable's interval for it
 * (`StratifiedIndependentBootstrap`): each replicate redraws the runs of X and, apart, of Y;
 * with `paired` (and `wholeRuns`), where row i of X and of Y are one seed at two checkpoints, the
 * same whole rows of both.
 */
export function probabilityOfImprovementInterval(
  x: ReadonlyArray<ReadonlyArray<number>>,
  y: ReadonlyArray<ReadonlyArray<number>>,
  {
    reps = AGGREGATE_REPS,
    level = 0.95,
    wholeRuns = false,
    paired = false,
    progress,
    rng,
  }: Omit<StratifiedBootstrapOptions, 'taskBootstrap'> & { paired?: boolean },
): Estimate {
  const tasks = checkMatrix(x, 'probabilityOfImprovementInterval: x');
  if (checkMatrix(y, 'probabilityOfImprovementInterval: y') !== tasks)
    throw new StatisticsError('probabilityOfImprovementInterval: x and y must have the same tasks');
  if (paired && !(wholeRuns && x.length === y.length))
    throw new StatisticsError(
      'probabilityOfImprovementInterval: paired needs wholeRuns and as many runs of x as of y',
    );
  checkInteger(reps, 'reps', 1);
  checkLevel(level);
  checkRandomSource(rng);
  const improvement = improvementCounter(columnsOf(x), columnsOf(y), x.length, y.length);
  const [xDrawn, yDrawn] = [new Int32Array(x.length * tasks), new Int32Array(y.length * tasks)];
  const [xRows, yRows] = wholeRuns ? [new Int32Array(x.length), new Int32Array(y.length)] : [];
  const replicates = new Float64Array(reps);
  for (let r = 0; r < reps; r += 1) {
    redrawCells(xDrawn, x.length, xRows, false, rng);
    if (paired) yDrawn.set(xDrawn);
    else redrawCells(yDrawn, y.length, yRows, false, rng);
    replicates[r] = improvement(xDrawn, yDrawn);
    progress?.(r + 1);
  }
  return { estimate: probabilityOfImprovement(x, y), ...percentileInterval(replicates, level) };
}

/**
 * Probability of improvement (Agarwal et al. 2021, section 4.3; rliable's
 * `metrics.probability_of_improvement`): the mean over tasks of the Mann-Whitney statistic
 * P(X_m > Y_m) over the N runs of X and the K runs of Y (ties count 1/2), `x[run][task]`.
 */
export function probabilityOfImprovement(
  x: ReadonlyArray<ReadonlyArray<number>>,
  y: ReadonlyArray<ReadonlyArray<number>>,
): number {
  const tasks = x[0]?.length ?? 0;
  if (x.length === 0 || y.length === 0 || tasks === 0 || [...x, ...y].some((row) => row.length !== tasks))
    throw new StatisticsError(
      'probabilityOfImprovement: x and y must be non-empty runs x tasks matrices with the same tasks',
    );
  let total = 0;
  for (let task = 0; task < tasks; task += 1) {
    let wins = 0;
    for (const xRow of x)
      for (const yRow of y) {
        const [a, b] = [xRow[task]!, yRow[task]!];
        wins += a > b ? 1 : a === b ? 0.5 : 0;
      }
    total += wins / (x.length * y.length);
  }
  return total / tasks;
}

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
 * One statistic of rliable/metrics.py of a runs x tasks sample laid out task by task and the same
 * values sorted: `aggregate_mean`, the median of the task means (`aggregate_median`),
 * `aggregate_iqm`, and `aggregate_optimality_gap` = mean(max(gamma - x, 0)).
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
    // Every task has the same runs, so the mean of task means is the mean of all values.
    let total = 0;
    for (let i = 0; i < sample.length; i += 1) total += sample[i]!;
    return total / sample.length;
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
 * rliable's aggregate metrics of one runs x tasks score matrix with their stratified-bootstrap
 * percentile intervals (`rly.get_interval_estimates`) and the performance profile's bands
 * (`rly.create_performance_profile`), all from one set of replicates: they are drawn the same
 * whatever is computed from them, so one stream gives one interval for one quantity.
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
