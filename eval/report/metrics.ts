import { allCorrectAtK, passAtK, plugInPassAtK } from '../passAtK.ts';
import { bootstrapCI, DEFAULT_REPLICATES, percentileInterval } from '../bootstrap.ts';
import { episodeBootstrapCI } from '../clusterBootstrap.ts';
import { withoutCollapse } from '../proportionInterval.ts';
import {
  clusteredStandardError,
  designEffect,
  episodeStandardError,
  intraclassCorrelation,
  taskVarianceIntraclassCorrelation,
} from '../clustered.ts';
import { allAlike, mean, meanStandardError } from '../describe.ts';
import type { TaskOutcomes } from '../io/outcomes.ts';
import type { RandomSource } from '../random.ts';
import { Rng } from '../../lib/rng.ts';
import { orNull } from '../validate.ts';
import { classesBy, resampleMeans, taskProfile } from './resample.ts';
import type { Estimate, ReplicateMeans, TaskProfile } from './resample.ts';
import { StatisticsError } from '../../lib/errors.ts';
import { count } from '../../lib/text.ts';

/**
 * The stream `tinyagent metrics` draws its bootstrap from at `--seed` (0 unless given). `view` and
 * `eval` draw theirs from it at seed 0, so their intervals are those `metrics` prints, number for number.
 */
export function metricsStream(seed = 0): RandomSource {
  return new Rng(seed).fork('metrics/bootstrap');
}

/** Below this many tasks a task-level interval is shown but flagged as unreliable. */
export const FEW_TASKS = 5;

/**
 * Bounds on one report's bootstrap: task draws (reps x tasks, which set its time) and replicate
 * statistics kept for the percentiles (reps x (3 + 4 x the k every task can be scored at)).
 */
export const BOOTSTRAP_LIMITS = { draws: 5_000_000_000, replicateValues: 100_000_000 } as const;

/** The most replicates a report over `tasks` tasks and `scoredKs` values of k stays within BOOTSTRAP_LIMITS with. */
export function mostReps(tasks: number, scoredKs: number): number {
  return Math.min(
    Math.floor(BOOTSTRAP_LIMITS.draws / tasks),
    Math.floor(BOOTSTRAP_LIMITS.replicateValues / (3 + 4 * scoredKs)),
  );
}

/**
 * Means over the tasks, in task order: `ofCounts` of a value of n and c only, computed once per
 * distinct (n, c); `share` of the tasks `test` holds for.
 */
function taskMeans(profiles: readonly TaskProfile[]) {
  const { classes, classOf } = classesBy(profiles, ({ trials, successes }) => `${trials},${successes}`);
  return {
    ofCounts(perTask: (trials: number, successes: number) => number): number {
      const values = Float64Array.from(classes, ({ trials, successes }) => perTask(trials, successes));
      let total = 0;
      for (let j = 0; j < classOf.length; j++) total += values[classOf[j]!]!;
      return total / classOf.length;
    },
    share(test: (profile: TaskProfile) => boolean): number {
      let total = 0;
      for (const profile of profiles) if (test(profile)) total++;
      return total / profiles.length;
    },
  };
}

/** An estimate with the task-level interval of its replicate values, if any. */
type Interval = (estimate: number, means: Float64Array | undefined) => Estimate;

/**
 * The percentile interval of replicate values over `tasks` tasks, none without replicates, or
 * the exact interval over the tasks where the bootstrap has no spread (`withoutCollapse`).
 */
function taskInterval(tasks: number, level: number): Interval {
  return (estimate, means) => {
    if (means === undefined) return { estimate, low: null, high: null };
    const { low, high, method } = withoutCollapse(percentileInterval(means, level), estimate, {
      units: tasks,
      unit: 'tasks',
      level,
    });
    return method === 'percentile'
      ? { estimate, low, high }
      : { estimate, low, high, method: 'exact over tasks' };
  };
}

