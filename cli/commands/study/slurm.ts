import {
  arrayList,
  quote,
  SLURM_DEPENDENCIES,
  submitSlurm,
  writeSlurmScripts,
  type SlurmDependency,
  type SubmittedArray,
} from '../../../study/scheduler.ts';
import type { Plan } from '../../../study/plan.ts';
import { count } from '../../../lib/text.ts';
import { boolFlag, listFlag, printJson, stringFlag, UsageError, type CommandArgs } from '../../args.ts';
import { taskResources } from './flags.ts';

/** --dependency, --partition, --account, --time, --sbatch, --no-requeue and the resources of the scripts. */
function slurmOptions(args: CommandArgs) {
  const dependency = stringFlag(args, 'dependency') ?? 'per-seed';
  if (!(SLURM_DEPENDENCIES as readonly string[]).includes(dependency))
    throw new UsageError(
      `--dependency must be ${SLURM_DEPENDENCIES.join(' or ')}, got ${JSON.stringify(dependency)}`,
    );
  const time = stringFlag(args, 'time');
  const partition = stringFlag(args, 'partition');
  const account = stringFlag(args, 'account');
  return {
    ...taskResources(args),
    dependency: dependency as SlurmDependency,
    requeue: !boolFlag(args, 'no-requeue'),
    sbatch: listFlag(args, 'sbatch'),
    ...(partition !== undefined ? { partition } : {}),
    ...(account !== undefined ? { account } : {}),
    ...(time !== undefined ? { time } : {}),
  };
}

/** What `study slurm --submit` submitted: the training array and the evaluation arrays, with their ids. */
function submittedLine(submitted: SubmittedArray[], todo: number, planned: number): string {
  const train = submitted.find((array) => array.script === 'train');
  const evaluations = submitted.filter((array) => array.script === 'eval');
  const describe = (array: SubmittedArray) =>
    `${array.id} (${array.seed !== undefined ? `seed ${array.seed}: ` : ''}--array=${arrayList(array.indices)}${array.dependency !== null ? `, ${array.dependency}` : ''})`;
  const parts = [
    ...(train !== undefined ? [`training array ${describe(train)}`] : []),
    ...(evaluations.length > 0
      ? [`evaluation array${evaluations.length === 1 ? '' : 's'} ${evaluations.map(describe).join(', ')}`]
      : []),
  ];
  return `submitted ${count(todo, 'job')} of ${planned}: ${parts.join(' and ')}`;
}

/** `study slurm`: writes the sbatch scripts and, with --submit, submits the jobs not done. */
export async function studySlurm(args: CommandArgs, plan: Plan, timeout: number): Promise<void> {
  const scripts = writeSlurmScripts(plan, { ...slurmOptions(args), leaseTimeout: timeout });
  const todo = scripts.arrays.reduce((total, array) => total + array.indices.length, 0);
  if (!boolFlag(args, 'submit')) {
    process.stdout.write(
      `wrote ${scripts.train}, ${scripts.eval} and ${scripts.submit}; ${todo === 0 ? 'every job is done: submit.sh submits nothing' : `submit the ${count(todo, 'job')} not done with: bash ${quote(scripts.submit)}`}\n`,
    );
    return;
  }
  const json = boolFlag(args, 'json');
  if (todo === 0) {
    if (json) printJson([]);
    else
      process.stdout.write(
        `${plan.dir}: every job is done (${count(plan.jobs.length, 'job')}); nothing submitted\n`,
      );
    return;
  }
  const submitted = submitSlurm(scripts);
  if (json) printJson(submitted);
  else process.stdout.write(`${submittedLine(submitted, todo, plan.jobs.length)}\n`);
}
