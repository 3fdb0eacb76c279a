/**
 * Exercise 2. 17.7 at n = 256 and k up to 128, with step 40 added.
 *
 * Question: with four times the episodes, does the k at which the base agent overtakes step 80
 *   move? Does any held-out task other than the narrowing one lose coverage (pass@128 lower at
 *   step 80 than at step 0)? And where does the narrowing task start to fall: every checkpoint's
 *   per-task success counts (steps 0 to 80, every 10), with the fall's onset (the change point
 *   after the peak, `fallOnset`) and a bootstrap interval for it; and every fall of every task
 *   during training, also one that ends above the base agent (a peak to the next trough, Fisher's
 *   exact test, Holm over the run's falls). On the run and on the seeds' runs beside it (17.7
 *   found its narrowing tasks there).
 * Command: npm run ex:2 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: with trained checkpoints, every checkpoint of the four runs: 256 episodes per held-out
 *   task at steps 0, 20, 40, 80 and 64 at the other five, nine evaluations per run (the longest
 *   exercise with ex-6, docs/EXERCISES.md, "Runtimes"); runs missing are trained first, each what
 *   `npm run train` takes (README, results/train.json).
 * Output: results/ex-2.json, results/ex-2.md, results/figures/ex-2-passk.svg and
 *   ex-2-counts-<run>.svg (per-task success rates by checkpoint).
 */
import type { Evaluation } from '../agent/index.ts';
import { largeKNumbers } from '../analysis/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/ex-2.ts';
import {
  ensureRun,
  evaluateOnCores,
  parseRunOptions,
  runOptions,
  seedRun,
  trainingSeedOf,
  type RunOptions,
} from './runs.ts';

const CURVE_STEPS = [0, 20, 40, 80];
const TRAJECTORY = [0, 10, 20, 30, 40, 50, 60, 70, 80];

/** Every checkpoint of a run evaluated, `curveEpisodes` episodes per task at the curve steps and `otherEpisodes` elsewhere. */
async function evaluateRun(
  dir: string,
  trainingSeed: number,
  options: { seed: number; smoke: boolean; curveEpisodes: number; otherEpisodes: number },
) {
  const { seed, smoke, curveEpisodes, otherEpisodes } = options;
  const at = await ensureRun(dir, { seed: trainingSeed, smoke, steps: TRAJECTORY });
  const evaluations: Array<{ step: number; episodes: number; evaluation: Evaluation }> = [];
  for (const step of TRAJECTORY) {
    const episodes = CURVE_STEPS.includes(step) ? curveEpisodes : otherEpisodes;
    evaluations.push({
      step,
      episodes,
      evaluation: await evaluateOnCores({ checkpoint: at(step), episodes, seed }),
    });
  }
  return { run: dir, evaluations };
}

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const [curveEpisodes, otherEpisodes] = smoke ? [8, 4] : [256, 64];
  const maxK = smoke ? 4 : 128;
  // The seeds' runs are where 17.7 found its narrowing tasks; the smoke version measures the run alone.
  const runs = [{ dir: run, trainingSeed: trainingSeedOf(run) }];
  if (!smoke)
    for (const trainingSeed of [1, 2, 3]) runs.push({ dir: seedRun(run, trainingSeed, smoke), trainingSeed });
  const evaluated = [];
  for (const { dir, trainingSeed } of runs)
    evaluated.push(await evaluateRun(dir, trainingSeed, { seed, smoke, curveEpisodes, otherEpisodes }));
  const numbers = largeKNumbers({
    curveEpisodes,
    otherEpisodes,
    maxK,
    curveSteps: CURVE_STEPS,
    runs: evaluated,
    rng: new Rng(seed),
  });
  writeResults(outDir, {
    section: 'ex-2',
    title: '17.7 at n = 256 and k up to 128, with step 40',
    seed,
    smoke,
    config: { run, curveEpisodes, otherEpisodes, maxK, curveSteps: CURVE_STEPS, trajectory: TRAJECTORY },
    numbers,
    echo: isMain(import.meta.url),
    ...(await report(numbers)),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('ex:2', () => main(parseRunOptions(process.argv.slice(2))));
