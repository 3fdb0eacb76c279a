import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { InputError, UsageError } from '../lib/errors.ts';
import { DEFAULT_LEASE_TIMEOUT, LEASE_TIMEOUT_ENV } from './leases.ts';
import { writeFileAtomic } from '../lib/atomic.ts';
import { studyFolder } from './disk.ts';
import { jobState } from './job.ts';
import { indexRuns } from './output.ts';
import type { Job, Plan } from './plan.ts';
import { jobCommand } from './runner.ts';

/** How evaluation arrays wait for the trainings: each seed's on its own training, or all on the whole training array. */
export const SLURM_DEPENDENCIES = ['per-seed', 'array'] as const;
export type SlurmDependency = (typeof SLURM_DEPENDENCIES)[number];

/** What every task of `study slurm` and `study k8s` asks for; `leaseTimeout` is exported to the jobs. */
interface TaskOptions {
  trainCpus?: number;
  evalCpus?: number;
  mem?: string;
  leaseTimeout?: number;
}

/** The flags of `study slurm`: `time` per array task, extra `sbatch` options. */
interface SlurmOptions extends TaskOptions {
  partition?: string;
  account?: string;
  time?: string;
  requeue?: boolean;
  sbatch?: string[];
  dependency?: SlurmDependency;
}

/** A task whose job another live lease holds sleeps this long before it runs `study run --index` again. */
const RETRY_SLEEP_SECONDS = 5;

/** Tries of a task whose job is held: three lease timeouts, room for a requeued task whose old holder still runs (a node cut off but alive) to see it finish. */
export const retryTries = (timeout: number) => Math.max(3, Math.ceil((3 * timeout) / RETRY_SLEEP_SECONDS));

