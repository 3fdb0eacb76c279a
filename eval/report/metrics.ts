import { allCorrectAtK } from '../allCorrectAtK.ts';
import { episodeBootstrapCI } from '../clusterBootstrap.ts';
import { clusteredStandardError, designEffect, episodeStandardError, intraclassCorrelation } from '../clustered.ts';
import type { TaskOutcomes } from '../io/outcomes.ts';
import { passAtK } from '../passAtK.ts';
import { plugInPassAtK } from '../plugInPassAtK.ts';
import { prefixAllCorrectAtK, prefixPassAtK } from '../prefix.ts';
import type { RandomSource } from '../randomSource.ts';
import { resampledInterval, resampleIndices, type Estimate } from './resample.ts';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface MetricsReport {
  tasks: number;
  samplesPerTask: { min: number; max: number };
  level: number;
  reps: number;
  meanAccuracy: Estimate & { episodeLevel: Estimate; clusteredSE: number; episodeSE: number };
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
  checks: Check[];
}

/** Applies `perTask` to every task, or null when some task has fewer than k samples. */
function perTaskValues(tasks: readonly TaskOutcomes[], k: number, perTask: (outcomes: Uint8Array, c: number) => number): Float64Array | null {
  if (tasks.some(({ outcomes }) => outcomes.length < k)) return null;
  return Float64Array.from(tasks, ({ outcomes }) => perTask(outcomes, outcomes.reduce((sum, value) => sum + value, 0)));
}

/**
 * Every metric of METRICS.md on one batch (tasks x samples, generation order), each with a
 * task-level (cluster) percentile bootstrap interval over one shared set of resampled tasks, plus
 * the consistency checks: k <= n, pass^k <= pass@1 <= pass@k in each family, monotone in k.
 */
export function computeMetrics(tasks: readonly TaskOutcomes[], { ks, level = 0.95, reps = 2000, rng }: { ks: readonly number[]; level?: number; reps?: number; rng: RandomSource }): MetricsReport {
  if (tasks.length === 0) throw new RangeError('no tasks');
  const sortedKs = [...new Set(ks)].sort((a, b) => a - b);
  const sizes = tasks.map(({ outcomes }) => outcomes.length);
  const minSamples = Math.min(...sizes);
  const successes = tasks.map(({ outcomes }) => outcomes.reduce((sum, value) => sum + value, 0));
  const counts = { successes, trials: sizes };
  const indices = resampleIndices(tasks.length, reps, rng);
  const interval = (values: Float64Array | null) => (values === null ? null : resampledInterval(values, indices, level));
  const rates = Float64Array.from(tasks, ({ outcomes }, j) => (successes[j] as number) / outcomes.length);
  const meanAccuracy = resampledInterval(rates, indices, level);
  const firstSampleAccuracy = resampledInterval(Float64Array.from(tasks, ({ outcomes }) => outcomes[0] as number), indices, level);
  const report: MetricsReport = {
    tasks: tasks.length,
    samplesPerTask: { min: minSamples, max: Math.max(...sizes) },
    level,
    reps,
    meanAccuracy: { ...meanAccuracy, episodeLevel: episodeBootstrapCI(counts, { reps, level, rng }), clusteredSE: clusteredStandardError(counts), episodeSE: episodeStandardError(counts) },
    firstSampleAccuracy,
    passAtK: {},
    prefixPassAtK: {},
    allCorrectAtK: {},
    unbiasedAllCorrectAtK: {},
    plugInPassAtK: {},
    pooledPlugInPassAtK: {},
    intraclassCorrelation: null,
    designEffect: null,
    checks: [],
  };
  if (tasks.length >= 2 && minSamples >= 2) {
    const rho = intraclassCorrelation(counts);
    if (!Number.isNaN(rho)) {
      report.intraclassCorrelation = rho;
      report.designEffect = designEffect(sizes.reduce((a, b) => a + b, 0) / sizes.length, rho);
    }
  }
  for (const k of sortedKs) {
    report.passAtK[k] = interval(perTaskValues(tasks, k, (outcomes, c) => passAtK(outcomes.length, c, k)));
    report.prefixPassAtK[k] = interval(perTaskValues(tasks, k, (outcomes) => prefixPassAtK(outcomes, k)));
    report.allCorrectAtK[k] = interval(perTaskValues(tasks, k, (outcomes) => prefixAllCorrectAtK(outcomes, k)));
    report.unbiasedAllCorrectAtK[k] = interval(perTaskValues(tasks, k, (outcomes, c) => allCorrectAtK(outcomes.length, c, k)));
    report.plugInPassAtK[k] = tasks.reduce((sum, { outcomes }, j) => sum + plugInPassAtK(outcomes.length, successes[j] as number, k), 0) / tasks.length;
    report.pooledPlugInPassAtK[k] = 1 - (1 - meanAccuracy.estimate) ** k;
  }
  report.checks = consistencyChecks(report, tasks, sortedKs);
  return report;
}

const TOLERANCE = 1e-12;

function consistencyChecks(report: MetricsReport, tasks: readonly TaskOutcomes[], ks: readonly number[]): Check[] {
  const checks: Check[] = [];
  for (const k of ks) {
    const short = tasks.filter(({ outcomes }) => outcomes.length < k);
    checks.push({
      name: `k=${k} <= n`,
      ok: short.length === 0,
      detail: short.length === 0 ? `every task has at least ${k} samples` : `${short.length} task(s) have fewer than ${k} samples, so pass@${k} is not computed: ${short.slice(0, 8).map(({ task, outcomes }) => `${task} (${outcomes.length})`).join(', ')}`,
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
      return low != null && high != null && !(low.estimate <= passAt1 + TOLERANCE && passAt1 <= high.estimate + TOLERANCE);
    });
    checks.push({ name: `${family}: pass^k <= pass@1 <= pass@k`, ok: bad.length === 0, detail: bad.length === 0 ? `holds at k = ${ks.join(', ')}` : `fails at k = ${bad.join(', ')}` });
    const computed = ks.filter((k) => passAt[k] != null);
    const rising = computed.every((k, i) => i === 0 || (passAt[k] as Estimate).estimate + TOLERANCE >= (passAt[computed[i - 1] as number] as Estimate).estimate);
    const falling = computed.every((k, i) => i === 0 || (allCorrect[k] as Estimate).estimate <= (allCorrect[computed[i - 1] as number] as Estimate).estimate + TOLERANCE);
    checks.push({ name: `${family}: monotone in k`, ok: rising && falling, detail: rising && falling ? 'pass@k rises and pass^k falls with k' : `pass@k ${rising ? 'rises' : 'does NOT rise'}, pass^k ${falling ? 'falls' : 'does NOT fall'} with k` });
  }
  return checks;
}
