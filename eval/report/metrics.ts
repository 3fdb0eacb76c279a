import { allCorrectAtK } from '../allCorrectAtK.ts';
import { episodeBootstrapCI } from '../clusterBootstrap.ts';
import {
  clusteredStandardError,
  designEffect,
  episodeStandardError,
  intraclassCorrelation,
} from '../clustered.ts';
import type { TaskOutcomes } from '../io/outcomes.ts';
import { passAtK } from '../passAtK.ts';
import { plugInPassAtK } from '../plugInPassAtK.ts';
import { prefixAllCorrectAtK, prefixPassAtK } from '../prefix.ts';
import type { RandomSource } from '../randomSource.ts';
import { resampledInterval, resampledRatioInterval, resampleIndices, type Estimate } from './resample.ts';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** Below this many tasks a task-level interval is shown but flagged as unreliable. */
export const FEW_TASKS = 5;

export interface MetricsReport {
  tasks: number;
  samplesPerTask: { min: number; max: number };
  level: number;
  reps: number;
  /** Mean over tasks of c_j / n_j, with its task-level interval and clustered SE (null below 2 tasks). */
  meanAccuracy: Estimate & { interval: 'task-level'; clusteredSE: number | null };
  /**
   * The pooled share S / M of passing samples, with a task-level (ratio over resampled tasks) and
   * an episode-level interval and the episode SE. Equal to the task mean when every task has the
   * same n; otherwise a different number, and each interval belongs to its own estimate.
   */
  pooledShare: {
    estimate: number;
    successes: number;
    episodes: number;
    equalsMeanAccuracy: boolean;
    taskLevel: { low: number | null; high: number | null };
    episodeLevel: { low: number | null; high: number | null };
    episodeSE: number | null;
  };
  firstSampleAccuracy: Estimate;
  passAtK: Record<string, Estimate | null>;
  prefixPassAtK: Record<string, Estimate | null>;
  allCorrectAtK: Record<string, Estimate | null>;
  unbiasedAllCorrectAtK: Record<string, Estimate | null>;
  /** Mean over tasks of 1 - (1 - c_j/n_j)^k: biased low, shown only to show the error. */
  plugInPassAtK: Record<string, number>;
  /** 1 - (1 - mean accuracy)^k: wrong again when tasks differ in difficulty. */
  pooledPlugInPassAtK: Record<string, number>;
  intraclassCorrelation: number | null;
  designEffect: number | null;
  /** What makes a number above less than it looks: too few tasks, uneven tasks. */
  warnings: string[];
  checks: Check[];
}

/** Applies `perTask` to every task, or null when some task has fewer than k samples. */
function perTaskValues(
  tasks: readonly TaskOutcomes[],
  k: number,
  perTask: (outcomes: Uint8Array, c: number) => number,
): Float64Array | null {
  if (tasks.some(({ outcomes }) => outcomes.length < k)) return null;
  return Float64Array.from(tasks, ({ outcomes }) =>
    perTask(
      outcomes,
      outcomes.reduce((sum, value) => sum + value, 0),
    ),
  );
}

/**
 * The ANOVA rho and Kish's design effect at the mean task size, or null where they do not exist:
 * intraclassCorrelation refuses (RangeError) fewer than 2 tasks, no task with 2+ samples, and
 * samples that all pass or all fail.
 */
function clustering(counts: { successes: number[]; trials: number[] }): {
  rho: number | null;
  effect: number | null;
} {
  const sizes = counts.trials;
  let rho: number;
  try {
    rho = intraclassCorrelation(counts);
  } catch (error) {
    if (error instanceof RangeError) return { rho: null, effect: null };
    throw error;
  }
  const meanSize = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  const inRange = meanSize <= 1 || rho >= -1 / (meanSize - 1);
  return { rho, effect: inRange ? designEffect(meanSize, rho) : null };
}

