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

/** Every evaluation of a finished study, by seed and then by `chapterStep/label`; `tasks` in the evaluations' order. */
export interface StudyResults {
  plan: Plan;
  seeds: number[];
  tasks: Array<{ name: string; variant: number }>;
  evaluations: Map<number, Map<string, EvalOutput>>;
}

export const evalKey = (chapterStep: number, label: string) => `${chapterStep}/${label}`;

/** Reads every evaluation of a study; jobs not done (no valid output: `outputProblem`) are an InputError saying what to run. */
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
 * A committed study as a report reads it: absent, unfinished, or finished with the line naming
 * the jobs made by different code, if any. Only the evaluations count: training weights are not committed.
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
