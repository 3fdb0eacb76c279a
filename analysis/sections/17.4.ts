/**
 * The numbers of 17.4 (experiments/17.4.ts): seed noise against evaluation noise from repeated
 * evaluations of every seed's checkpoints, a paired comparison of two checkpoints on common
 * random numbers, and the sample sizes a comparison needs (power).
 */
import type { Evaluation } from '../../agent/index.ts';
import {
  DEFAULT_REPLICATES,
  mean,
  pairedBootstrapDiff,
  pairedStandardError,
  pearsonCorrelation,
  requiredUnits,
  sampleStandardDeviation,
  sampleVariance,
  unpairedStandardError,
} from '../../eval/index.ts';
import type { Rng } from '../../lib/rng.ts';

/** One checkpoint's two independent evaluations (their pass@1). */
interface Repeat {
  trainingSeed: number;
  step: number;
  first: number;
  second: number;
}

const rates = (perTask: ReadonlyArray<{ successes: number; episodes: number }>) =>
  perTask.map((count) => count.successes / count.episodes);

/**
 * At each step, the SD of one evaluation (from the repeats' differences) against the binomial SD
 * of `episodesPerEvaluation` episodes, the seed means and the training-noise SD by the method of moments.
 */
function noiseRows(
  repeats: ReadonlyArray<Repeat & { difference: number; mean: number }>,
  episodesPerEvaluation: number,
) {
  return [30, 80].map((step) => {
    const own = repeats.filter((row) => row.step === step);
    // Var(one evaluation) = E[(a - b)^2] / 2; the seed means average two evaluations, so their variance holds evalVar / 2 of it.
    const evalVariance = mean(own.map((row) => row.difference ** 2)) / 2;
    const seedMeans = own.map((row) => row.mean);
    const overall = mean(seedMeans);
    const trainingVariance = Math.max(0, sampleVariance(seedMeans) - evalVariance / 2);
    return {
      step,
      evalSD: Math.sqrt(evalVariance),
      binomialSD: Math.sqrt((overall * (1 - overall)) / episodesPerEvaluation),
      seedMeans,
      seedMeanSD: sampleStandardDeviation(seedMeans),
      trainingSD: Math.sqrt(trainingVariance),
      maxRepeatDifference: Math.max(...own.map((row) => Math.abs(row.difference))),
    };
  });
}

/** Step 60 against step 80 on the same episodes: the difference with its paired bootstrap interval (stream `17.4/paired`), both SEs and the per-task correlation. */
function pairedComparison(early: Evaluation, late: Evaluation, rng: Rng) {
  const [a, b] = [rates(early.perTask), rates(late.perTask)];
  const interval = pairedBootstrapDiff(a, b, { reps: DEFAULT_REPLICATES, rng: rng.fork('17.4/paired') });
  return {
    step60: early.passAt1,
    step80: late.passAt1,
    difference: late.passAt1 - early.passAt1,
    low: interval.low,
    high: interval.high,
    pairedSE: pairedStandardError(a, b),
    unpairedSE: unpairedStandardError(a, b),
    correlation: pearsonCorrelation(a, b),
  };
}

/**
 * What 17.4 reports: the repeats with their differences and means, the noise at steps 30 and 80,
 * the paired comparison of `early` (step 60) and `late` (step 80), and power from the measured
 * spreads (two-sided alpha 0.05, power 0.8).
 */
export function comparingRunsNumbers({
  repeats: evaluated,
  episodesPerEvaluation,
  early,
  late,
  rng,
}: {
  repeats: readonly Repeat[];
  episodesPerEvaluation: number;
  early: Evaluation;
  late: Evaluation;
  rng: Rng;
}) {
  const repeats = evaluated.map((row) => ({
    ...row,
    difference: row.second - row.first,
    mean: (row.first + row.second) / 2,
  }));
  const noise = noiseRows(repeats, episodesPerEvaluation);
  const paired = pairedComparison(early, late, rng);
  const [a, b] = [rates(early.perTask), rates(late.perTask)];
  const differenceSD = sampleStandardDeviation(a.map((value, j) => (b[j] as number) - value));
  const taskSD = sampleStandardDeviation(b);
  // Seeds: the spread of seed means at step 80 (our run's end) and at step 30 (where the book measured it).
  const [seedSDStep30, seedSDStep80] = noise.map((row) => row.seedMeanSD) as [number, number];
  const units = (sigma: number, delta: number, design: 'paired' | 'unpaired' | 'seeds') =>
    sigma > 0 ? requiredUnits({ sigma, delta, design }).units : null;
  const power = [0.02, 0.05].map((delta) => ({
    delta,
    pairedTasks: units(differenceSD, delta, 'paired'),
    unpairedTasksPerGroup: units(taskSD, delta, 'unpaired'),
    seedsPerGroupStep80: units(seedSDStep80, delta, 'seeds'),
    seedsPerGroupStep30: units(seedSDStep30, delta, 'seeds'),
  }));
  // What pairing buys: the unpaired SE over the paired one, and the unpaired design's tasks per
  // group over the paired design's tasks at each difference (the book: 0.132 / 0.023, 533 / 17).
  const pairing = {
    seRatio: paired.unpairedSE / paired.pairedSE,
    tasksRatio: power.map(({ delta, pairedTasks, unpairedTasksPerGroup }) => ({
      delta,
      ratio:
        pairedTasks === null || unpairedTasksPerGroup === null ? null : unpairedTasksPerGroup / pairedTasks,
    })),
  };
  return {
    repeats,
    noise,
    paired,
    power,
    pairing,
    spreads: { differenceSD, taskSD, seedSDStep80, seedSDStep30 },
  };
}

export type Numbers174 = ReturnType<typeof comparingRunsNumbers>;
