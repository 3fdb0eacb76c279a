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
 * Runtime: measured 360 to 434 s for the four runs with trained checkpoints (256 episodes per
 *   held-out task at steps 0, 20, 40, 80 and 64 at the other five), 364.5 s at a load average of
 *   16 falling to 5; seed runs missing are trained first (50.7 min with all four, at a load of 15).
 * Output: results/ex-2.json, results/ex-2.md, results/figures/ex-2-passk.svg and
 *   ex-2-counts-<run>.svg (per-task success rates by checkpoint).
 */
import { basename } from 'node:path';
import {
  bootstrapCI,
  changePointBootstrap,
  fallOnset,
  fisherExactGreater,
  holmAdjust,
  passAtK,
  trajectoryFalls,
} from '../eval/index.ts';
import type { TaskCount } from '../gym/index.ts';
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
const BAND_KS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** Mean unbiased pass@k over tasks at every k up to `maxK`, with a task-level bootstrap band at the powers of two. */
function curve(counts: readonly number[], n: number, maxK: number, rng: Rng) {
  return Array.from({ length: maxK }, (_, i) => {
    const k = i + 1;
    const perTask = counts.map((c) => passAtK(n, c, k));
    const band = BAND_KS.includes(k) ? bootstrapCI(perTask, { reps: 1000, rng: rng.fork(`k${k}`) }) : null;
    return {
      k,
      mean: perTask.reduce((a, b) => a + b, 0) / perTask.length,
      low: band?.low ?? null,
      high: band?.high ?? null,
    };
  });
}

/**
 * Every fall of every task between checkpoints (a local peak to the next trough,
 * `trajectoryFalls`), tested one-sided by Fisher's exact test on the two counts (the checkpoints'
 * evaluations are independent samples of different sizes), Holm-adjusted over all the run's falls.
 */
function fallsDuringTraining(checkpoints: ReadonlyArray<{ step: number; perTask: readonly TaskCount[] }>) {
  const counts = (task: number) => checkpoints.map((checkpoint) => checkpoint.perTask[task]!);
  const found = checkpoints[0]!.perTask.flatMap((_, t) =>
    trajectoryFalls(counts(t).map((count) => count.successes / count.episodes)).map(({ from, to }) => {
      const [high, low] = [counts(t)[from]!, counts(t)[to]!];
      return {
        task: high.name,
        from: { step: checkpoints[from]!.step, successes: high.successes, episodes: high.episodes },
        to: { step: checkpoints[to]!.step, successes: low.successes, episodes: low.episodes },
        p: fisherExactGreater(high.successes, high.episodes, low.successes, low.episodes),
      };
    }),
  );
  const adjusted = holmAdjust(found.map((fall) => fall.p));
  return found.map((fall, i) => ({ ...fall, holmP: adjusted[i]!, significant: adjusted[i]! < 0.05 }));
}

async function measureRun(
  dir: string,
  trainingSeed: number,
  opts: { seed: number; smoke: boolean; curveEpisodes: number; otherEpisodes: number; maxK: number },
) {
  const { seed, smoke, curveEpisodes, otherEpisodes, maxK } = opts;
  const at = await ensureRun(dir, { seed: trainingSeed, smoke, steps: TRAJECTORY });
  const checkpoints: Array<{ step: number; episodes: number; passAt1: number; perTask: TaskCount[] }> = [];
  for (const step of TRAJECTORY) {
    const episodes = CURVE_STEPS.includes(step) ? curveEpisodes : otherEpisodes;
    const { perTask, passAt1 } = await evaluateOnCores({ checkpoint: at(step), episodes, seed });
    checkpoints.push({ step, episodes, passAt1, perTask });
  }
  const rng = new Rng(seed).fork(`ex-2/${basename(dir)}`);
  const curves = CURVE_STEPS.map((step) => {
    const point = checkpoints.find((checkpoint) => checkpoint.step === step)!;
    return {
      step,
      curve: curve(
        point.perTask.map((count) => count.successes),
        point.episodes,
        maxK,
        rng.fork(`curve/${step}`),
      ),
    };
  });
  const meanAt = (step: number, k: number) => curves.find((c) => c.step === step)!.curve[k - 1]!.mean;
  const crossing = (step: number) =>
    curves[0]!.curve.find((point) => point.mean > meanAt(step, point.k))?.k ?? null;
  const tasks = checkpoints[0]!.perTask.map((count) => count.name);
  const rate = (step: number, task: string) => {
    const count = checkpoints.find((c) => c.step === step)!.perTask.find((c) => c.name === task)!;
    return count.successes / count.episodes;
  };
  // Coverage at the largest k: the chance that maxK samples hold a success.
  const coverage = tasks.map((task) => {
    const at = (step: number) => {
      const count = checkpoints.find((c) => c.step === step)!.perTask.find((c) => c.name === task)!;
      return passAtK(count.episodes, count.successes, Math.min(maxK, count.episodes));
    };
    return { task, base: at(0), step80: at(80), lost: at(80) < at(0) };
  });
  const narrowing = tasks
    .filter((task) => rate(80, task) < rate(0, task))
    .map((task) => {
      const counts = checkpoints.map((c) => c.perTask.find((count) => count.name === task)!);
      const onset = changePointBootstrap({
        successes: counts.map((count) => count.successes),
        trials: counts.map((count) => count.episodes),
        rng: rng.fork(`onset/${task}`),
        statistic: fallOnset,
      });
      const stepOf = (index: number | null) => (index === null ? null : TRAJECTORY[index]!);
      return {
        task,
        rates: counts.map((count) => count.successes / count.episodes),
        fallsAt: stepOf(onset.index),
        low: stepOf(onset.low),
        high: stepOf(onset.high),
        noFallShare: onset.noneShare,
      };
    });
  return {
    run: dir,
    checkpoints,
    curves,
    crossing: { step80: crossing(80), step40: crossing(40), step20: crossing(20) },
    coverage,
    narrowing,
    falls: fallsDuringTraining(checkpoints),
  };
}

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const [curveEpisodes, otherEpisodes] = smoke ? [8, 4] : [256, 64];
  const maxK = smoke ? 4 : 128;
  // The seeds' runs are where 17.7 found its narrowing tasks; the smoke version measures the run alone.
  const runs = [{ dir: run, trainingSeed: trainingSeedOf(run) }];
  if (!smoke)
    for (const trainingSeed of [1, 2, 3]) runs.push({ dir: seedRun(run, trainingSeed, smoke), trainingSeed });
  const measured = [];
  for (const { dir, trainingSeed } of runs)
    measured.push(await measureRun(dir, trainingSeed, { seed, smoke, curveEpisodes, otherEpisodes, maxK }));
  const numbers = { curveEpisodes, otherEpisodes, maxK, runs: measured };
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
