import { InputError } from '../lib/errors.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  describeMixedFingerprints,
  fingerprintGroups,
  outputProblem,
  readEvalOutput,
  type EvalOutput,
} from './output.ts';
import { measuredTasks, readPlan, type EvalJob, type Plan } from './plan.ts';

/** Every evaluation of a finished study, by seed and then by `chapterStep/label`. */
export interface StudyResults {
  plan: Plan;
  seeds: number[];
  /** The tasks evaluated (held-out, or the development split's: `measuredTasks`) in the order every evaluation lists them. */
  tasks: Array<{ name: string; variant: number }>;
  evaluations: Map<number, Map<string, EvalOutput>>;
}

export const evalKey = (chapterStep: number, label: string) => `${chapterStep}/${label}`;

/**
 * Reads every evaluation of a study; a study with jobs not done (no valid output: `outputProblem`)
 * is an InputError that says how many and what to run.
 */
export function loadResults(plan: Plan): StudyResults {
  const evalJobs = plan.jobs.filter((job): job is EvalJob => job.kind === 'eval');
  const notDone = evalJobs.filter((job) => outputProblem(plan, job) !== undefined);
  if (notDone.length > 0)
    throw new InputError(
      `${plan.dir}: ${notDone.length} of ${evalJobs.length} evaluation jobs are not done (first: job ${notDone[0]!.index}); run tinyagent study run ${plan.dir}`,
    );
  const evaluations = new Map<number, Map<string, EvalOutput>>();
  for (const job of evalJobs) {
    const bySeed = evaluations.get(job.seed) ?? new Map<string, EvalOutput>();
    bySeed.set(evalKey(job.chapterStep, job.label), readEvalOutput(plan, job));
    evaluations.set(job.seed, bySeed);
  }
  const measured = measuredTasks(plan);
  const first = evaluations.get(plan.seeds[0]!)!.get(evalKey(0, 'a'))!;
  const tasks = first.perTask.map((count) => ({
    name: count.name,
    variant: measured.find((task) => task.name === count.name)?.variant ?? -1,
  }));
  return { plan, seeds: plan.seeds, tasks, evaluations };
}

/** One evaluation of one seed. */
export function evaluationOf(
  results: StudyResults,
  seed: number,
  chapterStep: number,
  label = 'a',
): EvalOutput {
  const found = results.evaluations.get(seed)?.get(evalKey(chapterStep, label));
  if (found === undefined)
    throw new InputError(
      `${results.plan.dir}: no evaluation ${label} of seed ${seed} at step ${chapterStep}`,
    );
  return found;
}

/** Per-task pass rates of one evaluation of every seed: scores[seed][task]. */
export function taskRates(results: StudyResults, chapterStep: number, label = 'a'): number[][] {
  return results.seeds.map((seed) =>
    evaluationOf(results, seed, chapterStep, label).perTask.map((count) => count.successes / count.episodes),
  );
}

/**
 * A committed study as a report reads it: absent (no plan), not finished (some evaluation not
 * done), or finished, with its plan and, when its evaluations were made by different code, the
 * line that says which jobs differ in what (`describeMixedFingerprints`): named by the report,
 * not refused. Only the evaluations count, as for `loadResults`: a committed study holds no
 * training weights (they are not committed), and no report reads them.
 */
export function finishedStudy(
  dir: string,
):
  | { state: 'absent' }
  | { state: 'unfinished'; plan: Plan; done: number; evaluations: number }
  | { state: 'finished'; plan: Plan; mixedCode: string | undefined } {
  // study.json is written last of the plan's files (writePlan): without it there is no study.
  if (!existsSync(join(dir, 'study.json'))) return { state: 'absent' };
  const plan = readPlan(dir);
  const evaluations = plan.jobs.filter((job) => job.kind === 'eval');
  const done = evaluations.filter((job) => outputProblem(plan, job) === undefined);
  if (done.length < evaluations.length)
    return { state: 'unfinished', plan, done: done.length, evaluations: evaluations.length };
  return { state: 'finished', plan, mixedCode: describeMixedFingerprints(fingerprintGroups(plan, done)) };
}
