import { allCorrectAtK, passAtK } from '../passAtK.ts';
import { randomIndex, type RandomSource } from '../random.ts';

/** A number with its interval, null where none exists (fewer than 2 units). */
export interface Estimate {
  estimate: number;
  low: number | null;
  high: number | null;
  /** Present where the task bootstrap had no spread and the exact interval over the tasks stands in (`withoutCollapse`). */
  method?: 'exact over tasks';
}

/**
 * What every metric of a report needs of one task, from its 0/1 outcomes in generation order:
 * n, c, and the index of the first passing and of the first failing sample (n when none), so
 * that prefix pass@k is firstSuccess < k and prefix pass^k is firstFailure >= k.
 */
export function taskProfile(outcomes: Uint8Array) {
  let successes = 0;
  let firstSuccess = outcomes.length;
  let firstFailure = outcomes.length;
  for (let i = 0; i < outcomes.length; i++) {
    if (outcomes[i] === 1) {
      successes++;
      if (firstSuccess === outcomes.length) firstSuccess = i;
    } else if (firstFailure === outcomes.length) firstFailure = i;
  }
  return { trials: outcomes.length, successes, firstSuccess, firstFailure };
}
export type TaskProfile = ReturnType<typeof taskProfile>;

/**
 * A per-(n, c) row of terms over the ks, kept up to the last that is not 0: 1 - pass@k and pass^k
 * both fall with k (C(n-c, k)/C(n, k) and C(c, k)/C(n, k)) and are exactly 0 from some k on
 * (k > n - c, k > c, or below the smallest double), so each row is a prefix of the ks.
 */
function termRows(
  counts: ReadonlyArray<{ trials: number; successes: number }>,
  ks: readonly number[],
  term: (trials: number, successes: number, k: number) => number,
): Float64Array[] {
  return counts.map(({ trials, successes }) => {
    const row: number[] = [];
    for (const k of ks) {
      const value = term(trials, successes, k);
      if (value === 0) break;
      row.push(value);
    }
    return Float64Array.from(row);
  });
}

/** The distinct keys of `items` (first item of each, in order of appearance) and which one each item has. */
export function classesBy<T>(items: readonly T[], key: (item: T) => string) {
  const index = new Map<string, number>();
  const classes: T[] = [];
  const classOf = Int32Array.from(items, (item) => {
    const name = key(item);
    let found = index.get(name);
    if (found === undefined) {
      index.set(name, (found = classes.length));
      classes.push(item);
    }
    return found;
  });
  return { classes, classOf };
}

/**
 * `reps` replicate values, all 0, of every statistic of a metrics report: the pooled share is
 * sum(c) / sum(n) of the resampled tasks, the statistics at k one array per k in their order.
 */
function emptyMeans(kCount: number, reps: number) {
  const perK = () => Array.from({ length: kCount }, () => new Float64Array(reps));
  return {
    meanAccuracy: new Float64Array(reps),
    firstSampleAccuracy: new Float64Array(reps),
    pooledShare: new Float64Array(reps),
    passAtK: perK(),
    allCorrectAtK: perK(),
    prefixPassAtK: perK(),
    prefixAllCorrectAtK: perK(),
  };
}

/** `sums[i]`, for each i, is the sum over rows of `times[h]` x row h's i-th term (0 past its end). */
function weightedSums(rows: readonly Float64Array[], times: Float64Array, sums: Float64Array): void {
  sums.fill(0);
  for (let h = 0; h < rows.length; h++) {
    const weight = times[h]!;
    if (weight === 0) continue;
    const row = rows[h]!;
    for (let i = 0; i < row.length; i++) sums[i]! += weight * row[i]!;
  }
}

/** `below[i]`, for each k of `ks` (ascending), is the sum of `counts` over positions below k. */
function countsBelow(counts: Float64Array, ks: readonly number[], below: Float64Array): void {
  let total = 0;
  let position = 0;
  for (let i = 0; i < ks.length; i++) {
    for (; position < ks[i]!; position++) total += counts[position]!;
    below[i] = total;
  }
}

/** One replicate's draws counted by (n, c) class and by first-success and first-failure position. */
type DrawCounts = Record<'counts' | 'firstSuccesses' | 'firstFailures', Float64Array>;

