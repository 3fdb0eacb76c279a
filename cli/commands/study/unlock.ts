import { unlockClaims, type UnlockRow } from '../../../study/leases.ts';
import type { Plan } from '../../../study/plan.ts';
import { count, printable } from '../../../lib/text.ts';
import { boolFlag, printJson, type CommandArgs } from '../../args.ts';

/** One claim as `study unlock` lists it: verdict, job, holder (or why it names none), removed or kept. */
function unlockLine(row: UnlockRow): string {
  const holder =
    row.holder === undefined
      ? row.problem
      : `process ${row.holder.pid} on ${row.holder.host} since ${row.holder.since}, last renewed ${row.renewed}`;
  return `${row.verdict}\t${row.index ?? '-'}\t${printable(row.jobId)}\t${holder}\t${row.removed ? 'removed' : 'kept'}`;
}

/** `study unlock`: removes the claims whose holders stopped renewing them (all with --force). */
export async function studyUnlock(args: CommandArgs, plan: Plan, timeout: number): Promise<void> {
  const rows = await unlockClaims(
    plan.dir,
    plan.jobs.map((job) => job.id),
    {
      timeout,
      force: boolFlag(args, 'force'),
      say: (line) => process.stderr.write(`tinyagent study: ${line}\n`),
    },
  );
  if (boolFlag(args, 'json')) return printJson(rows);
  for (const row of rows) process.stdout.write(`${unlockLine(row)}\n`);
  const removed = rows.filter((row) => row.removed).length;
  process.stdout.write(
    `${plan.dir}: ${count(rows.length, 'claim')}, ${removed} removed, ${rows.length - removed} kept\n`,
  );
}
