/**
 * Exercise 6. Common random numbers, measured.
 *
 * Question: how much does sharing one generator between two checkpoints cut the SE of their
 *   difference? Step 80 minus step 60 of one run, repeated with fresh episodes: in the shared
 *   design both checkpoints play the same episodes (one seed, as 17.4 pairs them), in the
 *   separate design step 80 plays episodes of its own seed. The SD of the difference over the
 *   repetitions is its SE in each design. Var(d) = Var A + Var B - 2 Cov (17.4) on the same
 *   repetitions is an identity with that SD, so the formula is checked against estimates it was
 *   not computed from: each repetition's own episodes (per task, the variance of the paired
 *   episode differences, or of each side's episodes) predict the SE across repetitions. The ratio
 *   of the two SEs is tested against 1 (Pitman-Morgan, the two designs sharing step 60), each
 *   correlation against 0, and the two seeds' independence is checked on a scripted policy over
 *   many more repetitions.
 * Command: npm run ex:6 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: about 4.5 minutes with trained checkpoints (measured 255 s: 60 evaluations of 320 episodes,
 *   400 scripted ones of 320).
 * Output: results/ex-6.json, results/ex-6.md, results/figures/ex-6-differences.svg.
 */
import {
  correlationTest,
  mean,
  pitmanMorganTest,
  sampleStandardDeviation,
  sampleVariance,
} from '../eval/index.ts';
import type { Evaluation } from '../agent/index.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/ex-6.ts';
import { ensureRun, evaluateOnCores, parseRunOptions, runOptions, type RunOptions } from './runs.ts';

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
    correlationP: correlationTest(step60, step80).p,
    // Var(d) = Var A + Var B - 2 Cov on the same repetitions: the same SE from its parts (an identity).
    formulaSE: Math.sqrt(Math.max(0, varA + varB - 2 * cov)),
    // The formula on each repetition's own episodes, averaged: estimates the SE was not computed from.
    predictedSE: Math.sqrt(mean(predicted)),
  };
}

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const repetitions = smoke ? 3 : 20;
  const episodes = smoke ? 2 : 32;
  const at = await ensureRun(run, { smoke, steps: [60, 80] });
  const rows = [];
  const predicted = { shared: [] as number[], separate: [] as number[] };
  for (let r = 0; r < repetitions; r++) {
    // Step 60 serves both designs; only step 80's generator differs between them.
    const shared = `${seed}/ex-6/${r}`;
    const step60 = await evaluateOnCores({ checkpoint: at(60), episodes, seed: shared });
    const step80Shared = await evaluateOnCores({ checkpoint: at(80), episodes, seed: shared });
    const step80Separate = await evaluateOnCores({
      checkpoint: at(80),
      episodes,
      seed: `${shared}/separate`,
    });
    const [a, b, c] = [step60, step80Shared, step80Separate].map(outcomesByTask);
    predicted.shared.push(predictedVariance(a!, b!, true));
    predicted.separate.push(predictedVariance(a!, c!, false));
    rows.push({
      repetition: r,
      step60: step60.passAt1,
      step80Shared: step80Shared.passAt1,
      step80Separate: step80Separate.passAt1,
    });
  }
  const step60 = rows.map((row) => row.step60);
  const shared = design(
    step60,
    rows.map((row) => row.step80Shared),
    predicted.shared,
  );
  const separate = design(
    step60,
    rows.map((row) => row.step80Separate),
    predicted.separate,
  );
  // The two designs share step 60, so their differences are paired repetition by repetition.
  const ratioTest = pitmanMorganTest(separate.differences, shared.differences);
  // Are the two seeds of a repetition independent? A scripted policy's outcomes depend on the
  // episodes' seeds alone (env seed and renames), and it plays many repetitions in seconds.
  const checks = smoke ? 10 : 200;
  const scripted = { a: [] as number[], b: [] as number[] };
  for (let r = 0; r < checks; r++) {
    const key = `${seed}/ex-6/${r}`;
    scripted.a.push((await evaluateOnCores({ scripted: 'blind', episodes, seed: key })).passAt1);
    scripted.b.push(
      (await evaluateOnCores({ scripted: 'blind', episodes, seed: `${key}/separate` })).passAt1,
    );
  }
  const independence = { policy: 'blind', repetitions: checks, ...correlationTest(scripted.a, scripted.b) };
  const numbers = {
    repetitions,
    episodesPerTask: episodes,
    rows,
    shared,
    separate,
    ratio: separate.se / shared.se,
    varianceRatioTest: { ratio: ratioTest.ratio, p: ratioTest.p, correlation: ratioTest.correlation },
    independence,
  };
  writeResults(outDir, {
    section: 'ex-6',
    title: 'Common random numbers, measured',
    seed,
    smoke,
    config: { run, repetitions, episodes, independenceChecks: checks },
    numbers,
    echo: isMain(import.meta.url),
    ...(await report(numbers)),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('ex:6', () => main(parseRunOptions(process.argv.slice(2))));
