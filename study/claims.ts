import {
  binomialTestGreater,
  bootstrapCI,
  mean,
  passAtK,
  percentileOfSorted,
  performanceProfile,
  probabilityOfImprovement,
  sampleStandardDeviation,
  sampleVariance,
  stratifiedIqm,
  wilsonInterval,
} from '../eval/index.ts';
import { InputError } from '../lib/errors.ts';
import { Rng } from '../lib/rng.ts';
import { CHAPTER_STEPS } from './plan.ts';
import type { EvalOutput } from './job.ts';
import { evaluationOf, taskRates, type StudyResults } from './results.ts';

type Interval = { low: number; high: number };
/** How many seeds a claim holds in, with a Wilson 95% interval on the fraction. */
export interface SeedFraction {
  holds: number;
  seeds: number;
  fraction: number;
  wilson: Interval;
}

const fraction = (flags: readonly boolean[]): SeedFraction => {
  const holds = flags.filter(Boolean).length;
  return {
    holds,
    seeds: flags.length,
    fraction: holds / flags.length,
    wilson: wilsonInterval(holds, flags.length),
  };
};

/** Mean unbiased pass@k over tasks, k = 1..n. */
function meanCurve(evaluation: EvalOutput): number[] {
  const n = evaluation.episodes;
  return Array.from({ length: n }, (_, i) =>
    mean(evaluation.perTask.map((count) => passAtK(n, count.successes, i + 1))),
  );
}

/**
 * One-sided exact test that checkpoint `late` solves a task less often than `early`, on paired
 * episodes (every 'a' evaluation of a seed plays the same episodes): of the discordant episodes,
 * those only `early` solved ~ Binomial(discordant, 1/2) under no change (the exact McNemar test).
 */
export function pairedDropP(early: string, late: string): number {
  let onlyEarly = 0;
  let onlyLate = 0;
  for (let i = 0; i < early.length; i += 1) {
    if (early[i] === '1' && late[i] === '0') onlyEarly += 1;
    if (early[i] === '0' && late[i] === '1') onlyLate += 1;
  }
  return binomialTestGreater(onlyEarly, onlyEarly + onlyLate, 0.5);
}

/** The SD of seed means with evaluation noise taken out (17.4's method of moments), from two evaluations per seed. */
function trainingNoise(a: readonly number[], b: readonly number[]): { training: number; evaluation: number } {
  const evalVariance = mean(a.map((value, i) => (value - b[i]!) ** 2 / 2));
  const seedMeans = a.map((value, i) => (value + b[i]!) / 2);
  return {
    training: Math.sqrt(Math.max(0, sampleVariance(seedMeans) - evalVariance / 2)),
    evaluation: Math.sqrt(evalVariance),
  };
}

/**
 * Every chapter claim measured across the seeds of a study (issue: "the chapter's claims across
 * seeds"); a study must have evaluated all nine chapter steps. Pure: numbers in, numbers out,
 * the bootstraps drawn from `rng`.
 */
