import { checkFiniteValues, checkUnits, checkInteger, checkLevel, checkRandomSource } from './validate.ts';
import { DEFAULT_REPLICATES } from './bootstrap.ts';
import { sampleBinomial, type RandomSource } from './random.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * The single change point of a sequence by least squares (Hinkley 1970): the t in [1, m-1], the
 * earliest on a tie, that minimises the squared error of a mean before t and a mean from t on.
 * @example changePoint([10, 11, 10, 3, 2]) // 3
 */
export function changePoint(values: ArrayLike<number>): number {
  checkUnits(values, 2, 'values', 'a change point');
  const m = values.length;
  let best = 1;
  let bestCost = Infinity;
  for (let t = 1; t < m; t++) {
    let cost = 0;
    for (const [from, to] of [
      [0, t],
      [t, m],
    ] as const) {
      let sum = 0;
      for (let i = from; i < to; i++) sum += values[i]!;
      const segmentMean = sum / (to - from);
      for (let i = from; i < to; i++) cost += (values[i]! - segmentMean) ** 2;
    }
    if (cost < bestCost - 1e-12) [best, bestCost] = [t, cost];
  }
  return best;
}

/**
 * Where a sequence that rises and then falls starts to fall: the `changePoint` of the sequence
 * from its (first) peak on, so that an early rise is not taken for the change; null when the peak
 * is the last value.
 * @example fallOnset([0.2, 0.6, 0.7, 0.65, 0.1, 0.05]) // 4
 */
export function fallOnset(values: ArrayLike<number>): number | null {
  checkUnits(values, 1, 'values', 'a fall');
  let peak = 0;
  for (let i = 1; i < values.length; i++) if (values[i]! > values[peak]!) peak = i;
  if (peak === values.length - 1) return null;
  return peak + changePoint(Array.prototype.slice.call(values, peak) as number[]);
}

/**
 * The falls of a trajectory (a task's success rate at successive checkpoints): every maximal run
 * of decreases, through equal values, from its local peak to the first index of its minimum.
 * Every dip is returned, however small: whether it is more than noise is for a test on the counts
 * behind the values, corrected for the number of falls tested (`holmAdjust`).
 * @example trajectoryFalls([0.1, 0.6, 0.1, 0.1, 0.6, 0.3]) // [{ from: 1, to: 2 }, { from: 4, to: 5 }]
 */
export function trajectoryFalls(values: ArrayLike<number>): Array<{ from: number; to: number }> {
  checkFiniteValues(values);
  const falls: Array<{ from: number; to: number }> = [];
  let i = 0;
  while (i < values.length - 1) {
    if (values[i + 1]! >= values[i]!) {
      i += 1;
      continue;
    }
    let to = i + 1;
    let end = to;
    while (end + 1 < values.length && values[end + 1]! <= values[end]!) {
      end += 1;
      if (values[end]! < values[to]!) to = end;
    }
    falls.push({ from: i, to });
    i = end;
  }
  return falls;
}

/**
 * A percentile interval for the change point of success rates across checkpoints by the
 * parametric bootstrap (Efron & Tibshirani 6.5): each replicate redraws every checkpoint's count
 * from Binomial(n_t, c_t / n_t) and takes `statistic` (default `changePoint`) of the rates. A
 * replicate where it is null (no change) counts in `noneShare` and sorts last, so a bound is null
 * when those reach a tail; `share` is the bootstrap distribution of the index.
 * @example changePointBootstrap({ successes: [40, 41, 20, 5], trials: [64, 64, 64, 64], rng: new Rng(1) })
 */
export function changePointBootstrap({
  successes,
  trials,
  reps = DEFAULT_REPLICATES,
  level = 0.95,
  rng,
  statistic = changePoint,
}: {
  successes: readonly number[];
  trials: readonly number[];
  reps?: number;
  level?: number;
  rng: RandomSource;
  statistic?: (rates: number[]) => number | null;
}): { index: number | null; low: number | null; high: number | null; share: number[]; noneShare: number } {
  checkUnits(successes, 2, 'successes', 'a change point');
  if (trials.length !== successes.length) throw new StatisticsError('successes and trials differ in length');
  successes.forEach((c, t) => checkInteger(c, `successes[${t}]`, 0, trials[t]!));
  checkInteger(reps, 'reps', 1);
  checkLevel(level);
  checkRandomSource(rng);
  const rates = successes.map((c, t) => c / trials[t]!);
  const counts = new Array<number>(successes.length).fill(0);
  let none = 0;
  for (let r = 0; r < reps; r++) {
    const index = statistic(trials.map((n, t) => sampleBinomial(n, rates[t]!, rng) / n));
    if (index === null) none += 1;
    else counts[index]! += 1;
  }
  const share = counts.map((count) => count / reps);
  const tail = (1 - level) / 2;
  // Null replicates sort last (no change is "later" than any index).
  const indexAt = (q: number) => {
    let cumulative = 0;
    for (let t = 0; t < share.length; t++) if ((cumulative += share[t]!) >= q - 1e-12) return t;
    return null;
  };
  return {
    index: statistic(rates),
    low: indexAt(tail),
    high: indexAt(1 - tail),
    share,
    noneShare: none / reps,
  };
}
