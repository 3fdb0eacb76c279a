/**
 * Exercise 6. Common random numbers, measured.
 *
 * Question: how much does sharing one generator between two checkpoints cut the SE of their
 *   difference? Step 80 minus step 60 of one run, repeated with fresh episodes: in the shared
 *   design both checkpoints play the same episodes (one seed, as 17.4 pairs them), in the
 *   separate design step 80 plays episodes of its own seed. The SD of the difference over the
 *   repetitions is its SE in each design; Var(d) = Var A + Var B - 2 Cov (17.4) explains the
 *   ratio, with the covariance measured in both designs.
 * Command: npm run ex:6 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: about 4.5 minutes with trained checkpoints (measured 263 s: 60 evaluations of 320 episodes).
 * Output: results/ex-6.json, results/ex-6.md, results/figures/ex-6-differences.svg.
 */
import { mean, sampleStandardDeviation, sampleVariance } from '../eval/index.ts';
import { isMain, runScript, writeResults } from './common.ts';
import { report } from './report/ex-6.ts';
import { ensureRun, evaluateOnCores, parseRunOptions, runOptions, type RunOptions } from './runs.ts';

/** Sample covariance of paired values (n - 1 denominator, as sampleVariance). */
function covariance(a: readonly number[], b: readonly number[]): number {
  const [ma, mb] = [mean(a), mean(b)];
  return a.reduce((sum, value, i) => sum + (value - ma) * ((b[i] as number) - mb), 0) / (a.length - 1);
}

function design(step60: readonly number[], step80: readonly number[]) {
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
    // Var(d) = Var A + Var B - 2 Cov: the same SE from its parts.
    formulaSE: Math.sqrt(Math.max(0, varA + varB - 2 * cov)),
  };
}

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const repetitions = smoke ? 3 : 20;
  const episodes = smoke ? 2 : 32;
  const at = await ensureRun(run, { smoke, steps: [60, 80] });
  const rows = [];
  for (let r = 0; r < repetitions; r++) {
    // Step 60 serves both designs; only step 80's generator differs between them.
    const shared = `${seed}/ex-6/${r}`;
    const step60 = (await evaluateOnCores({ checkpoint: at(60), episodes, seed: shared })).passAt1;
    const step80Shared = (await evaluateOnCores({ checkpoint: at(80), episodes, seed: shared })).passAt1;
    const step80Separate = (
      await evaluateOnCores({ checkpoint: at(80), episodes, seed: `${shared}/separate` })
    ).passAt1;
    rows.push({ repetition: r, step60, step80Shared, step80Separate });
  }
  const step60 = rows.map((row) => row.step60);
  const shared = design(
    step60,
    rows.map((row) => row.step80Shared),
  );
  const separate = design(
    step60,
    rows.map((row) => row.step80Separate),
  );
  const numbers = {
    repetitions,
    episodesPerTask: episodes,
    rows,
    shared,
    separate,
    ratio: separate.se / shared.se,
  };
  writeResults(outDir, {
    section: 'ex-6',
    title: 'Common random numbers, measured',
    seed,
    smoke,
    config: { run, repetitions, episodes },
    numbers,
    echo: isMain(import.meta.url),
    ...(await report(numbers)),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('ex:6', () => main(parseRunOptions(process.argv.slice(2))));
