/**
 * 17.8 Choosing a checkpoint without touching the test set.
 *
 * Question: what does choosing a checkpoint on the test set cost? The 10 held-out tasks split
 *   5/5 (one variant of each type per side): validation and test pass@1 at every checkpoint;
 *   selecting by validation against selecting by test; the winner's curse measured (10 small test
 *   evaluations, each picking a checkpoint that is then scored on the other 9; the candidates of
 *   one evaluation sharing its seed, and each with its own) and simulated (8
 *   equally good checkpoints on a 160-episode test set). Figure 17.4: validation and test by step,
 *   and the four seeds' step-30 checkpoints with episode- and task-level intervals.
 * Command: npm run exp:17.8 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: with trained checkpoints, 18 evaluations of 32 episodes per task of a five-task side
 *   (nine checkpoints, validation and test), 160 small ones of 8 (the winner's curse) and four of
 *   32 per held-out task (the seeds' step 30); seed runs missing are trained first, each what
 *   `npm run train` takes (README, results/train.json).
 * Output: results/17.8.json, results/17.8.md, results/figures/17.4-selection.svg, results/figures/17.4-seeds-step30.svg.
 */
import { makeTasks, type Task } from '../gym/index.ts';
import { selectionNumbers } from '../analysis/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/17.8.ts';
import { ensureRun, evaluateOnCores, parseRunOptions, runOptions, seedRun, type RunOptions } from './runs.ts';

const STEPS = [0, 10, 20, 30, 40, 50, 60, 70, 80];
/** Candidates of the winner's-curse measurement: the eight GRPO snapshots. */
const CANDIDATES = STEPS.slice(1);

/**
 * The winner's curse, measured: 10 small test evaluations (`episodes` per task) of every
 * candidate, each with the seed `seedOf` gives it; `scores[e][i]` is evaluation e's pass@1 of
 * candidate i.
 */
async function smallScores(
  at: (step: number) => string,
  tasks: readonly Task[],
  { episodes, seedOf }: { episodes: number; seedOf: (evaluation: number, step: number) => string },
): Promise<number[][]> {
  const scores: number[][] = [];
  for (let e = 0; e < 10; e += 1) {
    const row: number[] = [];
    for (const step of CANDIDATES)
      row.push(
        (await evaluateOnCores({ checkpoint: at(step), tasks, episodes, seed: seedOf(e, step) })).passAt1,
      );
    scores.push(row);
  }
  return scores;
}

/** Figure 17.4, right: the training seeds' step-30 checkpoints (their runs beside `run`). */
async function seedCheckpoints(
  run: string,
  { smoke, episodes, seed }: { smoke: boolean; episodes: number; seed: number },
) {
  const seeds = [];
  for (const trainingSeed of smoke ? [0, 1] : [0, 1, 2, 3]) {
    const seedAt = await ensureRun(seedRun(run, trainingSeed, smoke), {
      seed: trainingSeed,
      smoke,
      steps: [30],
    });
    seeds.push({
      seed: trainingSeed,
      evaluation: await evaluateOnCores({ checkpoint: seedAt(30), episodes, seed }),
    });
  }
  return seeds;
}

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const episodes = smoke ? 4 : 32;
  const small = smoke ? 2 : 8;
  const heldOut = makeTasks('heldout');
  // One variant of each type per side; the test half holds variant 4 (speed, as in the book).
  const split = {
    validation: heldOut.filter((task) => task.variant === 5),
    test: heldOut.filter((task) => task.variant === 4),
  };
  const at = await ensureRun(run, { smoke, steps: STEPS });
  const table = [];
  for (const step of STEPS) {
    const evaluate = (side: 'validation' | 'test') =>
      evaluateOnCores({ checkpoint: at(step), tasks: split[side], episodes, seed });
    table.push({ step, validation: await evaluate('validation'), test: await evaluate('test') });
  }
  // Twice: the candidates of one evaluation sharing its seed (common random numbers: correlated
  // scores, a smaller curse) and each with a seed of its own.
  const curse = {
    sharedSeed: await smallScores(at, split.test, { episodes: small, seedOf: (e) => `${seed}/curse/${e}` }),
    independentSeeds: await smallScores(at, split.test, {
      episodes: small,
      seedOf: (e, step) => `${seed}/curse/${e}/step-${step}`,
    }),
  };
  const seeds = await seedCheckpoints(run, { smoke, episodes, seed });
  const config = { run, episodes, smallEpisodes: small };
  const numbers = selectionNumbers({
    split,
    table,
    curse,
    candidates: CANDIDATES,
    seeds,
    rng: new Rng(seed),
  });
  writeResults(outDir, {
    section: '17.8',
    title: 'Choosing a checkpoint without touching the test set',
    seed,
    smoke,
    config,
    numbers,
    echo: isMain(import.meta.url),
    ...(await report(numbers, config)),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('exp:17.8', () => main(parseRunOptions(process.argv.slice(2))));
