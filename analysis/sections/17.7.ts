/**
 * The numbers of 17.7 (experiments/17.7.ts): does RL narrow the distribution? Mean unbiased
 * pass@k over the held-out tasks for three checkpoints, the held-out tasks that end below where
 * they began, and where the curves cross.
 */
import type { Evaluation } from '../../agent/index.ts';
import { firstEditCounts } from '../../gym/index.ts';
import { passAtKCurve } from '../counts.ts';
import type { Rng } from '../../lib/rng.ts';

/**
 * The held-out tasks of a run (`runDir`, evaluated at every checkpoint of its trajectory, the same
 * episodes at each) that end below where they began: each task's counts and first edits at every
 * step, the step of its peak and the step where it starts to fall.
 */
export function narrowingTasks(
  runDir: string,
  evaluations: ReadonlyArray<{ step: number; result: Evaluation }>,
) {
  const tasks = evaluations[0]!.result.perTask.map((count) => count.name);
  return tasks.flatMap((task) => {
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
}

export type Narrowing = ReturnType<typeof narrowingTasks>[number];

/**
 * What 17.7 reports: the pass@k curve of each agent (the base agent, an early checkpoint and the
 * trained one, in that order; bands from the stream `17.7/<step>` of `rng`) at k = 1..`episodes`,
 * the reference 1 - 0.8^k, the narrowing tasks and the runs searched for them, and the book's
 * claims measured at every k.
 */
export function narrowingNumbers<Step extends number>({
  agents: evaluated,
  episodes,
  narrowing,
  searched,
  rng,
}: {
  agents: ReadonlyArray<{ step: Step; evaluation: Evaluation }>;
  episodes: number;
  narrowing: Narrowing[];
  searched: string[];
  rng: Rng;
}) {
  const agents = evaluated.map(({ step, evaluation: { perTask } }) => {
    const counts = perTask.map((count) => count.successes);
    return { step, perTask, curve: passAtKCurve(counts, episodes, { rng: rng.fork(`17.7/${step}`) }) };
  });
  const [base, early, late] = agents as [(typeof agents)[0], (typeof agents)[0], (typeof agents)[0]];
  const step20AtOrAbove = early.curve.every(
    (point, i) => point.mean >= Math.max(base.curve[i]!.mean, late.curve[i]!.mean) - 1e-12,
  );
  const step20BelowAt = (other: typeof base) =>
    early.curve.filter((point, i) => point.mean < other.curve[i]!.mean - 1e-12).map((point) => point.k);
  return {
    agents,
    reference: Array.from({ length: episodes }, (_, i) => ({ k: i + 1, y: 1 - 0.8 ** (i + 1) })),
    narrowing,
    searched,
    crossing: late.curve.find((point, i) => base.curve[i]!.mean > point.mean)?.k ?? null,
    step20AtOrAbove,
    // The book's two claims, measured at every k: where step 20 falls below either curve, and for
    // k >= 16 whether step 80's task-level band reaches the base agent's curve.
    step20Below: { base: step20BelowAt(base), step80: step20BelowAt(late) },
    step80BandAtLargeK: late.curve
      .filter((point) => point.k >= 16)
      .map((point) => {
        const baseMean = base.curve[point.k - 1]!.mean;
        return {
          k: point.k,
          low: point.low,
          high: point.high,
          base: baseMean,
          covers:
            point.low !== null && point.high !== null && point.low <= baseMean && baseMean <= point.high,
        };
      }),
  };
}

export type Numbers177 = ReturnType<typeof narrowingNumbers<0 | 20 | 80>>;
