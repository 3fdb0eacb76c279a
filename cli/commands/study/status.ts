import { fingerprint, initBackend } from '../../../agent/index.ts';
import { jobState, type JobState } from '../../../study/job.ts';
import { staleJobs } from '../../../study/output.ts';
import type { Plan } from '../../../study/plan.ts';
import { printable } from '../../../lib/text.ts';
import { boolFlag, printJson, type CommandArgs } from '../../args.ts';

/** How long ago a renewal was by this host's clock (only shown: staleness is judged by watching, never by clocks). */
function renewedAgo(renewed: string): string {
  const seconds = (Date.now() - Date.parse(renewed)) / 1000;
  if (!Number.isFinite(seconds)) return '';
  return seconds < 0
    ? ` (${(-seconds).toFixed(0)} s in the future by this host's clock)`
    : ` (${seconds.toFixed(0)} s ago by this host's clock)`;
}

/** `study status`: each job's state, and the done ones made by other code than this (stale). */
export async function studyStatus(args: CommandArgs, plan: Plan, timeout: number): Promise<void> {
  const rows = plan.jobs.map((job) => ({ index: job.index, id: job.id, ...jobState(plan, job) }));
  // Done by other code: what the backend a run would start now gives (TINYAGENT_BACKEND), part by part.
  await initBackend();
  const current = fingerprint();
  const done = rows.filter((row) => row.state === 'done').map((row) => plan.jobs[row.index]!);
  const stale = staleJobs(plan, done, current);
  const count = (state: JobState['state']) => rows.filter((row) => row.state === state).length;
  if (boolFlag(args, 'json'))
    return printJson({
      done: count('done'),
      running: count('running'),
      failed: count('failed'),
      pending: count('pending'),
      stale: stale.length,
      jobs: rows,
      staleJobs: stale,
      fingerprint: current,
    });
  const lines = stale.map(
    (row) =>
      `stale\t${row.index}\t${row.id}\t${row.fingerprint === null ? 'no fingerprint (made before fingerprints were recorded)' : `made by other code: ${printable(row.differences.join(', '))}`}`,
  );
  for (const row of rows)
    if (row.state === 'running')
      lines.push(
        `running\t${row.index}\t${row.id}\tprocess ${row.holder.pid} on ${row.holder.host} since ${row.holder.since}, last renewed ${row.renewed}${renewedAgo(row.renewed)}; stale once not renewed for ${timeout} s (study unlock watches it)`,
      );
    else if (row.state === 'failed') lines.push(`failed\t${row.index}\t${row.id}\t${row.problem}`);
  lines.push(
    `${plan.dir}: ${count('done')} done, ${count('running')} running, ${count('failed')} failed, ${count('pending')} pending of ${plan.jobs.length}${stale.length === 0 ? '' : `; ${stale.length} of the done made by other code than this (stale)`}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}