/** The ANOVA rho and Kish's design effect at the mean task size, or null where they do not exist. */
function clustering(counts: { successes: number[]; trials: number[] }) {
  const rho = orNull(() => intraclassCorrelation(counts));
  if (rho === null) return { rho: null, effect: null };
  const meanSize = counts.trials.reduce((a, b) => a + b, 0) / counts.trials.length;
  const inRange = meanSize <= 1 || rho >= -1 / (meanSize - 1);
  return { rho, effect: inRange ? designEffect(meanSize, rho) : null };
}

/** The pooled share S / M with its task-level interval and, from 2 episodes, its episode-level interval and SE. */
function pooledShare(
  counts: { successes: number[]; trials: number[] },
  equalsMeanAccuracy: boolean,
  taskLevel: (share: number) => Estimate,
  { reps, level, rng }: { reps: number; level: number; rng: RandomSource },
) {
  const successes = counts.successes.reduce((a, b) => a + b, 0);
  const episodes = counts.trials.reduce((a, b) => a + b, 0);
  const { estimate, ...taskLevelInterval } = taskLevel(successes / episodes);
  const episodeLevel = episodes >= 2 ? episodeBootstrapCI(counts, { reps, level, rng }) : undefined;
  return {
    estimate,
    successes,
    episodes,
    equalsMeanAccuracy,
    taskLevel: taskLevelInterval,
    episodeLevel: {
      low: episodeLevel?.low ?? null,
      high: episodeLevel?.high ?? null,
      ...(episodeLevel?.method === 'exact over episodes' ? { method: episodeLevel.method } : {}),
    },
    episodeSE: episodes >= 2 ? episodeStandardError(counts) : null,
  };
}

/**
 * The metrics of each k of `ks`, null at a k not in `scoredKs` (the k every task can be scored
 * at, whose replicate values `replicates` holds in their order).
 */
function metricsAtK(
  ks: readonly number[],
  scoredKs: readonly number[],
  means: ReturnType<typeof taskMeans>,
  meanAccuracy: number,
  interval: Interval,
  replicates: ReplicateMeans | undefined,
) {
  const at = <T>(value: (k: number, index: number) => T): Record<string, T | null> =>
    Object.fromEntries(ks.map((k) => [k, scoredKs.includes(k) ? value(k, scoredKs.indexOf(k)) : null]));
  const estimated = (estimate: (k: number) => number, values: Float64Array[] | undefined) =>
    at((k, index) => interval(estimate(k), values?.[index]));
  return {
    passAtK: estimated((k) => means.ofCounts((n, c) => passAtK(n, c, k)), replicates?.passAtK),
    prefixPassAtK: estimated((k) => means.share((task) => task.firstSuccess < k), replicates?.prefixPassAtK),
    allCorrectAtK: estimated(
      (k) => means.share((task) => task.firstFailure >= k),
      replicates?.prefixAllCorrectAtK,
    ),
    unbiasedAllCorrectAtK: estimated(
      (k) => means.ofCounts((n, c) => allCorrectAtK(n, c, k)),
      replicates?.allCorrectAtK,
    ),
    // Beyond a task's samples the formula in p-hat still gives a number, but no data back it.
    plugInPassAtK: at((k) => means.ofCounts((n, c) => plugInPassAtK(n, c, k))),
    pooledPlugInPassAtK: at((k) => 1 - (1 - meanAccuracy) ** k),
  };
}

/** What makes a report's numbers less than they look: too few tasks, tasks of unequal sizes. */
function metricsWarnings(tasks: number, minSamples: number, maxSamples: number): string[] {
  const warnings: string[] = [];
  if (tasks === 1)
    warnings.push(
      '1 task: a task-level interval and a clustered standard error do not exist (shown as n/a); evaluate more tasks',
    );
  else if (tasks < FEW_TASKS)
    warnings.push(
      `only ${tasks} tasks: task-level intervals from fewer than ${FEW_TASKS} tasks are unreliable (the bootstrap cannot see the spread of tasks it was not given)`,
    );
  if (minSamples !== maxSamples)
    warnings.push(
      `tasks have ${minSamples} to ${maxSamples} samples: the task mean (each task weighs 1/N) and the pooled share (each sample weighs 1/M) are different numbers, each shown with its own intervals`,
    );
  return warnings;
}

