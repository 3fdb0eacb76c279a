import { readFileSync } from 'node:fs';
import {
  arrayList,
  k8sContainerArgs,
  quote,
  SLURM_DEPENDENCIES,
  submitSlurm,
  writeK8sManifests,
  writeSlurmScripts,
  type SlurmDependency,
  type SubmittedArray,
} from '../../../study/scheduler.ts';
import type { Plan } from '../../../study/plan.ts';
import { count } from '../../../lib/text.ts';
import {
  boolFlag,
  definedFields,
  intFlag,
  listFlag,
  printJson,
  stringFlag,
  UsageError,
  type CommandArgs,
} from '../../args.ts';

/** --train-cpus, --eval-cpus and --mem: what each task of `study slurm` and `study k8s` asks for. */
function taskResources(args: CommandArgs) {
  return {
    ...definedFields({ trainCpus: intFlag(args, 'train-cpus', undefined) }),
    evalCpus: intFlag(args, 'eval-cpus', 1),
    mem: stringFlag(args, 'mem') ?? '2G',
  };
}

/** --dependency, --partition, --account, --time, --sbatch, --no-requeue and the resources of the scripts. */
function slurmOptions(args: CommandArgs) {
  const dependency = stringFlag(args, 'dependency') ?? 'per-seed';
  if (!(SLURM_DEPENDENCIES as readonly string[]).includes(dependency))
    throw new UsageError(
      `--dependency must be ${SLURM_DEPENDENCIES.join(' or ')}, got ${JSON.stringify(dependency)}`,
    );
  return {
    ...taskResources(args),
    dependency: dependency as SlurmDependency,
    requeue: !boolFlag(args, 'no-requeue'),
    sbatch: listFlag(args, 'sbatch'),
    ...definedFields({
      partition: stringFlag(args, 'partition'),
      account: stringFlag(args, 'account'),
      time: stringFlag(args, 'time'),
    }),
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

/** `study k8s`: writes the two Indexed Job manifests (training, then evaluation). */
export async function studyK8s(args: CommandArgs, plan: Plan, timeout: number): Promise<void> {
  const paths = writeK8sManifests(plan, {
    ...taskResources(args),
    leaseTimeout: timeout,
    image: stringFlag(args, 'image') ?? 'tinyagent:local',
    claim: stringFlag(args, 'claim') ?? 'tinyagent-studies',
    parallelism: intFlag(args, 'parallelism', 4),
  });
  const podCommand = (path: string) => `tinyagent ${k8sContainerArgs(readFileSync(path, 'utf8')).join(' ')}`;
  process.stdout.write(
    `wrote ${paths.train} (pods run: ${podCommand(paths.train)}) and ${paths.eval} (${podCommand(paths.eval)}); apply the second once the first Job is complete\n`,
  );
}