export function seedClaims(results: StudyResults, { rng, reps = 2000 }: { rng: Rng; reps?: number }) {
  const { plan, seeds, tasks } = results;
  const missing = CHAPTER_STEPS.filter((step) => !plan.measure.steps.includes(step));
  if (missing.length > 0)
    throw new InputError(
      `${plan.dir}: the claims need every chapter step; this study lacks ${missing.join(', ')}`,
    );
  const kMax = Math.min(32, plan.measure.episodes);
  const perSeed = seeds.map((seed) => {
    const at = (step: number, label = 'a') => evaluationOf(results, seed, step, label);
    const [base, early, late] = [meanCurve(at(0)), meanCurve(at(20)), meanCurve(at(80))];
    const overtakeK = late.findIndex((value, i) => i < kMax && base[i]! > value);
    const narrowing = tasks.flatMap((task, t) => {
      const outcomes = (step: number) => at(step).perTask[t]!.outcomes;
      const belowBase = pairedDropP(outcomes(0), outcomes(80));
      // The peak is chosen after looking, so its test is Bonferroni-corrected over the 7 steps between.
      const between = CHAPTER_STEPS.filter((step) => step > 0 && step < 80);
      const peakP = between.map((step) => pairedDropP(outcomes(step), outcomes(80)));
      const belowPeak = Math.min(...peakP);
      const peakStep = between[peakP.indexOf(belowPeak)]!;
      return belowBase < 0.05 || belowPeak < 0.05 / between.length
        ? [
            {
              task: task.name,
              base: at(0).perTask[t]!.successes,
              step80: at(80).perTask[t]!.successes,
              pBelowBase: belowBase,
              /** The step whose drop to step 80 is the most significant, and its successes. */
              peak: { step: peakStep, successes: at(peakStep).perTask[t]!.successes },
              pBelowPeak: belowPeak,
            },
          ]
        : [];
    });
    // 17.8: the held-out tasks split by variant (validation 5, test 4); selection by each side.
    const side = (evaluation: EvalOutput, variant: number) =>
      mean(
        evaluation.perTask
          .filter((_, t) => tasks[t]!.variant === variant)
          .map((count) => count.successes / count.episodes),
      );
    const byStep = CHAPTER_STEPS.map((step) => ({
      step,
      validation: side(at(step), 5),
      test: side(at(step), 4),
    }));
    const best = (key: 'validation' | 'test') =>
      byStep.reduce((top, row) => (row[key] > top[key] ? row : top));
    return {
      seed,
      passAt1: Object.fromEntries(CHAPTER_STEPS.map((step) => [step, at(step).passAt1])),
      overtakeK: overtakeK === -1 ? null : overtakeK + 1,
      step20AtOrAbove: early.every((value, i) => value >= Math.max(base[i]!, late[i]!) - 1e-12),
      narrowing,
      repeat: { 30: at(30, 'b').passAt1, 80: at(80, 'b').passAt1 },
      greedy: at(80, 'temperature-0').passAt1,
      hot: at(80, 'temperature-1.3').passAt1,
      selection: {
        byValidation: best('validation'),
        byTest: best('test'),
        inflation: best('test').test - best('validation').test,
      },
    };
  });

  const bootstrapSeeds = (statistic: (indices: number[]) => number, label: string): Interval => {
    const stream = rng.fork(label);
    const replicates = Float64Array.from({ length: reps }, () =>
      statistic(seeds.map(() => stream.int(seeds.length))),
    ).sort();
    return { low: percentileOfSorted(replicates, 0.025), high: percentileOfSorted(replicates, 0.975) };
  };
  const noiseAt = (step: 30 | 80) => {
    const a = perSeed.map((row) => row.passAt1[step]!);
    const b = perSeed.map((row) => row.repeat[step]);
    const { training, evaluation } = trainingNoise(a, b);
    const interval = bootstrapSeeds(
      (ix) =>
        trainingNoise(
          ix.map((i) => a[i]!),
          ix.map((i) => b[i]!),
        ).training,
      `noise/${step}`,
    );
    return { trainingSD: training, trainingSDInterval: interval, evaluationSD: evaluation };
  };
  const step80 = perSeed.map((row) => row.passAt1[80]!);
  const inflation = perSeed.map((row) => row.selection.inflation);
  const taus = Array.from({ length: 21 }, (_, i) => i / 20);
  const [rates0, rates20, rates80] = [taskRates(results, 0), taskRates(results, 20), taskRates(results, 80)];
  const poiStream = rng.fork('poi');
  const poiReplicates = Float64Array.from({ length: reps }, () => {
    // rliable's stratified bootstrap: runs resampled within each task, each algorithm on its own.
    const resample = (scores: number[][]) => {
      const columns = tasks.map((_, t) => seeds.map(() => scores[poiStream.int(seeds.length)]![t]!));
      return seeds.map((_, run) => columns.map((column) => column[run]!));
    };
    return probabilityOfImprovement(resample(rates80), resample(rates0));
  }).sort();
  const narrowingCounts = tasks.map((task) => ({
    task: task.name,
    seeds: perSeed.filter((row) => row.narrowing.some((entry) => entry.task === task.name)).length,
  }));
  return {
    seeds,
    episodes: plan.measure.episodes,
    perSeed,
    claims: {
      overtakesBy32: fraction(perSeed.map((row) => row.overtakeK !== null)),
      step20AtOrAbove: fraction(perSeed.map((row) => row.step20AtOrAbove)),
      narrowsATask: fraction(perSeed.map((row) => row.narrowing.length > 0)),
      greedyAtOrAbove: fraction(perSeed.map((row) => row.greedy >= row.passAt1[80]!)),
      hotBelow: fraction(perSeed.map((row) => row.hot < row.passAt1[80]!)),
    },
    narrowingCounts,
    noise: { step30: noiseAt(30), step80: noiseAt(80) },
    selectionInflation: {
      mean: mean(inflation),
      interval: bootstrapCI(inflation, { reps, rng: rng.fork('inflation') }),
    },
    step80: {
      mean: mean(step80),
      sd: sampleStandardDeviation(step80),
      min: Math.min(...step80),
      max: Math.max(...step80),
    },
    iqm: Object.fromEntries(
      ([0, 20, 80] as const).map((step, i) => [
        step,
        stratifiedIqm([rates0, rates20, rates80][i]!, { reps, rng: rng.fork(`iqm/${step}`) }),
      ]),
    ),
    profiles: {
      taus,
      byStep: {
        0: performanceProfile(rates0.flat(), taus),
        20: performanceProfile(rates20.flat(), taus),
        80: performanceProfile(rates80.flat(), taus),
      } as Record<0 | 20 | 80, number[]>,
    },
    probabilityOfImprovement: {
      estimate: probabilityOfImprovement(rates80, rates0),
      low: percentileOfSorted(poiReplicates, 0.025),
      high: percentileOfSorted(poiReplicates, 0.975),
    },
  };
}

export type SeedClaims = ReturnType<typeof seedClaims>;
