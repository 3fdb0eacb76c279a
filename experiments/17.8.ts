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
 * Runtime: about 20 s with trained checkpoints.
 * Output: results/17.8.json, results/17.8.md, results/figures/17.4-selection.svg, results/figures/17.4-seeds-step30.svg.
 */
import { makeTasks } from '../gym/index.ts';
import {
  episodeBootstrapCI,
  expectedMaxNormal,
  mean,
  sampleVariance,
  taskBootstrapCI,
  winnersCurseSimulation,
} from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report, type Row } from '../publish/sections/17.8.ts';
import {
  countsOf,
  ensureRun,
  evaluateOnCores,
  parseRunOptions,
  runOptions,
  seedRun,
  type RunOptions,
} from './runs.ts';

const STEPS = [0, 10, 20, 30, 40, 50, 60, 70, 80];
/** Candidates of the winner's-curse measurement: the eight GRPO snapshots. */
const CANDIDATES = STEPS.slice(1);

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
  const rng = new Rng(seed).fork('17.8');

  const table: Row[] = [];
  // Each test task's successes at each step: which task holds the test score down, and when.
  const testCounts: number[][] = [];
  for (const step of STEPS) {
    const row: Record<string, number> = { step };
    for (const side of ['validation', 'test'] as const) {
      const result = await evaluateOnCores({ checkpoint: at(step), tasks: split[side], episodes, seed });
      const interval = taskBootstrapCI(countsOf(result.perTask), {
        rng: rng.fork(`${side}/${step}`),
      });
      Object.assign(row, {
        [side]: result.passAt1,
        [`${side}Low`]: interval.low,
        [`${side}High`]: interval.high,
      });
      if (side === 'test') testCounts.push(result.perTask.map((count) => count.successes));
    }
    table.push({ ...(row as Omit<Row, 'testCounts'>), testCounts: testCounts.at(-1)! });
  }
  // Ties go to the later checkpoint (more training for the same score).
  const best = (side: 'validation' | 'test') =>
    table.reduce((top, row) => (row[side] >= top[side] ? row : top));
  const byValidation = best('validation');
  const byTest = best('test');

  // Winner's curse, measured: 10 small test evaluations; each picks its best checkpoint, which is
  // then scored on the other 9. Measured twice: the 8 candidates of one evaluation sharing its seed
  // (common random numbers: correlated scores, a smaller curse) and each with a seed of its own.
  const measureCurse = async (seedOf: (evaluation: number, step: number) => string) => {
    const scores: number[][] = [];
    for (let e = 0; e < 10; e += 1) {
      const row: number[] = [];
      for (const step of CANDIDATES)
        row.push(
          (
            await evaluateOnCores({
              checkpoint: at(step),
              tasks: split.test,
              episodes: small,
              seed: seedOf(e, step),
            })
          ).passAt1,
        );
      scores.push(row);
    }
    const picks = scores.map((row, e) => {
      const index = row.reduce((top, value, i) => (value >= row[top]! ? i : top), 0);
      return {
        evaluation: e,
        step: CANDIDATES[index]!,
        onPicking: row[index]!,
        onRest: mean(scores.filter((_, other) => other !== e).map((other) => other[index]!)),
      };
    });
    const onPicking = mean(picks.map((pick) => pick.onPicking));
    const onRest = mean(picks.map((pick) => pick.onRest));
    // The SE of one small evaluation, measured: each candidate's SD over the 10 evaluations, pooled.
    const evaluationSD = Math.sqrt(
      mean(CANDIDATES.map((_, i) => sampleVariance(scores.map((row) => row[i]!)))),
    );
    return { picks, onPicking, onRest, optimism: onPicking - onRest, evaluationSD };
  };
  const curse = {
    sharedSeed: await measureCurse((e) => `${seed}/curse/${e}`),
    independentSeeds: await measureCurse((e, step) => `${seed}/curse/${e}/step-${step}`),
  };
  const passRate = byValidation.test;
  const simulated = {
    ...winnersCurseSimulation({ checkpoints: 8, episodes: 160, passRate, rng: rng.fork('simulated') }),
    e8: expectedMaxNormal(8),
  };

  // Figure 17.4, right: the four seeds' step-30 checkpoints, episode- and task-level intervals.
  const seeds = [];
  for (const trainingSeed of smoke ? [0, 1] : [0, 1, 2, 3]) {
    const seedAt = await ensureRun(seedRun(run, trainingSeed, smoke), {
      seed: trainingSeed,
      smoke,
      steps: [30],
    });
    const result = await evaluateOnCores({ checkpoint: seedAt(30), episodes, seed });
    const counts = countsOf(result.perTask);
    seeds.push({
      seed: trainingSeed,
      passAt1: result.passAt1,
      episodeLevel: episodeBootstrapCI(counts, { rng: rng.fork(`seed${trainingSeed}/episode`) }),
      taskLevel: taskBootstrapCI(counts, { rng: rng.fork(`seed${trainingSeed}/task`) }),
    });
  }

  const config = { run, episodes, smallEpisodes: small };
  const numbers = {
    split: {
      validation: split.validation.map((task) => task.name),
      test: split.test.map((task) => task.name),
    },
    table,
    byValidation,
    byTest,
    curse,
    simulated,
    seeds,
  };
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
