import { readPlan, type Plan } from '../../../study/plan.ts';
import { clip, closestName } from '../../../lib/text.ts';
import { UsageError, type Command, type CommandArgs } from '../../args.ts';
import { leaseTimeoutOf, STUDY_FLAGS } from './flags.ts';

/**
 * The subcommands of `tinyagent study`, each its own module, loaded when asked for: `study run
 * --index I` (every job of a scheduler) does not load the report's statistics and figures (vega),
 * whose imports would lengthen its start-up (docs/MEASUREMENTS.md). `plan` takes no folder,
 * `compare` two; the others one study folder, read here, and the lease timeout.
 */
const SUBCOMMANDS = {
  plan: async (args: CommandArgs) => (await import('./plan.ts')).studyPlan(args),
  run: async (args: CommandArgs, plan: Plan, timeout: number) =>
    (await import('./run.ts')).studyRun(args, plan, timeout),
  status: async (args: CommandArgs, plan: Plan, timeout: number) =>
    (await import('./status.ts')).studyStatus(args, plan, timeout),
  unlock: async (args: CommandArgs, plan: Plan, timeout: number) =>
    (await import('./unlock.ts')).studyUnlock(args, plan, timeout),
  report: async (args: CommandArgs, plan: Plan) => (await import('./report.ts')).studyReport(args, plan),
  slurm: async (args: CommandArgs, plan: Plan, timeout: number) =>
    (await import('./slurm.ts')).studySlurm(args, plan, timeout),
  k8s: async (args: CommandArgs, plan: Plan, timeout: number) =>
    (await import('./k8s.ts')).studyK8s(args, plan, timeout),
  compare: async (args: CommandArgs, a: string, b: string) =>
    (await import('./compare.ts')).studyCompare(args, a, b),
} as const;

type Subcommand = keyof typeof SUBCOMMANDS;

async function run(args: CommandArgs): Promise<void> {
  const [name, ...folders] = args.positionals as [string, ...string[]];
  if (!Object.hasOwn(SUBCOMMANDS, name)) {
    const names = Object.keys(SUBCOMMANDS);
    const near = closestName(name, names);
    throw new UsageError(
      `unknown study command '${clip(name)}'${near === undefined ? '' : `; did you mean ${near}?`} (have ${names.join(', ')})`,
    );
  }
  const sub = name as Subcommand;
  const wanted = sub === 'plan' ? 0 : sub === 'compare' ? 2 : 1;
  if (folders.length !== wanted)
    throw new UsageError(
      `study ${sub} takes ${wanted === 1 ? 'one folder' : `${wanted} folders`}, got ${folders.length}`,
    );
  if (sub === 'plan') return SUBCOMMANDS.plan(args);
  if (sub === 'compare') return SUBCOMMANDS.compare(args, folders[0]!, folders[1]!);
  // The lease timeout first: every job reads it, so a bad one is refused before the plan is read.
  const timeout = leaseTimeoutOf(args);
  return SUBCOMMANDS[sub](args, readPlan(folders[0]!), timeout);
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
