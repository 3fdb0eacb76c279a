import { getOrAdd } from '../lib/collections.ts';
import { InputError } from '../lib/errors.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  describeMixedFingerprints,
  fingerprintGroups,
  inJob,
  outputProblem,
  readRecord,
  RESULT_FILE,
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

function evaluationsDone(plan: Plan): { evalJobs: EvalJob[]; done: EvalJob[] } {
  const evalJobs = plan.jobs.filter((job): job is EvalJob => job.kind === 'eval');
  return { evalJobs, done: evalJobs.filter((job) => outputProblem(plan, job) === undefined) };
}

/** Reads every evaluation of a study; a done job's result.json was checked by `outputProblem`, so it is read, not checked again. */
export function loadResults(plan: Plan): StudyResults {
  const { evalJobs, done } = evaluationsDone(plan);
  if (done.length < evalJobs.length)
    throw new InputError(
      `${plan.dir}: ${evalJobs.length - done.length} of ${evalJobs.length} evaluation jobs are not done (first: job ${evalJobs.find((job) => !done.includes(job))!.index}); run tinyagent study run ${plan.dir}`,
    );
  const evaluations = new Map<number, Map<string, EvalOutput>>();
  for (const job of evalJobs)
    getOrAdd(evaluations, job.seed, () => new Map()).set(
      evalKey(job.chapterStep, job.label),
      JSON.parse(readRecord(plan.dir, inJob(job, RESULT_FILE))) as EvalOutput,
    );
  // Every result.json lists the measured tasks in this order (`outputProblem` checked it).
  const tasks = measuredTasks(plan).map(({ name, variant }) => ({ name, variant }));
  return { plan, seeds: plan.seeds, tasks, evaluations };
}

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

/** scores[seed][task] */
export function taskRates(results: StudyResults, chapterStep: number, label = 'a'): number[][] {
  return results.seeds.map((seed) =>
    evaluationOf(results, seed, chapterStep, label).perTask.map((count) => count.successes / count.episodes),
  );
}

/** A committed study as a report reads it; only the evaluations count: training weights are not committed. */
export function finishedStudy(
  dir: string,
):
  | { state: 'absent' }
  | { state: 'unfinished'; plan: Plan; done: number; evaluations: number }
  | { state: 'finished'; plan: Plan; mixedCode: string | undefined } {
  // study.json is written last of the plan's files (writePlan): without it there is no study.
  if (!existsSync(join(dir, 'study.json'))) return { state: 'absent' };
  const plan = readPlan(dir);
  const { evalJobs, done } = evaluationsDone(plan);
  if (done.length < evalJobs.length)
    return { state: 'unfinished', plan, done: done.length, evaluations: evalJobs.length };
  return { state: 'finished', plan, mixedCode: describeMixedFingerprints(fingerprintGroups(plan, done)) };
}