/**
 * Every metric of METRICS.md on one batch (tasks x samples, generation order), each with a
 * task-level (cluster) percentile bootstrap interval over one shared set of resampled tasks, plus
 * the consistency checks: k <= n, pass^k <= pass@1 <= pass@k in each family, monotone in k.
 * Below 2 tasks no task-level interval or clustered SE exists: they are null, with a warning
 * (and one below FEW_TASKS tasks that the intervals are unreliable).
 */
export function computeMetrics(
  tasks: readonly TaskOutcomes[],
  {
    ks,
    level = 0.95,
    reps = 2000,
    rng,
  }: { ks: readonly number[]; level?: number; reps?: number; rng: RandomSource },
): MetricsReport {
  if (tasks.length === 0) throw new RangeError('no tasks');
  const sortedKs = [...new Set(ks)].sort((a, b) => a - b);
  const sizes = tasks.map(({ outcomes }) => outcomes.length);
  // a loop, not Math.min(...sizes): a spread of some 100,000 tasks overflows the stack
  const minSamples = sizes.reduce((a, b) => Math.min(a, b), Infinity);
  const maxSamples = sizes.reduce((a, b) => Math.max(a, b), 0);
  const successes = tasks.map(({ outcomes }) => outcomes.reduce((sum, value) => sum + value, 0));
  const counts = { successes, trials: sizes };
  const resampled = tasks.length >= 2;
  const indices = resampled ? resampleIndices(tasks.length, reps, rng) : new Int32Array(0);
  const interval = (values: Float64Array | null): Estimate | null => {
    if (values === null) return null;
    if (resampled) return resampledInterval(values, indices, level);
    return { estimate: values.reduce((a, b) => a + b, 0) / values.length, low: null, high: null };
  };
  const rates = Float64Array.from(tasks, ({ outcomes }, j) => (successes[j] as number) / outcomes.length);
  const meanAccuracy = interval(rates) as Estimate;
  const firstSampleAccuracy = interval(
    Float64Array.from(tasks, ({ outcomes }) => outcomes[0] as number),
  ) as Estimate;
  const totalSuccesses = successes.reduce((a, b) => a + b, 0);
  const episodes = sizes.reduce((a, b) => a + b, 0);
  const pooledTaskLevel = resampled
    ? resampledRatioInterval(successes, sizes, indices, level)
    : { low: null, high: null };
  const episodeLevel =
    episodes >= 2 ? episodeBootstrapCI(counts, { reps, level, rng }) : { low: null, high: null };
  const { rho, effect } = clustering(counts);
  const warnings: string[] = [];
  if (tasks.length === 1)
    warnings.push(
      '1 task: a task-level interval and a clustered standard error do not exist (shown as n/a); evaluate more tasks',
    );
  else if (tasks.length < FEW_TASKS)
    warnings.push(
      `only ${tasks.length} tasks: task-level intervals from fewer than ${FEW_TASKS} tasks are unreliable (the bootstrap cannot see the spread of tasks it was not given)`,
    );
  if (minSamples !== maxSamples) {
    warnings.push(
      `tasks have ${minSamples} to ${maxSamples} samples: the task mean (each task weighs 1/N) and the pooled share (each sample weighs 1/M) are different numbers, each shown with its own intervals`,
    );
  }
  const report: MetricsReport = {
    tasks: tasks.length,
    samplesPerTask: { min: minSamples, max: maxSamples },
    level,
    reps,
    meanAccuracy: {
      ...meanAccuracy,
      interval: 'task-level',
      clusteredSE: resampled ? clusteredStandardError(counts) : null,
    },
    pooledShare: {
      estimate: totalSuccesses / episodes,
      successes: totalSuccesses,
      episodes,
      equalsMeanAccuracy: minSamples === maxSamples,
      taskLevel: { low: pooledTaskLevel.low, high: pooledTaskLevel.high },
      episodeLevel: { low: episodeLevel.low, high: episodeLevel.high },
      episodeSE: episodes >= 2 ? episodeStandardError(counts) : null,
    },
    firstSampleAccuracy,
    passAtK: {},
    prefixPassAtK: {},
    allCorrectAtK: {},
    unbiasedAllCorrectAtK: {},
    plugInPassAtK: {},
    pooledPlugInPassAtK: {},
    intraclassCorrelation: rho,
    designEffect: effect,
    warnings,
    checks: [],
  };
  for (const k of sortedKs) {
    report.passAtK[k] = interval(perTaskValues(tasks, k, (outcomes, c) => passAtK(outcomes.length, c, k)));
    report.prefixPassAtK[k] = interval(perTaskValues(tasks, k, (outcomes) => prefixPassAtK(outcomes, k)));
    report.allCorrectAtK[k] = interval(
      perTaskValues(tasks, k, (outcomes) => prefixAllCorrectAtK(outcomes, k)),
    );
    report.unbiasedAllCorrectAtK[k] = interval(
      perTaskValues(tasks, k, (outcomes, c) => allCorrectAtK(outcomes.length, c, k)),
    );
    report.plugInPassAtK[k] =
      tasks.reduce(
        (sum, { outcomes }, j) => sum + plugInPassAtK(outcomes.length, successes[j] as number, k),
        0,
      ) / tasks.length;
    report.pooledPlugInPassAtK[k] = 1 - (1 - meanAccuracy.estimate) ** k;
  }
  report.checks = consistencyChecks(report, tasks, sortedKs);
  return report;
}

