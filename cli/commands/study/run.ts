import { availableParallelism } from 'node:os';
import { outcomeLine, runJob } from '../../../study/job.ts';
import type { Plan } from '../../../study/plan.ts';
import { runStudy } from '../../../study/runner.ts';
import { RetryError } from '../../../lib/errors.ts';
import { count } from '../../../lib/text.ts';
import { boolFlag, InputError, intFlag, printJson, UsageError, type CommandArgs } from '../../args.ts';

/** `study run DIR --index I [--offset K]`: job K + I alone, the array schedulers' contract. */
async function runOne(args: CommandArgs, plan: Plan, timeout: number): Promise<void> {
  if (args.flags.jobs !== undefined) throw new UsageError('give --index or --jobs, not both');
  const offset = intFlag(args, 'offset', 0);
  const index = offset + intFlag(args, 'index', 0);
  if (index >= plan.jobs.length)
    throw new UsageError(
      `--index ${offset === 0 ? index : `${index - offset} --offset ${offset} (job ${index})`} is out of range: the plan has jobs 0 to ${plan.jobs.length - 1}`,
    );
  const outcome = await runJob(plan, index, {
    quiet: false,
    timeout,
    say: (line) => process.stderr.write(`tinyagent study: ${line}\n`),
  });
  // Held by a live lease: not done, exit 75, so that afterok and backoffLimitPerIndex see it.
  if (typeof outcome !== 'string') throw new RetryError(outcomeLine(plan, index, outcome));
  process.stdout.write(`${outcomeLine(plan, index, outcome)}\n`);
}

/** `study run DIR [--jobs N]`: every job not done, on this machine's CPU slots. */
async function runAll(args: CommandArgs, plan: Plan, timeout: number): Promise<void> {
  const workers = intFlag(args, 'jobs', availableParallelism());
  const summary = await runStudy(plan, {
    workers,
    timeout,
    say: (line) => process.stderr.write(`${line}\n`),
  });
  if (boolFlag(args, 'json')) printJson(summary);
  else
    process.stdout.write(
      `${plan.dir}: ${count(summary.ran, 'job')} ran, ${summary.skipped} ${summary.skipped === 1 ? 'was' : 'were'} done, ${summary.failed.length} failed, ${summary.blocked} left pending; ${summary.seconds.toFixed(1)} s on ${count(workers, 'CPU slot')}\n`,
    );
  if (summary.failed.length > 0)
    throw new InputError(
      `${count(summary.failed.length, 'job')} failed (first: job ${summary.failed[0]!.index}, log ${summary.failed[0]!.log}); rerun study run to retry them`,
    );
  if (summary.blocked > 0)
    throw new RetryError(
      `${summary.blocked === 1 ? '1 job is' : `${summary.blocked} jobs are`} not done (held by other runs, their claim lost while they ran, or waiting on them); rerun study run when they end`,
    );
}

/** `study run`: one job (--index) or all of them. */
export async function studyRun(args: CommandArgs, plan: Plan, timeout: number): Promise<void> {
  if (args.flags.offset !== undefined && args.flags.index === undefined)
    throw new UsageError('--offset goes with --index');
  await (args.flags.index !== undefined ? runOne(args, plan, timeout) : runAll(args, plan, timeout));
}
