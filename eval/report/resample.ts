import { allCorrectAtK } from '../allCorrectAtK.ts';
import { passAtK } from '../passAtK.ts';
import { randomIndex, type RandomSource } from '../randomSource.ts';

/** A number with its interval; low and high are null where no interval exists (fewer than 2 units). */
export interface Estimate {
  estimate: number;
  low: number | null;
  high: number | null;
  /** Present where the task bootstrap had no spread and the exact interval over the tasks stands in (`withoutCollapse`). */
  method?: 'exact over tasks';
}

/** What every metric of a report needs of one task: its n, c, and where its first success and first failure fall. */
export interface TaskProfile {
  trials: number;
  successes: number;
  /** Index of the first passing sample, `trials` when none passed: prefix pass@k is firstSuccess < k. */
  firstSuccess: number;
  /** Index of the first failing sample, `trials` when none failed: prefix pass^k is firstFailure >= k. */
  firstFailure: number;
}

/** The task's profile, from its 0/1 outcomes in generation order. */
export function taskProfile(outcomes: Uint8Array): TaskProfile {
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

/** Replicate values of each statistic of a metrics report, one per bootstrap replicate. */
export interface ReplicateMeans {
  meanAccuracy: Float64Array;
  firstSampleAccuracy: Float64Array;
  /** sum(c) / sum(n) of the resampled tasks. */
  pooledShare: Float64Array;
  /** One array per k of `ks`, in their order. */
  passAtK: Float64Array[];
  allCorrectAtK: Float64Array[];
  prefixPassAtK: Float64Array[];
  prefixAllCorrectAtK: Float64Array[];
}

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

/**
 * The task-level (cluster) bootstrap of every statistic of a metrics report over one shared set
 * of resampled tasks, so that their intervals stay mutually coherent: replicate r draws
 * `tasks.length` task indices from `rng` (the r-th block of draws, as one index matrix filled
 * row by row would hold them) and every statistic is the mean over that multiset of tasks.
 *
 * Each statistic depends on a task only through its profile (n, c, first success, first
 * failure), so a replicate is counted once into classes of tasks alike and each statistic is
 * summed over classes, not tasks: the prefix metrics of every k from one cumulative count over
 * first-success (first-failure) positions, the unbiased ones over the (n, c) classes whose term
 * is neither exactly 0 nor exactly 1 at that k. The work per replicate is the draws plus a few
 * passes over the classes, not tasks x metrics x k. `ks` are the k every task can be scored at.
 */
export function resampleMeans(
  profiles: readonly TaskProfile[],
  ks: readonly number[],
  { reps, rng }: { reps: number; rng: RandomSource },
): ReplicateMeans {
  const units = profiles.length;
  // classes of tasks alike in every statistic, and of tasks alike in (n, c)
  const jointOf = new Map<string, number>();
  const countsOf = new Map<string, number>();
  const classOf = new Int32Array(units);
  const joint: TaskProfile[] = [];
  const countsClassOf: number[] = [];
  const counts: Array<{ trials: number; successes: number }> = [];
  profiles.forEach((profile, j) => {
    const key = `${profile.trials},${profile.successes},${profile.firstSuccess},${profile.firstFailure}`;
    let index = jointOf.get(key);
    if (index === undefined) {
      index = joint.length;
      jointOf.set(key, index);
      joint.push(profile);
      const countsKey = `${profile.trials},${profile.successes}`;
      let countsIndex = countsOf.get(countsKey);
      if (countsIndex === undefined) {
        countsIndex = counts.length;
        countsOf.set(countsKey, countsIndex);
        counts.push({ trials: profile.trials, successes: profile.successes });
      }
      countsClassOf.push(countsIndex);
    }
    classOf[j] = index;
  });
  const positions = joint.reduce((most, { trials }) => Math.max(most, trials), 0) + 1;
  // 1 - pass@k (0 where pass@k is exactly 1) and pass^k, per (n, c) class
  const missing = termRows(counts, ks, (n, c, k) => 1 - passAtK(n, c, k));
  const allCorrect = termRows(counts, ks, allCorrectAtK);
  const replicates = () => ks.map(() => new Float64Array(reps));
  const means: ReplicateMeans = {
    meanAccuracy: new Float64Array(reps),
    firstSampleAccuracy: new Float64Array(reps),
    pooledShare: new Float64Array(reps),
    passAtK: replicates(),
    allCorrectAtK: replicates(),
    prefixPassAtK: replicates(),
    prefixAllCorrectAtK: replicates(),
  };
  const drawn = new Int32Array(joint.length);
  const drawnCounts = new Float64Array(counts.length);
  const firstSuccesses = new Float64Array(positions);
  const firstFailures = new Float64Array(positions);
  const noneSums = new Float64Array(ks.length);
  const allSums = new Float64Array(ks.length);
  for (let r = 0; r < reps; r++) {
    drawn.fill(0);
    for (let i = 0; i < units; i++) drawn[classOf[randomIndex(rng, units)]!]! += 1;
    drawnCounts.fill(0);
    firstSuccesses.fill(0);
    firstFailures.fill(0);
    let rates = 0;
    let firstPassed = 0;
    let top = 0;
    let bottom = 0;
    for (let g = 0; g < joint.length; g++) {
      const times = drawn[g]!;
      if (times === 0) continue;
      const { trials, successes, firstSuccess, firstFailure } = joint[g] as TaskProfile;
      rates += (times * successes) / trials;
      if (firstSuccess === 0) firstPassed += times;
      top += times * successes;
      bottom += times * trials;
      drawnCounts[countsClassOf[g] as number]! += times;
      firstSuccesses[firstSuccess]! += times;
      firstFailures[firstFailure]! += times;
    }
    means.meanAccuracy[r] = rates / units;
    means.firstSampleAccuracy[r] = firstPassed / units;
    means.pooledShare[r] = top / bottom;
    noneSums.fill(0);
    allSums.fill(0);
    for (let h = 0; h < counts.length; h++) {
      const times = drawnCounts[h]!;
      if (times === 0) continue;
      const none = missing[h] as Float64Array;
      for (let i = 0; i < none.length; i++) noneSums[i]! += times * none[i]!;
      const all = allCorrect[h] as Float64Array;
      for (let i = 0; i < all.length; i++) allSums[i]! += times * all[i]!;
    }
    // walk k upwards: first successes and first failures before position k
    let successBefore = 0;
    let failureBefore = 0;
    let position = 0;
    for (let i = 0; i < ks.length; i++) {
      for (; position < (ks[i] as number); position++) {
        successBefore += firstSuccesses[position]!;
        failureBefore += firstFailures[position]!;
      }
      (means.prefixPassAtK[i] as Float64Array)[r] = successBefore / units;
      (means.prefixAllCorrectAtK[i] as Float64Array)[r] = (units - failureBefore) / units;
      (means.passAtK[i] as Float64Array)[r] = (units - noneSums[i]!) / units;
      (means.allCorrectAtK[i] as Float64Array)[r] = allSums[i]! / units;
    }
  }
  return means;
}