const TOLERANCE = 1e-12;

function consistencyChecks(
  report: MetricsReport,
  tasks: readonly TaskOutcomes[],
  ks: readonly number[],
): Check[] {
  const checks: Check[] = [];
  for (const k of ks) {
    const short = tasks.filter(({ outcomes }) => outcomes.length < k);
    checks.push({
      name: `k=${k} <= n`,
      ok: short.length === 0,
      detail:
        short.length === 0
          ? `every task has at least ${k} samples`
          : `${short.length} task(s) have fewer than ${k} samples, so pass@${k} is not computed: ${short
              .slice(0, 8)
              .map(({ task, outcomes }) => `${task} (${outcomes.length})`)
              .join(', ')}`,
    });
  }
  const pairs: Array<[string, Record<string, Estimate | null>, number, Record<string, Estimate | null>]> = [
    ['prefix', report.allCorrectAtK, report.firstSampleAccuracy.estimate, report.prefixPassAtK],
    ['unbiased', report.unbiasedAllCorrectAtK, report.meanAccuracy.estimate, report.passAtK],
  ];
  for (const [family, allCorrect, passAt1, passAt] of pairs) {
    const bad = ks.filter((k) => {
      const low = allCorrect[k];
      const high = passAt[k];
      return (
        low != null &&
        high != null &&
        !(low.estimate <= passAt1 + TOLERANCE && passAt1 <= high.estimate + TOLERANCE)
      );
    });
    checks.push({
      name: `${family}: pass^k <= pass@1 <= pass@k`,
      ok: bad.length === 0,
      detail: bad.length === 0 ? `holds at k = ${ks.join(', ')}` : `fails at k = ${bad.join(', ')}`,
    });
    const computed = ks.filter((k) => passAt[k] != null);
    const rising = computed.every(
      (k, i) =>
        i === 0 ||
        (passAt[k] as Estimate).estimate + TOLERANCE >=
          (passAt[computed[i - 1] as number] as Estimate).estimate,
    );
    const falling = computed.every(
      (k, i) =>
        i === 0 ||
        (allCorrect[k] as Estimate).estimate <=
          (allCorrect[computed[i - 1] as number] as Estimate).estimate + TOLERANCE,
    );
    checks.push({
      name: `${family}: monotone in k`,
      ok: rising && falling,
      detail:
        rising && falling
          ? 'pass@k rises and pass^k falls with k'
          : `pass@k ${rising ? 'rises' : 'does NOT rise'}, pass^k ${falling ? 'falls' : 'does NOT fall'} with k`,
    });
  }
  return checks;
}