/**
 * Every metric of METRICS.md on one batch (tasks x samples, generation order), each with a
 * task-level percentile bootstrap interval over one shared set of resampled tasks (null below 2
 * tasks), plus the checks k <= n, pass^k <= pass@1 <= pass@k and monotone in k. The pooled share
 * S / M has its own intervals (it is the task mean only when every task has the same n); the
 * plug-in pass@k values are shown only to show their error; a statistic at k is null where some
 * task has fewer than k samples.
 */
export function computeMetrics(
  tasks: readonly TaskOutcomes[],
  options: { ks: readonly number[]; level?: number; reps?: number; rng: RandomSource },
) {
  const { ks, level = 0.95, reps = DEFAULT_REPLICATES, rng } = options;
  if (tasks.length === 0) throw new StatisticsError('no tasks');
  const sortedKs = [...new Set(ks)].sort((a, b) => a - b);
  const profiles = tasks.map(({ outcomes }) => taskProfile(outcomes));
  const sizes = profiles.map(({ trials }) => trials);
  // a loop, not Math.min(...sizes): a spread of some 100,000 tasks overflows the stack
  const minSamples = sizes.reduce((a, b) => Math.min(a, b), Infinity);
  const maxSamples = sizes.reduce((a, b) => Math.max(a, b), 0);
  const counts = { successes: profiles.map(({ successes }) => successes), trials: sizes };
  const means = taskMeans(profiles);
  const resampled = tasks.length >= 2;
  // the k that every task can be scored at; the others give null
  const scoredKs = sortedKs.filter((k) => k <= minSamples);
  const replicates = resampled ? resampleMeans(profiles, scoredKs, { reps, rng }) : undefined;
  const interval = taskInterval(tasks.length, level);
  const accuracy = means.ofCounts((n, c) => c / n);
  const meanAccuracy = interval(accuracy, replicates?.meanAccuracy);
  const { rho, effect } = clustering(counts);
  const report = {
    tasks: tasks.length,
    samplesPerTask: { min: minSamples, max: maxSamples },
    level,
    reps,
    meanAccuracy: {
      ...meanAccuracy,
      interval: 'task-level' as const,
      clusteredSE: resampled ? clusteredStandardError(counts) : null,
    },
    pooledShare: pooledShare(
      counts,
      minSamples === maxSamples,
      (share) => interval(share, replicates?.pooledShare),
      { reps, level, rng },
    ),
    firstSampleAccuracy: interval(
      means.share(({ firstSuccess }) => firstSuccess === 0),
      replicates?.firstSampleAccuracy,
    ),
    ...metricsAtK(sortedKs, scoredKs, means, meanAccuracy.estimate, interval, replicates),
    intraclassCorrelation: rho,
    designEffect: effect,
    // null where it does not exist: fewer than 2 tasks, a task of 1 sample, every sample alike
    chapterIntraclassCorrelation: orNull(() => taskVarianceIntraclassCorrelation(counts)),
    warnings: metricsWarnings(tasks.length, minSamples, maxSamples),
  };
  return { ...report, checks: [...sampleChecks(tasks, sortedKs), ...familyChecks(report, sortedKs)] };
}

export type MetricsReport = ReturnType<typeof computeMetrics>;

/**
 * The mean of graded scores' task means (as Inspect's and lm-evaluation-harness's mean), with its
 * task-level percentile bootstrap interval and standard error s / sqrt(N), both null below 2 tasks.
 * The interval is null too where every task has the same mean (`allAlike`): graded scores need not
 * lie in [0, 1], so no exact interval over the tasks stands in, as it does for pass rates.
 * @example meanScoreEstimate([0.5, 1, 0.25], { level: 0.95, reps: 2000, rng: new Rng(0) })
 */
