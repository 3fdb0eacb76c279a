import { DEFAULT_LEASE_TIMEOUT, LEASE_TIMEOUT_ENV, LEASE_TIMEOUT_RANGE } from '../../../study/leases.ts';
import {
  type CommandArgs,
  decimals,
  type FlagSpec,
  integers,
  numberFlag,
  SEED_RANGE,
  switchFlag,
  UsageError,
  valueFlag,
} from '../../args.ts';

/** The flags of every `study` subcommand; each description starts with the subcommands that read it. */
export const STUDY_FLAGS: Record<string, FlagSpec> = {
  recipe: valueFlag('plan: default, smoke, or a JSON file of training config fields over the defaults'),
  seeds: valueFlag('plan: training seeds, e.g. 0-15 or 0,2,4'),
  out: valueFlag('plan: the study folder to write; compare: also write the comparison into this JSON file'),
  'eval-seed': valueFlag('plan: the study seed every eval seed is forked from', {
    default: '1',
    range: SEED_RANGE,
  }),
  threads: valueFlag("plan: threads per training (1 or 2; default the recipe's parallel)", {
    range: integers(1, 2),
  }),
  episodes: valueFlag(
    'plan: episodes per measured task (held-out, or the development split under devSplit) in every evaluation (default 64; smoke 8)',
    { range: integers(1, 1024) },
  ),
  steps: valueFlag('plan: chapter steps to evaluate, e.g. 0,80 (default all nine: 0,10,...,80)'),
  jobs: valueFlag(
    'run: CPU slots, a job running on the slots it holds: 1 each, or a training alone its threads (default: the cores)',
    { range: integers(1, 256) },
  ),
  index: valueFlag("run: run job I alone (the array schedulers' contract)", {
    range: integers(0, 1_000_000),
  }),
  offset: valueFlag('run: with --index I, run job K + I (an Indexed Job over part of the plan)', {
    default: '0',
    range: integers(0, 1_000_000),
  }),
  'lease-timeout': valueFlag(
    `run, status, unlock: seconds a claim may go unrenewed before it is taken over (default ${DEFAULT_LEASE_TIMEOUT}, or ${LEASE_TIMEOUT_ENV}; holders renew every tenth of it)`,
    { range: decimals(LEASE_TIMEOUT_RANGE.min, LEASE_TIMEOUT_RANGE.max) },
  ),
  force: switchFlag('unlock: also remove claims whose holder looks alive'),
  'allow-mixed': switchFlag(
    'report: merge outputs made by different code (their fingerprints differ); the report says so',
  ),
  dependency: valueFlag(
    "slurm: per-seed (each seed's evaluations start when its training is done) or array (when every training is)",
    { default: 'per-seed' },
  ),
  partition: valueFlag('slurm: the partition'),
  account: valueFlag('slurm: the account to charge'),
  time: valueFlag('slurm: wall time per array task, e.g. 01:00:00'),
  'train-cpus': valueFlag("slurm, k8s: CPUs of a training task (default: the training's threads)", {
    range: integers(1, 256),
  }),
  'eval-cpus': valueFlag('slurm, k8s: CPUs of an evaluation task', {
    default: '1',
    range: integers(1, 256),
  }),
  mem: valueFlag("slurm, k8s: memory per task, Slurm's size (1500M, 2G)", { default: '2G' }),
  sbatch: valueFlag('slurm: one more #SBATCH option such as --qos=long (repeatable)', { multiple: true }),
  'no-requeue': switchFlag(
    'slurm: #SBATCH --no-requeue instead of --requeue (a task on a lost node then fails)',
  ),
  submit: switchFlag('slurm: submit the jobs not done with sbatch and print the job ids'),
  image: valueFlag('k8s: container image built from the Dockerfile (ENTRYPOINT the CLI)', {
    default: 'tinyagent:local',
  }),
  claim: valueFlag('k8s: the PersistentVolumeClaim that holds the study folder', {
    default: 'tinyagent-studies',
  }),
  parallelism: valueFlag('k8s: pods at once', { default: '4', range: integers(1, 10_000) }),
  json: switchFlag('print JSON'),
};

/**
 * The lease timeout in seconds, read once here and passed to every job and worker: --lease-timeout,
 * else TINYAGENT_LEASE_TIMEOUT (which the schedulers' scripts export to their jobs), else the
 * default. The variable must be a plain decimal in range: `Number` would also read `0x10`, `1e1`
 * and ` 16 `.
 */
export function leaseTimeoutOf(args: CommandArgs): number {
  const text = process.env[LEASE_TIMEOUT_ENV];
  if (args.flags['lease-timeout'] !== undefined || text === undefined || text === '')
    return numberFlag(args, 'lease-timeout', DEFAULT_LEASE_TIMEOUT);
  const { min, max } = LEASE_TIMEOUT_RANGE;
  const seconds = Number(text);
  if (!/^(\d+\.?\d*|\.\d+)$/.test(text) || seconds < min || seconds > max)
    throw new UsageError(
      `${LEASE_TIMEOUT_ENV}=${JSON.stringify(text)} is not a decimal number of seconds in [${min}..${max}]`,
    );
  return seconds;
}
