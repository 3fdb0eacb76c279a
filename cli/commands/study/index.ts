import { readPlan, type Plan } from '../../../study/plan.ts';
import { clip, closestName } from '../../../lib/text.ts';
import { UsageError, type Command, type CommandArgs } from '../../args.ts';
import { leaseTimeoutOf, STUDY_FLAGS } from './flags.ts';

type OnStudy = (args: CommandArgs, plan: Plan, timeout: number) => Promise<void>;

/**
 * The subcommands on one study folder (read here, with the lease timeout), each its own module
 * loaded when asked for: `study run --index I` (every job of a scheduler) does not load the
 * report's statistics and figures (vega), whose imports would lengthen its start-up
 * (docs/MEASUREMENTS.md). `plan` takes no folder, `compare` two.
 */
const ON_STUDY: Record<string, () => Promise<OnStudy>> = {
  run: async () => (await import('./run.ts')).studyRun,
  status: async () => (await import('./status.ts')).studyStatus,
  unlock: async () => (await import('./unlock.ts')).studyUnlock,
  report: async () => (await import('./report.ts')).studyReport,
  slurm: async () => (await import('./schedulers.ts')).studySlurm,
  k8s: async () => (await import('./schedulers.ts')).studyK8s,
};

/** The subcommands, in the order their list names them. */
const NAMES = ['plan', ...Object.keys(ON_STUDY), 'compare'];

async function run(args: CommandArgs): Promise<void> {
  const [name, ...folders] = args.positionals as [string, ...string[]];
  if (!NAMES.includes(name)) {
    const near = closestName(name, NAMES);
    throw new UsageError(
      `unknown study command '${clip(name)}'${near === undefined ? '' : `; did you mean ${near}?`} (have ${NAMES.join(', ')})`,
    );
  }
  const wanted = name === 'plan' ? 0 : name === 'compare' ? 2 : 1;
  if (folders.length !== wanted)
    throw new UsageError(
      `study ${name} takes ${wanted === 1 ? 'one folder' : `${wanted} folders`}, got ${folders.length}`,
    );
  if (name === 'plan') return (await import('./plan.ts')).studyPlan(args);
  if (name === 'compare') return (await import('./compare.ts')).studyCompare(args, folders[0]!, folders[1]!);
  // The lease timeout first: every job reads it, so a bad one is refused before the plan is read.
  const timeout = leaseTimeoutOf(args);
  const plan = readPlan(folders[0]!);
  return (await ON_STUDY[name]!())(args, plan, timeout);
}

export const command: Command = {
  name: 'study',
  summary:
    'Seed studies: a recipe over many seeds as jobs, run here, on Slurm or on Kubernetes (docs/STUDIES.md)',
  usage: [
    'tinyagent study plan --recipe default|smoke|FILE --seeds 0-15 --out studies/NAME [--eval-seed 1] [--threads 1|2] [--episodes N] [--steps 0,80]',
    '       tinyagent study run DIR [--jobs N] [--lease-timeout S] | run DIR --index I [--offset K] [--lease-timeout S]',
    '       tinyagent study status DIR | report DIR [--allow-mixed] | unlock DIR [--force] [--lease-timeout S]',
    '       tinyagent study slurm DIR [--dependency per-seed|array] [--partition P --account A --time T] [--train-cpus N --eval-cpus N --mem 2G] [--sbatch OPTION]... [--no-requeue] [--submit]',
    '       tinyagent study k8s DIR [--image IMAGE --claim PVC --parallelism N --train-cpus N --eval-cpus N --mem 2G]',
    '       tinyagent study compare DIR_A DIR_B [--out FILE]',
  ].join('\n'),
  positionals: { min: 1, max: 3 },
  flags: STUDY_FLAGS,
  run,
};