export function meanScoreEstimate(
  taskMeans: readonly number[],
  { level = 0.95, reps = DEFAULT_REPLICATES, rng }: { level?: number; reps?: number; rng: RandomSource },
): Estimate & { standardError: number | null } {
  if (taskMeans.length === 0) throw new StatisticsError('no tasks');
  if (taskMeans.length < 2) return { estimate: mean(taskMeans), low: null, high: null, standardError: null };
  const standardError = meanStandardError(taskMeans);
  if (allAlike(taskMeans)) return { estimate: mean(taskMeans), low: null, high: null, standardError };
  const { low, high } = bootstrapCI(taskMeans, { reps, level, rng });
  return { estimate: mean(taskMeans), low, high, standardError };
}

const TOLERANCE = 1e-12;

/** k <= n at each k: how many tasks have fewer than k samples, the first few named in file order. */
function sampleChecks(tasks: readonly TaskOutcomes[], ks: readonly number[]) {
  return ks.map((k) => {
    const tooShort = tasks.filter(({ outcomes }) => outcomes.length < k);
    return {
      name: `k=${k} <= n`,
      ok: tooShort.length === 0,
      detail:
        tooShort.length === 0
          ? `every task has at least ${count(k, 'sample')}`
          : `${count(tooShort.length, 'task has', 'tasks have')} fewer than ${count(k, 'sample')}, so pass@${k} is not computed: ${tooShort
              .slice(0, 8)
              .map(({ task, outcomes }) => `${task} (${outcomes.length})`)
              .join(', ')}`,
    };
  });
}

type AtK = Record<string, Estimate | null>;

/** pass^k <= pass@1 <= pass@k, and monotone in k, in the prefix and in the unbiased family. */
function familyChecks(
  report: Record<'allCorrectAtK' | 'prefixPassAtK' | 'unbiasedAllCorrectAtK' | 'passAtK', AtK> &
    Record<'firstSampleAccuracy' | 'meanAccuracy', Estimate>,
  ks: readonly number[],
) {
  const pairs: Array<[string, AtK, number, AtK]> = [
    ['prefix', report.allCorrectAtK, report.firstSampleAccuracy.estimate, report.prefixPassAtK],
    ['unbiased', report.unbiasedAllCorrectAtK, report.meanAccuracy.estimate, report.passAtK],
  ];
  return pairs.flatMap(([family, allCorrect, passAt1, passAt]) => {
    // Checked where computed: a k no task can be scored at is named by the k <= n check instead.
    const computed = ks.filter((k) => passAt[k] != null && allCorrect[k] != null);
    if (computed.length === 0) return [];
    const bad = computed.filter((k) => {
      const [low, high] = [allCorrect[k]!, passAt[k]!];
      return !(low.estimate <= passAt1 + TOLERANCE && passAt1 <= high.estimate + TOLERANCE);
    });
    const steps = computed.slice(1).map((k, i) => [k, computed[i]!] as const);
    const of = (values: AtK, k: number) => values[k]!.estimate;
    const rising = steps.every(([k, before]) => of(passAt, k) + TOLERANCE >= of(passAt, before));
    const falling = steps.every(([k, before]) => of(allCorrect, k) <= of(allCorrect, before) + TOLERANCE);
    return [
      {
        name: `${family}: pass^k <= pass@1 <= pass@k`,
        ok: bad.length === 0,
        detail: bad.length === 0 ? `holds at k = ${computed.join(', ')}` : `fails at k = ${bad.join(', ')}`,
      },
      {
        name: `${family}: monotone in k`,
        ok: rising && falling,
        detail:
          rising && falling
            ? 'pass@k rises and pass^k falls with k'
            : `pass@k ${rising ? 'rises' : 'does NOT rise'}, pass^k ${falling ? 'falls' : 'does NOT fall'} with k`,
      },
    ];
  });
}
