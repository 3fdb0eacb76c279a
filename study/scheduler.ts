import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { InputError, UsageError } from '../lib/errors.ts';
import { studyFolder, writeStudyFile } from './disk.ts';
import type { Plan } from './plan.ts';
import { jobCommand } from './runner.ts';

export interface SlurmOptions {
  partition?: string;
  /** Wall time per array task, Slurm's `--time` (e.g. 00:30:00). */
  time?: string;
  /** CPUs of an evaluation task; a training task gets as many as its threads, at least this. */
  cpusPerTask: number;
}

/** A word for the shell: as it is when it is safe bare, else in single quotes. */
export const quote = (word: string) =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

// A line break (C0, C1, DEL, and YAML 1.1's U+2028/U+2029) in a value ends a script's comment
// or a manifest's scalar and starts a command or a key: no quoting makes such a value safe in
// both a `#SBATCH` line and a shell word, so it is refused.
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

/** The study folder of a plan, refused when a control character in it would break a script or a manifest. */
function studyDir(plan: Plan): string {
  if (CONTROL.test(plan.dir))
    throw new InputError(
      `study folder ${JSON.stringify(plan.dir)} holds a control character (a newline?); move it to a path without one`,
    );
  return plan.dir;
}

/** Slurm's `--partition` and `--time`, checked: each lands unquoted in a `#SBATCH` line. */
function checkSlurmOptions({ partition, time }: SlurmOptions): void {
  if (partition !== undefined && !/^[\w.,-]+$/.test(partition))
    throw new UsageError(`--partition ${JSON.stringify(partition)} is not a partition name`);
  if (time !== undefined && !/^(\d+-)?\d{1,2}(:\d{2}){0,2}$/.test(time))
    throw new UsageError(`--time must be Slurm's [D-]HH[:MM[:SS]], got ${JSON.stringify(time)}`);
}

/** The indices of a study's training jobs and of its evaluation jobs, each a contiguous range. */
function ranges(plan: Plan): { train: [number, number]; eval: [number, number] } {
  const trains = plan.jobs.filter((job) => job.kind === 'train').length;
  return { train: [0, trains - 1], eval: [trains, plan.jobs.length - 1] };
}

function sbatchScript(
  plan: Plan,
  {
    name,
    range,
    cpus,
    options,
  }: { name: string; range: [number, number]; cpus: number; options: SlurmOptions },
): string {
  const dir = studyDir(plan);
  const command = jobCommand(dir, '$SLURM_ARRAY_TASK_ID').map((word, i, all) =>
    i === all.length - 1 ? '"$SLURM_ARRAY_TASK_ID"' : quote(word),
  );
  return [
    '#!/bin/bash',
    `# ${name} jobs ${range[0]}..${range[1]} of the study in ${quote(dir)}; written by tinyagent study slurm.`,
    '# Each array task runs one job of the plan: tinyagent study run DIR --index $SLURM_ARRAY_TASK_ID.',
    `#SBATCH --job-name=tinyagent-${name}`,
    `#SBATCH --array=${range[0]}-${range[1]}`,
    `#SBATCH --cpus-per-task=${cpus}`,
    '#SBATCH --ntasks=1',
    ...(options.partition !== undefined ? [`#SBATCH --partition=${options.partition}`] : []),
    ...(options.time !== undefined ? [`#SBATCH --time=${options.time}`] : []),
    `#SBATCH --output=${quote(join(dir, 'logs', `slurm-${name}-%A_%a.out`))}`,
    `#SBATCH --chdir=${quote(dir)}`,
    'set -euo pipefail',
    command.join(' '),
    '',
  ].join('\n');
}

/**
 * Writes `<study>/slurm/train.sbatch` (an array over the training jobs), `eval.sbatch` (an array
 * over the evaluations) and `submit.sh`, which submits the first and then the second with
 * `--dependency=afterok` on it. Returns the paths.
 */
export function writeSlurmScripts(
  plan: Plan,
  options: SlurmOptions,
): { train: string; eval: string; submit: string } {
  checkSlurmOptions(options);
  const { train, eval: evaluations } = ranges(plan);
  const threads = plan.config.parallel ? 2 : 1;
  const dir = join(studyDir(plan), 'slurm');
  const paths = {
    train: join(dir, 'train.sbatch'),
    eval: join(dir, 'eval.sbatch'),
    submit: join(dir, 'submit.sh'),
  };
  // Slurm opens each task's --output file before the task starts: the folder must exist. Made
  // only now, once every value is checked; a link or a file in their place is refused.
  for (const folder of ['slurm', 'logs']) studyFolder(plan.dir, folder);
  writeStudyFile(
    paths.train,
    sbatchScript(plan, {
      name: 'train',
      range: train,
      cpus: Math.max(threads, options.cpusPerTask),
      options,
    }),
  );
  writeStudyFile(
    paths.eval,
    sbatchScript(plan, { name: 'eval', range: evaluations, cpus: options.cpusPerTask, options }),
  );
  writeStudyFile(
    paths.submit,
    [
      '#!/bin/bash',
      '# Submits the training array, then the evaluation array to start when every training task ended well.',
      'set -euo pipefail',
      `train=$(sbatch --parsable ${quote(paths.train)})`,
      `evaluations=$(sbatch --parsable --kill-on-invalid-dep=yes --dependency=afterok:"\${train%%;*}" ${quote(paths.eval)})`,
      'echo "$train $evaluations"',
      '',
    ].join('\n'),
  );
  return paths;
}

