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
 * Runtime: about a minute with trained checkpoints (64 episodes per held-out task at every checkpoint
 *   of the runs it searches); from a fresh clone add the seed runs'
 *   training, each what `npm run train` takes (README, results/train.json).
 * Output: results/17.7.json, results/17.7.md, results/figures/17.3-passk.svg (left: the mean curves
 *   with bands; right: the narrowing task that falls furthest, its pass@k at steps 0, 20 and 80).
 */
import { firstEditCounts } from '../gym/index.ts';
import { bootstrapCI, passAtK, withoutCollapse } from '../eval/index.ts';
import type { Evaluation } from '../agent/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/17.7.ts';
import { ensureRun, evaluateOnCores, parseRunOptions, runOptions, seedRun, type RunOptions } from './runs.ts';

const AGENTS = [0, 20, 80] as const;
const TRAJECTORY = [0, 10, 20, 30, 40, 50, 60, 70, 80];
/** The training seeds whose runs are searched when the run itself narrows no task. */
const SEARCHED_SEEDS = [0, 1, 2, 3] as const;
/**
 * Mean unbiased pass@k over tasks for k = 1..n, with a task-level bootstrap band at each k; where
 * every task's pass@k is alike (all 1 at large k) the exact band over the tasks stands in.
 */
function passAtKCurve(counts: readonly number[], n: number, rng: Rng) {
  return Array.from({ length: n }, (_, i) => {
    const k = i + 1;
    const perTask = counts.map((c) => passAtK(n, c, k));
    const mean = perTask.reduce((a, b) => a + b, 0) / perTask.length;
    const band =
      perTask.length > 1
        ? withoutCollapse(bootstrapCI(perTask, { reps: 1000, rng: rng.fork(`k${k}`) }), mean, {
            units: perTask.length,
            unit: 'tasks',
            level: 0.95,
          })
        : { low: NaN, high: NaN };
    return { k, mean, low: band.low, high: band.high };
  });
}

/**
 * Every held-out task's counts and first edits at every checkpoint of a run (`at`: the folder of
 * a step's checkpoint; one evaluation per checkpoint, the same episodes at each), the tasks that
 * end below where they began, and for each of those the step of its peak and the step where it
 * starts to fall.
 */
type Narrowing = Awaited<ReturnType<typeof runTrajectory>>['narrowing'][number];

async function runTrajectory(runDir: string, at: (step: number) => string, episodes: number, seed: number) {
  const evaluations: Array<{ step: number; result: Evaluation }> = [];
  for (const step of TRAJECTORY)
    evaluations.push({ step, result: await evaluateOnCores({ checkpoint: at(step), episodes, seed }) });
  const tasks = evaluations[0]!.result.perTask.map((count) => count.name);
  const narrowing = tasks.flatMap((task) => {
    const trajectory = evaluations.map(({ step, result }) => ({
      step,
      successes: result.perTask.find((count) => count.name === task)!.successes,
      firstEdit: firstEditCounts(result.records.filter((record) => record.task === task)),
    }));
    if (trajectory[trajectory.length - 1]!.successes >= trajectory[0]!.successes) return [];
    const peak = trajectory.reduce((best, point) => (point.successes > best.successes ? point : best));
    const fall = trajectory.find((point) => point.step > peak.step && point.successes < peak.successes);
    return [{ task, runDir, trajectory, peakStep: peak.step, fallsAt: fall?.step ?? null }];
  });
  return { evaluations, narrowing };
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
    narrowing.push(...(await runTrajectory(dir, seedAt, episodes, seed)).narrowing);
  }
  return { narrowing, searched };
}

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const episodes = smoke ? 8 : 64;
  const at = await ensureRun(run, { smoke, steps: TRAJECTORY });
  const own = await runTrajectory(run, at, episodes, seed);
  const agents = AGENTS.map((step) => {
    const { result } = own.evaluations.find((evaluation) => evaluation.step === step)!;
    return {
      step,
      perTask: result.perTask,
      curve: passAtKCurve(
        result.perTask.map((count) => count.successes),
        episodes,
        new Rng(seed).fork(`17.7/${step}`),
      ),
    };
  });
  const [base, early, late] = agents as [(typeof agents)[0], (typeof agents)[0], (typeof agents)[0]];
  const reference = Array.from({ length: episodes }, (_, i) => ({ k: i + 1, y: 1 - 0.8 ** (i + 1) }));

  // Narrowing, found from the data: held-out tasks with fewer successes at step 80 than at step 0.
  const { narrowing, searched } =
    own.narrowing.length > 0
      ? { narrowing: own.narrowing, searched: [] }
      : await searchSeedRuns(run, { smoke, episodes, seed });
  const step20AtOrAbove = early.curve.every(
    (point, i) => point.mean >= Math.max(base.curve[i]!.mean, late.curve[i]!.mean) - 1e-12,
  );
  // The book's two claims, measured at every k: where step 20 falls below either curve, and for
  // k >= 16 whether step 80's task-level band reaches the base agent's curve.
  const step20Below = {
    base: early.curve.filter((point, i) => point.mean < base.curve[i]!.mean - 1e-12).map((point) => point.k),
    step80: early.curve
      .filter((point, i) => point.mean < late.curve[i]!.mean - 1e-12)
      .map((point) => point.k),
  };
  const step80BandAtLargeK = late.curve
    .filter((point) => point.k >= 16)
    .map((point) => {
      const baseMean = base.curve[point.k - 1]!.mean;
      return {
        k: point.k,
        low: point.low,
        high: point.high,
        base: baseMean,
        covers: point.low <= baseMean && baseMean <= point.high,
      };
    });
  const crossing = late.curve.find((point, i) => base.curve[i]!.mean > point.mean)?.k ?? null;
  const config = { run, episodes, agents: AGENTS };
  const numbers = {
    agents: agents.map(({ step, perTask, curve }) => ({ step, perTask, curve })),
    reference,
    narrowing,
    searched,
    crossing,
    step20AtOrAbove,
    step20Below,
    step80BandAtLargeK,
  };
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
