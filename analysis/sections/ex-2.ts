/**
 * The numbers of exercise 2 (experiments/ex-2.ts): 17.7 at n = 256 and k up to 128, with step
 * 40. Per run: the pass@k curves, where the base agent overtakes each checkpoint, the coverage at
 * the largest k, the tasks that end below the base agent and when each starts to fall, and every
 * fall of a task between checkpoints, tested.
 */
import { basename } from 'node:path';
import type { Evaluation } from '../../agent/index.ts';
import {
  DEFAULT_REPLICATES,
  changePointBootstrap,
  fallOnset,
  fisherExactGreater,
  holmAdjust,
  passAtK,
  trajectoryFalls,
} from '../../eval/index.ts';
import type { TaskCount } from '../../gym/index.ts';
import type { Rng } from '../../lib/rng.ts';
import { passAtKCurve } from '../counts.ts';

const BAND_KS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** A run's checkpoints in trajectory order, each with its counts. */
type Trajectory = ReadonlyArray<{ step: number; perTask: readonly TaskCount[] }>;

/**
 * Every fall of every task between checkpoints (a local peak to the next trough,
 * `trajectoryFalls`), tested one-sided by Fisher's exact test on the two counts (the checkpoints'
 * evaluations are independent samples of different sizes), Holm-adjusted over all the run's falls.
 */
function fallsDuringTraining(checkpoints: Trajectory) {
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

/**
 * The tasks with a lower rate at step 80 than at step 0, each with its rates along the trajectory
 * and the step where it starts to fall (`fallOnset`, with a bootstrap interval: stream `onset/<task>`).
 */
function narrowingTasks(checkpoints: Trajectory, rng: Rng) {
  const tasks = checkpoints[0]!.perTask.map((count) => count.name);
  const rate = (step: number, task: string) => {
    const count = checkpoints.find((c) => c.step === step)!.perTask.find((c) => c.name === task)!;
    return count.successes / count.episodes;
  };
  return tasks
    .filter((task) => rate(80, task) < rate(0, task))
    .map((task) => {
      const counts = checkpoints.map((c) => c.perTask.find((count) => count.name === task)!);
      const onset = changePointBootstrap({
        successes: counts.map((count) => count.successes),
        trials: counts.map((count) => count.episodes),
        reps: DEFAULT_REPLICATES,
        rng: rng.fork(`onset/${task}`),
        statistic: fallOnset,
      });
      const stepOf = (index: number | null) => (index === null ? null : checkpoints[index]!.step);
      return {
        task,
        rates: counts.map((count) => count.successes / count.episodes),
        fallsAt: stepOf(onset.index),
        low: stepOf(onset.low),
        high: stepOf(onset.high),
        noFallShare: onset.noneShare,
      };
    });
}

/** One run's numbers (its draws from the stream `ex-2/<run folder name>` of `rng`). */
function runNumbers(
  run: string,
  evaluations: ReadonlyArray<{ step: number; episodes: number; evaluation: Evaluation }>,
  { curveSteps, maxK, rng: parent }: { curveSteps: readonly number[]; maxK: number; rng: Rng },
) {
  const checkpoints = evaluations.map(({ step, episodes, evaluation }) => ({
    step,
    episodes,
    passAt1: evaluation.passAt1,
    perTask: evaluation.perTask,
  }));
  const rng = parent.fork(`ex-2/${basename(run)}`);
  const curves = curveSteps.map((step) => {
    const { perTask, episodes } = checkpoints.find((checkpoint) => checkpoint.step === step)!;
    const counts = perTask.map((count) => count.successes);
    return {
      step,
      curve: passAtKCurve(counts, episodes, {
        maxK,
        banded: (k) => BAND_KS.includes(k),
        rng: rng.fork(`curve/${step}`),
      }),
    };
  });
  const meanAt = (step: number, k: number) => curves.find((c) => c.step === step)!.curve[k - 1]!.mean;
  const crossing = (step: number) =>
    curves[0]!.curve.find((point) => point.mean > meanAt(step, point.k))?.k ?? null;
  // Coverage at the largest k: the chance that maxK samples hold a success.
  const coverage = checkpoints[0]!.perTask.map(({ name: task }) => {
    const at = (step: number) => {
      const count = checkpoints.find((c) => c.step === step)!.perTask.find((c) => c.name === task)!;
      return passAtK(count.episodes, count.successes, Math.min(maxK, count.episodes));
    };
    return { task, base: at(0), step80: at(80), lost: at(80) < at(0) };
  });
  return {
    run,
    checkpoints,
    curves,
    crossing: { step80: crossing(80), step40: crossing(40), step20: crossing(20) },
    coverage,
    narrowing: narrowingTasks(checkpoints, rng),
    falls: fallsDuringTraining(checkpoints),
  };
}

/**
 * What exercise 2 reports: each run's numbers, its checkpoints evaluated at `curveEpisodes`
 * episodes per task at the curve steps and `otherEpisodes` elsewhere, curves up to `maxK`.
 */
export function largeKNumbers({
  curveEpisodes,
  otherEpisodes,
  maxK,
  curveSteps,
  runs,
  rng,
}: {
  curveEpisodes: number;
  otherEpisodes: number;
  maxK: number;
  curveSteps: readonly number[];
  runs: ReadonlyArray<{ run: string; evaluations: Parameters<typeof runNumbers>[1] }>;
  rng: Rng;
}) {
  return {
    curveEpisodes,
    otherEpisodes,
    maxK,
    runs: runs.map(({ run, evaluations }) => runNumbers(run, evaluations, { curveSteps, maxK, rng })),
  };
}

export type NumbersEx2 = ReturnType<typeof largeKNumbers>;
