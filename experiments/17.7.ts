/**
 * 17.7 Does RL narrow the distribution? pass@k on TinyAgent.
 *
 * Question: RL lifts pass@1, but does it lift pass@k at large k, or does the base agent, which
 *   guesses widely, overtake it there? 64 episodes per held-out task for the base agent (step 0),
 *   step 20 and step 80: unbiased pass@k for k = 1..64 with task-level bootstrap bands, against
 *   the blind guess 1 - 0.8^k. Then, from the data, the tasks whose success falls between the base
 *   agent and step 80 (narrowing): their counts and first edits at every checkpoint, and the step
 *   where they start to fall; when the run narrows none, the four training seeds' runs beside it
 *   are searched (trained first where missing, as exp:all does).
 * Command: npm run exp:17.7 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: with trained checkpoints, nine evaluations of 64 episodes per held-out task (steps 0
 *   to 80, every 10), and nine more for each seed run it searches; from a fresh clone add the
 *   seed runs' training, each what `npm run train` takes (README, results/train.json).
 * Output: results/17.7.json, results/17.7.md, results/figures/17.3-passk.svg (left: the mean curves
 *   with bands; right: the narrowing task that falls furthest, its pass@k at steps 0, 20 and 80).
 */
import type { Evaluation } from '../agent/index.ts';
import { narrowingNumbers, narrowingTasks, type Narrowing } from '../analysis/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/17.7.ts';
import { ensureRun, evaluateOnCores, parseRunOptions, runOptions, seedRun, type RunOptions } from './runs.ts';

const AGENTS = [0, 20, 80] as const;
const TRAJECTORY = [0, 10, 20, 30, 40, 50, 60, 70, 80];
/** The training seeds whose runs are searched when the run itself narrows no task. */
const SEARCHED_SEEDS = [0, 1, 2, 3] as const;

/** Every checkpoint of a run evaluated (`at`: the folder of a step's checkpoint), the same episodes at each. */
async function evaluateTrajectory(at: (step: number) => string, episodes: number, seed: number) {
  const evaluations: Array<{ step: number; result: Evaluation }> = [];
  for (const step of TRAJECTORY)
    evaluations.push({ step, result: await evaluateOnCores({ checkpoint: at(step), episodes, seed }) });
  return evaluations;
}

/**
 * The narrowing tasks of the four training seeds' runs beside `run` (`npm run train -- --seeds
 * 0,1,2,3`), for a run that narrows none itself. Missing seed runs are trained first, as `npm run
 * exp:all` does, so that the result never depends on which runs happen to be on disk. The run
 * itself stands for its own seed when it is that seed's recipe (`seedRun`).
 */
export async function searchSeedRuns(
  run: string,
  { smoke, episodes, seed }: { smoke: boolean; episodes: number; seed: number },
): Promise<{ narrowing: Narrowing[]; searched: string[] }> {
  const narrowing: Narrowing[] = [];
  const searched: string[] = [];
  for (const trainingSeed of SEARCHED_SEEDS) {
    const dir = seedRun(run, trainingSeed, smoke);
    if (dir === run) continue;
    const seedAt = await ensureRun(dir, { seed: trainingSeed, smoke, steps: TRAJECTORY });
    searched.push(dir);
    narrowing.push(...narrowingTasks(dir, await evaluateTrajectory(seedAt, episodes, seed)));
  }
  return { narrowing, searched };
}

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const episodes = smoke ? 8 : 64;
  const at = await ensureRun(run, { smoke, steps: TRAJECTORY });
  const evaluations = await evaluateTrajectory(at, episodes, seed);
  const own = narrowingTasks(run, evaluations);
  // Narrowing, found from the data: held-out tasks with fewer successes at step 80 than at step 0.
  const { narrowing, searched } =
    own.length > 0 ? { narrowing: own, searched: [] } : await searchSeedRuns(run, { smoke, episodes, seed });
  const numbers = narrowingNumbers({
    agents: AGENTS.map((step) => ({
      step,
      evaluation: evaluations.find((evaluation) => evaluation.step === step)!.result,
    })),
    episodes,
    narrowing,
    searched,
    rng: new Rng(seed),
  });
  const config = { run, episodes, agents: AGENTS };
  writeResults(outDir, {
    section: '17.7',
    title: 'Does RL narrow the distribution? pass@k on TinyAgent',
    seed,
    smoke,
    config,
    numbers,
    echo: isMain(import.meta.url),
    ...(await report(numbers, config)),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('exp:17.7', () => main(parseRunOptions(process.argv.slice(2))));