/** A word for the shell: as it is when it is safe bare, else in single quotes. */
export const quote = (word: string) =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * The study folder as a script or a manifest names it: a line break (also YAML 1.1's U+2028/U+2029)
 * would end a script's comment or a manifest's scalar, and Slurm reads a backslash as an escape.
 */
function studyDir(plan: Plan, { slurm = false } = {}): string {
  const held = /[\p{Cc}\u2028\u2029]/u.test(plan.dir)
    ? 'a control character (a newline?)'
    : slurm && plan.dir.includes('\\')
      ? 'a backslash, which Slurm reads in #SBATCH lines and --output patterns as an escape'
      : undefined;
  if (held !== undefined)
    throw new InputError(
      `study folder ${JSON.stringify(plan.dir)} holds ${held}; move it to a path without one`,
    );
  return plan.dir;
}

/**
 * Options the scripts set themselves, refused in --sbatch, and so is a prefix of one: sbatch reads
 * an unambiguous prefix as the option (`--cpus-per-t=2` is `--cpus-per-task=2`).
 */
const OWN_OPTIONS =
  'array dependency output chdir job-name ntasks cpus-per-task mem requeue no-requeue'.split(' ');

/** Slurm's time limits (sbatch(1), --time), and no limit (0, INFINITE, UNLIMITED). */
const TIME = /^(\d{1,9}-\d{1,9}(:\d{1,9}){0,2}|\d{1,9}(:\d{1,9}){0,2}|infinite|unlimited)$/i;

/** Refuses all but Slurm's memory size: an integer with an optional unit K, M (the default), G or T. */
function checkMem(mem: string | undefined): void {
  if (mem !== undefined && !/^[1-9]\d{0,9}[KMGT]?$/.test(mem))
    throw new UsageError(
      `--mem must be Slurm's size, an integer with an optional unit K, M, G or T (such as 2G or 1500M), got ${JSON.stringify(mem)}`,
    );
}

/** Each value lands unquoted in a `#SBATCH` line. */
function checkSlurmOptions(options: SlurmOptions): void {
  const { partition, account, time, mem, sbatch = [], dependency } = options;
  for (const [flag, name, what] of [
    ['--partition', partition, 'a partition'],
    ['--account', account, 'an account'],
  ])
    if (name !== undefined && !/^[\w.,-]+$/.test(name))
      throw new UsageError(`${flag} ${JSON.stringify(name)} is not ${what} name`);
  if (time !== undefined && !TIME.test(time))
    throw new UsageError(
      `--time must be one of Slurm's time limits (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED), got ${JSON.stringify(time)}`,
    );
  checkMem(mem);
  if (dependency !== undefined && !(SLURM_DEPENDENCIES as readonly string[]).includes(dependency))
    throw new UsageError(
      `--dependency must be ${SLURM_DEPENDENCIES.join(' or ')}, got ${JSON.stringify(dependency)}`,
    );
  for (const line of sbatch) {
    // One long option, its value without a space, a quote or `#`, which would split or end the line's option.
    const option = /^--([a-z][a-z-]*)(=[\w@%+:,./=-]+)?$/.exec(line);
    if (option === null)
      throw new UsageError(
        `--sbatch ${JSON.stringify(line)} is not one sbatch option (such as --qos=long or --exclusive: a long option, its value without spaces, quotes or shell characters)`,
      );
    const name = option[1]!;
    const own = OWN_OPTIONS.filter((candidate) => candidate.startsWith(name));
    if (own.length > 0)
      throw new UsageError(
        `--sbatch ${JSON.stringify(line)}: ${own.includes(name) ? `--${name} is` : `sbatch reads --${name} as ${own.map((candidate) => `--${candidate}`).join(' or ')}, which is`} set by study slurm itself${own.includes('cpus-per-task') ? ' (use --train-cpus and --eval-cpus)' : own.includes('mem') ? ' (use --mem)' : ''}`,
      );
  }
}

/** The trainings and the evaluations, each with the CPUs of one task. */
function jobsByKind(plan: Plan, { trainCpus, evalCpus = 1 }: TaskOptions) {
  const trains = plan.jobs.filter((job) => job.kind === 'train');
  const threads = Math.max(1, ...trains.map((job) => job.threads));
  return [
    { name: 'train' as const, jobs: trains, cpus: trainCpus ?? threads },
    { name: 'eval' as const, jobs: plan.jobs.filter((job) => job.kind === 'eval'), cpus: evalCpus },
  ];
}

/** `0-3,5,7-9` */
export const arrayList = (indices: readonly number[]) => indexRuns(indices).join(',');

/** One sbatch call of a submission: `after` the training array or its task `task` (absent: the trainings are done). */
interface SlurmArray {
  script: 'train' | 'eval';
  indices: number[];
  seed?: number;
  after?: { task?: number };
}

/** The trainings as one array, then the evaluations per seed (after its training's task) or as one array after the whole training array. */
function slurmArrays(
  plan: Plan,
  todo: ReadonlySet<number>,
  dependency: SlurmDependency = 'per-seed',
): SlurmArray[] {
  const pending = plan.jobs.filter((job) => todo.has(job.index));
  const trains = pending.filter((job) => job.kind === 'train').map((job) => job.index);
  const evaluations = pending.filter((job) => job.kind === 'eval');
  const arrays: SlurmArray[] = trains.length > 0 ? [{ script: 'train', indices: trains }] : [];
  const waits = (job: Job) => job.dependsOn.some((index) => trains.includes(index));
  if (dependency === 'array') {
    if (evaluations.length > 0)
      arrays.push({
        script: 'eval',
        indices: evaluations.map((job) => job.index),
        ...(evaluations.some(waits) ? { after: {} } : {}),
      });
    return arrays;
  }
  for (const seed of [...new Set(evaluations.map((job) => job.seed))]) {
    const ofSeed = evaluations.filter((job) => job.seed === seed);
    const training = ofSeed[0]!.dependsOn.find((index) => trains.includes(index));
    arrays.push({
      script: 'eval',
      indices: ofSeed.map((job) => job.index),
      seed,
      ...(training !== undefined ? { after: { task: training } } : {}),
    });
  }
  return arrays;
}

/** The sbatch arguments of one array; `train` is the training array's job id (a shell expansion in submit.sh). */
function sbatchArgs(array: SlurmArray, script: string, train: string): string[] {
  return [
    '--parsable',
    `--array=${arrayList(array.indices)}`,
    ...(array.seed !== undefined ? [`--job-name=tinyagent-eval-seed${array.seed}`] : []),
    // A failed training makes the dependency unsatisfiable: its evaluations are cancelled rather than left pending forever.
    ...(array.after !== undefined
      ? [
          '--kill-on-invalid-dep=yes',
          `--dependency=afterok:${train}${array.after.task !== undefined ? `_${array.after.task}` : ''}`,
        ]
      : []),
    script,
  ];
}

function sbatchScript(
  dir: string,
  { name, indices, cpus, options }: { name: string; indices: number[]; cpus: number; options: SlurmOptions },
): string {
  const command = jobCommand(dir, '$SLURM_ARRAY_TASK_ID').map((word, i, all) =>
    i === all.length - 1 ? '"$SLURM_ARRAY_TASK_ID"' : quote(word),
  );
  const timeout = options.leaseTimeout ?? DEFAULT_LEASE_TIMEOUT;
  const tries = retryTries(timeout);
  return [
    '#!/bin/bash',
    `# The ${name} jobs of the study in ${quote(dir)}; written by tinyagent study slurm.`,
    '# Each array task runs one job of the plan: tinyagent study run DIR --index $SLURM_ARRAY_TASK_ID.',
    '# A job another live lease holds (exit 75: e.g. a requeued task whose old node still holds it)',
    `# is tried again every ${RETRY_SLEEP_SECONDS} s, ${tries} tries in all (three lease timeouts of ${timeout} s).`,
    `#SBATCH --job-name=tinyagent-${name}`,
    `#SBATCH --array=${arrayList(indices)}`,
    `#SBATCH --cpus-per-task=${cpus}`,
    '#SBATCH --ntasks=1',
    `#SBATCH --mem=${options.mem ?? '2G'}`,
    // Said either way: left out, the site's JobRequeue decides (1, requeue, is Slurm's default).
    `#SBATCH --${options.requeue !== false ? '' : 'no-'}requeue`,
    ...(options.partition !== undefined ? [`#SBATCH --partition=${options.partition}`] : []),
    ...(options.account !== undefined ? [`#SBATCH --account=${options.account}`] : []),
    ...(options.time !== undefined ? [`#SBATCH --time=${options.time}`] : []),
    ...(options.sbatch ?? []).map((line) => `#SBATCH ${line}`),
    `#SBATCH --output=${quote(join(dir.replace(/%/g, '%%'), 'logs', `slurm-${name}-%A_%a.out`))}`,
    `#SBATCH --chdir=${quote(dir)}`,
    'set -euo pipefail',
    `export ${LEASE_TIMEOUT_ENV}="\${${LEASE_TIMEOUT_ENV}:-${timeout}}"`,
    'for ((try = 1; ; try++)); do',
    '  status=0',
    `  ${command.join(' ')} || status=$?`,
    `  if ((status != 75 || try >= ${tries})); then exit "$status"; fi`,
    `  echo "tinyagent slurm: job $SLURM_ARRAY_TASK_ID is held by another live lease (exit 75); try $try of ${tries}, again in ${RETRY_SLEEP_SECONDS} s" >&2`,
    `  sleep ${RETRY_SLEEP_SECONDS}`,
    'done',
    '',
  ].join('\n');
}

/** Writes `<study>/slurm/train.sbatch`, `eval.sbatch` and `submit.sh`, which submits the jobs not done now. */
export function writeSlurmScripts(plan: Plan, options: SlurmOptions = {}) {
  checkSlurmOptions(options);
  const study = studyDir(plan, { slurm: true });
  const dir = join(study, 'slurm');
  const todo = new Set(
    plan.jobs.filter((job) => jobState(plan, job).state !== 'done').map((job) => job.index),
  );
  const arrays = slurmArrays(plan, todo, options.dependency);
  const paths = {
    train: join(dir, 'train.sbatch'),
    eval: join(dir, 'eval.sbatch'),
    submit: join(dir, 'submit.sh'),
  };
  // Slurm opens each task's --output file before the task starts: the folders are made, once every value is checked.
  for (const folder of ['slurm', 'logs']) studyFolder(plan.dir, folder);
  for (const { name, jobs, cpus } of jobsByKind(plan, options)) {
    const indices = jobs.map((job) => job.index);
    writeFileAtomic(paths[name], sbatchScript(study, { name, indices, cpus, options }));
  }
  const ids = arrays.map((array, i) => (array.script === 'train' ? 'train' : `eval${i}`));
  const lines = arrays.map((array, i) => {
    const args = sbatchArgs(array, paths[array.script], '${train}').map((word) =>
      word.includes('${train}') ? `"${word}"` : quote(word),
    );
    return `${ids[i]}=$(sbatch ${args.join(' ')}); ${ids[i]}=\${${ids[i]}%%;*}`;
  });
  writeFileAtomic(
    paths.submit,
    [
      '#!/bin/bash',
      `# Submits the jobs of the study not done when this was written (${todo.size} of ${plan.jobs.length}): the training`,
      `# array, then ${options.dependency === 'array' ? 'the evaluation array, after every training task ended well' : "one evaluation array per seed, after its own training's task"}.`,
      '# Write it again (tinyagent study slurm DIR) before submitting after some jobs ran.',
      'set -euo pipefail',
      ...(arrays.length === 0
        ? ['echo "every job of the study was done when this was written: nothing to submit"']
        : [...lines, `echo ${ids.map((id) => `"$${id}"`).join(' ')}`]),
      '',
    ].join('\n'),
  );
  return { ...paths, arrays };
}

/** `dependency`: what it was submitted with (`afterok:12_3`), or null. */
export interface SubmittedArray extends SlurmArray {
  id: string;
  dependency: string | null;
}

type SlurmScripts = ReturnType<typeof writeSlurmScripts>;

/** Submits the arrays of `writeSlurmScripts` with sbatch, as submit.sh does. */
export function submitSlurm(scripts: SlurmScripts): SubmittedArray[] {
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
  const submitted: SubmittedArray[] = [];
  let train = '';
  for (const array of scripts.arrays) {
    const args = sbatchArgs(array, scripts[array.script], train);
    const id = sbatch(args);
    if (array.script === 'train') train = id;
    const dependency = args.find((arg) => arg.startsWith('--dependency='));
    submitted.push({ ...array, id, dependency: dependency?.slice('--dependency='.length) ?? null });
  }
  return submitted;
}

/** Where a Kubernetes pod mounts the study folder: the manifests name no path of the planning host. */
export const K8S_STUDY_PATH = '/study';

/** Slurm's memory size as a Kubernetes quantity (Slurm's K, M, G, T are binary units; no unit is M). */
const k8sMemory = (mem: string) => mem.replace(/[KMGT]?$/, (unit) => `${unit === '' ? 'M' : unit}i`);

interface K8sOptions extends TaskOptions {
  image: string;
  claim: string;
  parallelism: number;
}

/**
 * Writes `<study>/k8s/train.yaml` and `eval.yaml`, two Indexed Jobs; Kubernetes has no dependency
 * between Jobs, so eval.yaml is applied once train.yaml's Job is complete.
 */
export function writeK8sManifests(plan: Plan, options: K8sOptions): { train: string; eval: string } {
  const { image, claim, parallelism, mem = '2G' } = options;
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
  checkMem(mem);
  const dir = studyDir(plan);
  const folder = studyFolder(dir, 'k8s');
  const paths = { train: join(folder, 'train.yaml'), eval: join(folder, 'eval.yaml') };
  const timeout = options.leaseTimeout ?? DEFAULT_LEASE_TIMEOUT;
  for (const { name: kind, jobs, cpus } of jobsByKind(plan, options)) {
    const offset = jobs[0]?.index ?? 0;
    const args = [...jobCommand(K8S_STUDY_PATH, '$(JOB_COMPLETION_INDEX)').slice(2), '--offset', `${offset}`];
    const manifest = [
      `# The ${kind === 'train' ? 'trainings' : 'evaluations'} of a study as an Indexed Job; written by tinyagent study k8s.`,
      `# Pod i runs job ${offset} + i of plan.jsonl with the image's CLI (ENTRYPOINT node /app/bin/tinyagent.js),`,
      `# the study folder mounted at ${K8S_STUDY_PATH} from the PersistentVolumeClaim.`,
      ...(kind === 'eval'
        ? ['# Apply it once the training Job is complete: an evaluation whose training is not done fails.']
        : []),
      'apiVersion: batch/v1',
      'kind: Job',
      'metadata:',
      `  name: tinyagent-study-${plan.configHash.slice(0, 8)}-${kind}`,
      'spec:',
      '  completionMode: Indexed',
      `  completions: ${jobs.length}`,
      `  parallelism: ${parallelism}`,
      '  # backoffLimitPerIndex and maxFailedIndexes need Kubernetes 1.29+ (beta there, on by default).',
      '  backoffLimitPerIndex: 6',
      `  maxFailedIndexes: ${jobs.length}`,
      '  # Exit 75: the job is held by another live lease (another pod or node runs it); not a failure.',
      '  podFailurePolicy:',
      '    rules:',
      '      - action: Ignore',
      '        onExitCodes: { operator: In, values: [75] }',
      '  template:',
      '    spec:',
      '      restartPolicy: Never',
      '      containers:',
      '        - name: job',
      // JSON strings are YAML double-quoted scalars.
      `          image: ${JSON.stringify(image)}`,
      `          args: ${JSON.stringify(args).replace(/","/g, '", "')}`,
      // $(NAME) in args expands from the env: JOB_COMPLETION_INDEX declared too, not left to the Job controller.
      '          env:',
      `            - { name: "JOB_COMPLETION_INDEX", valueFrom: { fieldRef: { fieldPath: ${JSON.stringify("metadata.annotations['batch.kubernetes.io/job-completion-index']")} } } }`,
      `            - { name: ${JSON.stringify(LEASE_TIMEOUT_ENV)}, value: ${JSON.stringify(String(timeout))} }`,
      '          resources:',
      `            requests: { cpu: "${cpus}", memory: "${k8sMemory(mem)}" }`,
      '          volumeMounts:',
      '            - name: study',
      `              mountPath: ${JSON.stringify(K8S_STUDY_PATH)}`,
      '      volumes:',
      '        - name: study',
      `          persistentVolumeClaim: { claimName: ${JSON.stringify(claim)} }`,
      '',
    ].join('\n');
    writeFileAtomic(paths[kind], manifest);
  }
  return paths;
}

/** What the contract test runs here, through the image's ENTRYPOINT. */
export function k8sContainerArgs(manifest: string): string[] {
  const line = manifest.split('\n').find((text) => text.trim().startsWith('args:'));
  if (line === undefined) throw new InputError('the manifest has no container args');
  return JSON.parse(line.trim().slice('args:'.length)) as string[];
}
