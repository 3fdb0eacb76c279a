/**
 * The numbers of exercise 6 (experiments/ex-6.ts): common random numbers, measured. Step 80 minus
 * step 60 of one run over repetitions, the two checkpoints sharing a generator or not: the SD of
 * the difference in each design, the 17.4 formula's parts and its prediction from each
 * repetition's own episodes, the ratio of the two SEs tested, and the generators' independence.
 */
import type { Evaluation } from '../../agent/index.ts';
import {
  correlationTest,
  mean,
  pitmanMorganTest,
  sampleStandardDeviation,
  sampleVariance,
} from '../../eval/index.ts';

/** Sample covariance of paired values (n - 1 denominator, as sampleVariance). */
function covariance(a: readonly number[], b: readonly number[]): number {
  const [ma, mb] = [mean(a), mean(b)];
  return a.reduce((sum, value, i) => sum + (value - ma) * ((b[i] as number) - mb), 0) / (a.length - 1);
}

/** Episode outcomes of one evaluation by task, in sample order. */
function outcomesByTask(evaluation: Evaluation): number[][] {
  return evaluation.perTask.map((count) =>
    evaluation.records
      .filter((record) => record.task === count.name)
      .map((record) => (record.success ? 1 : 0)),
  );
}

/**
 * The variance of pass@1(B) - pass@1(A) that one repetition's episodes predict, with T tasks of n
 * episodes: (1 / T^2) sum_t Var(d_t) / n, d_t the paired episode differences of task t when both
 * played the same episodes, else Var(A_t) / n + Var(B_t) / n (17.4's formula per task, Cov 0).
 */
function predictedVariance(a: number[][], b: number[][], paired: boolean): number {
  const perTask = a.map((episodesA, t) => {
    const episodesB = b[t]!;
    const n = episodesA.length;
    return paired
      ? sampleVariance(episodesB.map((value, i) => value - episodesA[i]!)) / n
      : sampleVariance(episodesA) / n + sampleVariance(episodesB) / n;
  });
  return perTask.reduce((sum, value) => sum + value, 0) / a.length ** 2;
}

/** One design's differences over the repetitions and their standard errors. */
function design(step60: readonly number[], step80: readonly number[], predicted: readonly number[]) {
  const differences = step80.map((value, i) => value - (step60[i] as number));
  const [varA, varB, cov] = [sampleVariance(step60), sampleVariance(step80), covariance(step60, step80)];
  return {
    differences,
    meanDifference: mean(differences),
    se: sampleStandardDeviation(differences),
    // An SD from R values has an SE of about SD / sqrt(2 (R - 1)) (normal theory).
    seOfSE: sampleStandardDeviation(differences) / Math.sqrt(2 * (differences.length - 1)),
    varA,
    varB,
    cov,
    correlation: cov / Math.sqrt(varA * varB),
    // Two-sided p of the correlation against 0 (t with R - 2 df).
    correlationP: correlationTest(step60, step80).p,
    // Var(d) = Var A + Var B - 2 Cov on the same repetitions: the same SE from its parts (an identity).
    formulaSE: Math.sqrt(Math.max(0, varA + varB - 2 * cov)),
    // The formula on each repetition's own episodes, averaged: estimates the SE was not computed from.
    predictedSE: Math.sqrt(mean(predicted)),
  };
}

/**
 * What exercise 6 reports: each repetition's three evaluations (step 60, step 80 on step 60's
 * episodes, step 80 on episodes of its own), both designs, the ratio of their SEs with the
 * Pitman-Morgan test against 1 (the designs share step 60, so their differences are paired), and
 * the correlation of a scripted policy's pass@1 under the two seeds of each of its repetitions.
 */
export function commonRandomNumbers({
  episodesPerTask,
  repetitions: evaluated,
  independence: scripted,
}: {
  episodesPerTask: number;
  repetitions: ReadonlyArray<{ step60: Evaluation; step80Shared: Evaluation; step80Separate: Evaluation }>;
  independence: { policy: string; a: readonly number[]; b: readonly number[] };
}) {
  const predicted = { shared: [] as number[], separate: [] as number[] };
  const rows = evaluated.map((repetition, r) => {
    const [a, b, c] = [repetition.step60, repetition.step80Shared, repetition.step80Separate].map(
      outcomesByTask,
    );
    predicted.shared.push(predictedVariance(a!, b!, true));
    predicted.separate.push(predictedVariance(a!, c!, false));
    return {
      repetition: r,
      step60: repetition.step60.passAt1,
      step80Shared: repetition.step80Shared.passAt1,
      step80Separate: repetition.step80Separate.passAt1,
    };
  });
  const column = (key: 'step60' | 'step80Shared' | 'step80Separate') => rows.map((row) => row[key]);
  const shared = design(column('step60'), column('step80Shared'), predicted.shared);
  const separate = design(column('step60'), column('step80Separate'), predicted.separate);
  const ratioTest = pitmanMorganTest(separate.differences, shared.differences);
  return {
    repetitions: rows.length,
    episodesPerTask,
    rows,
    shared,
    separate,
    ratio: separate.se / shared.se,
    varianceRatioTest: { ratio: ratioTest.ratio, p: ratioTest.p, correlation: ratioTest.correlation },
    independence: {
      policy: scripted.policy,
      repetitions: scripted.a.length,
      ...correlationTest(scripted.a, scripted.b),
    },
  };
}

export type NumbersEx6 = ReturnType<typeof commonRandomNumbers>;