/**
 * Counts one replicate's draws (`drawn`, the times each joint class was drawn) into `into`, and
 * returns the sums over the drawn tasks of c / n, of first samples passed, of c and of n.
 */
function countDraws(
  joint: readonly TaskProfile[],
  countsClassOf: Int32Array,
  drawn: Int32Array,
  into: DrawCounts,
): { rates: number; firstPassed: number; top: number; bottom: number } {
  into.counts.fill(0);
  into.firstSuccesses.fill(0);
  into.firstFailures.fill(0);
  let rates = 0;
  let firstPassed = 0;
  let top = 0;
  let bottom = 0;
  for (let g = 0; g < joint.length; g++) {
    const times = drawn[g]!;
    if (times === 0) continue;
    const { trials, successes, firstSuccess, firstFailure } = joint[g]!;
    rates += (times * successes) / trials;
    if (firstSuccess === 0) firstPassed += times;
    top += times * successes;
    bottom += times * trials;
    into.counts[countsClassOf[g]!]! += times;
    into.firstSuccesses[firstSuccess]! += times;
    into.firstFailures[firstFailure]! += times;
  }
  return { rates, firstPassed, top, bottom };
}

/** Replicate values of each statistic of a metrics report, one per bootstrap replicate. */
export type ReplicateMeans = ReturnType<typeof emptyMeans>;

/**
 * The task-level (cluster) bootstrap of every statistic of a metrics report over one shared set
 * of resampled tasks, so that their intervals stay coherent: replicate r draws the r-th block of
 * `tasks.length` task indices from `rng`, and every statistic is the mean over those tasks.
 * A statistic depends on a task only through its profile, so each replicate is counted into
 * classes of tasks alike and summed over classes: the prefix metrics of every k from one
 * cumulative count over first-success (first-failure) positions, the unbiased ones over the (n, c)
 * classes. `ks` are the k every task can be scored at.
 */
export function resampleMeans(
  profiles: readonly TaskProfile[],
  ks: readonly number[],
  { reps, rng }: { reps: number; rng: RandomSource },
): ReplicateMeans {
  const units = profiles.length;
  // classes of tasks alike in every statistic, and of those classes alike in (n, c)
  const { classes: joint, classOf } = classesBy(
    profiles,
    (p) => `${p.trials},${p.successes},${p.firstSuccess},${p.firstFailure}`,
  );
  const { classes: counts, classOf: countsClassOf } = classesBy(joint, (p) => `${p.trials},${p.successes}`);
  // 1 - pass@k (0 where pass@k is exactly 1) and pass^k, per (n, c) class
  const missing = termRows(counts, ks, (n, c, k) => 1 - passAtK(n, c, k));
  const allCorrect = termRows(counts, ks, allCorrectAtK);
  const means = emptyMeans(ks.length, reps);
  const positions = joint.reduce((most, { trials }) => Math.max(most, trials), 0) + 1;
  const drawn = new Int32Array(joint.length);
  const tally: DrawCounts = {
    counts: new Float64Array(counts.length),
    firstSuccesses: new Float64Array(positions),
    firstFailures: new Float64Array(positions),
  };
  const perK = () => new Float64Array(ks.length);
  const [noneSums, allSums, successesBelow, failuresBelow] = [perK(), perK(), perK(), perK()];
  for (let r = 0; r < reps; r++) {
    drawn.fill(0);
    for (let i = 0; i < units; i++) drawn[classOf[randomIndex(rng, units)]!]! += 1;
    const { rates, firstPassed, top, bottom } = countDraws(joint, countsClassOf, drawn, tally);
    means.meanAccuracy[r] = rates / units;
    means.firstSampleAccuracy[r] = firstPassed / units;
    means.pooledShare[r] = top / bottom;
    weightedSums(missing, tally.counts, noneSums);
    weightedSums(allCorrect, tally.counts, allSums);
    countsBelow(tally.firstSuccesses, ks, successesBelow);
    countsBelow(tally.firstFailures, ks, failuresBelow);
    for (let i = 0; i < ks.length; i++) {
      means.prefixPassAtK[i]![r] = successesBelow[i]! / units;
      means.prefixAllCorrectAtK[i]![r] = (units - failuresBelow[i]!) / units;
      means.passAtK[i]![r] = (units - noneSums[i]!) / units;
      means.allCorrectAtK[i]![r] = allSums[i]! / units;
    }
  }
  return means;
}