/** Submits the two arrays with sbatch; returns their job ids. sbatch missing is an InputError naming the packages. */
export function submitSlurm(paths: { train: string; eval: string }): { train: string; eval: string } {
  const sbatch = (args: string[]) => {
    try {
      return execFileSync('sbatch', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
        .trim()
        .split(';')[0]!;
    } catch (error) {
      const failure = error as NodeJS.ErrnoException & { stderr?: string };
      if (failure.code === 'ENOENT')
        throw new InputError(
          'sbatch is not on PATH: run this on a Slurm login node (Debian: apt-get install slurm-client), or submit slurm/submit.sh there',
        );
      throw new InputError(`sbatch failed: ${(failure.stderr ?? failure.message).trim().split('\n')[0]}`);
    }
  };
  const train = sbatch(['--parsable', paths.train]);
  // A failed training makes the dependency unsatisfiable: the evaluations are cancelled rather than left pending forever.
  const evaluation = sbatch([
    '--parsable',
    '--kill-on-invalid-dep=yes',
    `--dependency=afterok:${train}`,
    paths.eval,
  ]);
  return { train, eval: evaluation };
}

/**
 * Writes `<study>/k8s/job.yaml`: an Indexed Job with one completion per job of the plan, each pod
 * running `study run DIR --index $JOB_COMPLETION_INDEX` on the study folder mounted from a shared
 * volume (a PersistentVolumeClaim). Kubernetes has no dependency between indices, so an
 * evaluation whose training is not done fails and is retried (backoffLimitPerIndex) until it is.
 */
export function writeK8sManifest(
  plan: Plan,
  { image, claim, parallelism }: { image: string; claim: string; parallelism: number },
): string {
  // An empty image is YAML's null; whitespace or a line break would end the scalar.
  if (!/^[^\s\p{Cc}\u2028\u2029]+$/u.test(image))
    throw new UsageError(
      `--image ${JSON.stringify(image)} is not a container image reference (such as tinyagent:local)`,
    );
  // Kubernetes names a PersistentVolumeClaim with a DNS subdomain (RFC 1123).
  if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(claim))
    throw new UsageError(
      `--claim ${JSON.stringify(claim)} is not a PersistentVolumeClaim name (lower-case letters, digits, '-' and '.')`,
    );
  const dir = studyDir(plan);
  const path = join(studyFolder(dir, 'k8s'), 'job.yaml');
  const [node, bin] = jobCommand(dir, 0);
  const threads = plan.config.parallel ? 2 : 1;
  const manifest = [
    '# An Indexed Job over every job of the study; written by tinyagent study k8s.',
    '# Pod i runs job i of plan.jsonl; the study folder is on the shared volume, at the same path.',
    'apiVersion: batch/v1',
    'kind: Job',
    'metadata:',
    `  name: tinyagent-study-${plan.configHash.slice(0, 8)}`,
    'spec:',
    '  completionMode: Indexed',
    `  completions: ${plan.jobs.length}`,
    `  parallelism: ${parallelism}`,
    '  backoffLimitPerIndex: 6',
    `  maxFailedIndexes: ${plan.jobs.length}`,
    '  template:',
    '    spec:',
    '      restartPolicy: Never',
    '      containers:',
    '        - name: job',
    // JSON strings are YAML double-quoted scalars.
    `          image: ${JSON.stringify(image)}`,
    `          workingDir: ${JSON.stringify(dir)}`,
    `          command: ["/bin/sh", "-c", ${JSON.stringify(`exec ${quote(node!)} ${quote(bin!)} study run ${quote(dir)} --index "$JOB_COMPLETION_INDEX"`)}]`,
    '          resources:',
    `            requests: { cpu: "${threads}" }`,
    '          volumeMounts:',
    '            - name: study',
    `              mountPath: ${JSON.stringify(dir)}`,
    '      volumes:',
    '        - name: study',
    `          persistentVolumeClaim: { claimName: ${JSON.stringify(claim)} }`,
    '',
  ].join('\n');
  writeStudyFile(path, manifest);
  return path;
}

/** The shell command of the manifest's container (what the contract test runs here). */
export function k8sCommand(manifest: string): string {
  const line = manifest.split('\n').find((text) => text.trim().startsWith('command:'));
  if (line === undefined) throw new InputError('the manifest has no command');
  return (JSON.parse(line.trim().slice('command:'.length)) as string[])[2]!;
}
