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
 * Runtime: with trained checkpoints, mostly 60 evaluations of 320 episodes (20 repetitions of
 *   step 60, step 80 shared and step 80 separate); the 400 scripted ones of 320 take seconds.
 * Output: results/ex-6.json, results/ex-6.md, results/figures/ex-6-differences.svg.
 */
import { commonRandomNumbers } from '../analysis/index.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/ex-6.ts';
import { ensureRun, evaluateOnCores, parseRunOptions, runOptions, type RunOptions } from './runs.ts';

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const repetitions = smoke ? 3 : 20;
  const episodes = smoke ? 2 : 32;
  const at = await ensureRun(run, { smoke, steps: [60, 80] });
  const evaluated = [];
  for (let r = 0; r < repetitions; r++) {
    // Step 60 serves both designs; only step 80's generator differs between them.
    const shared = `${seed}/ex-6/${r}`;
    evaluated.push({
      step60: await evaluateOnCores({ checkpoint: at(60), episodes, seed: shared }),
      step80Shared: await evaluateOnCores({ checkpoint: at(80), episodes, seed: shared }),
      step80Separate: await evaluateOnCores({ checkpoint: at(80), episodes, seed: `${shared}/separate` }),
    });
  }
  // Are the two seeds of a repetition independent? A scripted policy's outcomes depend on the
  // episodes' seeds alone (env seed and renames), and it plays many repetitions in seconds.
  const checks = smoke ? 10 : 200;
  const scripted = { policy: 'blind', a: [] as number[], b: [] as number[] };
  for (let r = 0; r < checks; r++) {
    const key = `${seed}/ex-6/${r}`;
    scripted.a.push((await evaluateOnCores({ scripted: 'blind', episodes, seed: key })).passAt1);
    scripted.b.push(
      (await evaluateOnCores({ scripted: 'blind', episodes, seed: `${key}/separate` })).passAt1,
    );
  }
  const numbers = commonRandomNumbers({
    episodesPerTask: episodes,
    repetitions: evaluated,
    independence: scripted,
  });
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
