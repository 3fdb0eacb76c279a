import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { progressBar } from '../lib/progress.ts';
import { diskError } from './disk.ts';
import { jobState, type JobState } from './job.ts';
import type { Job, Plan } from './plan.ts';

/** The CLI entry point that every job runs through, here as under Slurm or Kubernetes. */
export const BIN = fileURLToPath(new URL('../bin/tinyagent.js', import.meta.url));

/** The command that runs job `index` of a study: the one contract of every scheduler. */
export function jobCommand(studyDir: string, index: number | string): string[] {
  return [process.execPath, BIN, 'study', 'run', studyDir, '--index', String(index)];
}

/** The log of job `index`: its standard output and error. */
export const jobLogPath = (plan: Plan, job: Job) => join(plan.dir, 'logs', `${job.index}-${job.id}.log`);

export interface StudyRunSummary {
  ran: number;
  skipped: number;
  failed: Array<{ index: number; id: string; log: string }>;
  /** Jobs left because a job they need failed. */
  blocked: number;
  seconds: number;
}

/**
 * Runs every pending job of a study on this machine with `workers` processes at once. Each job
 * is `study run DIR --index I` in a child process, the same command a scheduler runs, so a job
 * here and on a cluster take one path. A job is started as soon as the jobs it depends on are
 * done (lowest index first: the trainings, then the evaluations of whichever seed is ready), so
 * no worker waits while work is ready. Jobs another `study run` holds are waited for; a job that
 * fails is not retried in this run, and the jobs that need it are left pending.
 */
export async function runStudy(
  plan: Plan,
  { workers, say = () => {} }: { workers: number; say?: (line: string) => void },
): Promise<StudyRunSummary> {
  const started = performance.now();
  const states = new Map<number, JobState['state']>();
  const refresh = () => plan.jobs.forEach((job) => states.set(job.index, jobState(plan, job).state));
  refresh();
  const summary: StudyRunSummary = { ran: 0, skipped: 0, failed: [], blocked: 0, seconds: 0 };
  const initiallyDone = [...states.values()].filter((state) => state === 'done').length;
  summary.skipped = initiallyDone;
  const bar = progressBar('study', plan.jobs.length);
  const failedHere = new Set<number>();
  const running = new Map<number, Promise<void>>();
  mkdirSync(join(plan.dir, 'logs'), { recursive: true });
  let done = initiallyDone;
  for (;;) {
    const ready = plan.jobs.filter(
      (job) =>
        !running.has(job.index) &&
        !failedHere.has(job.index) &&
        (states.get(job.index) === 'pending' || states.get(job.index) === 'failed') &&
        job.dependsOn.every((index) => states.get(index) === 'done'),
    );
    for (const job of ready.slice(0, Math.max(0, workers - running.size))) {
      running.set(
        job.index,
        runChild(plan, job).then((code) => {
          running.delete(job.index);
          const state = jobState(plan, job).state;
          states.set(job.index, state);
          if (state === 'done') {
            done += 1;
            summary.ran += 1;
            bar.tick(done, job.id);
          } else if (state !== 'running') {
            // exit 0 without an output: another run holds it (state 'running' then) or it failed
            failedHere.add(job.index);
            summary.failed.push({ index: job.index, id: job.id, log: jobLogPath(plan, job) });
            say(`job ${job.index} (${job.id}) failed (exit ${code}); its log: ${jobLogPath(plan, job)}`);
          }
        }),
      );
    }
    if (running.size > 0) {
      await Promise.race(running.values());
      continue;
    }
    // Nothing of ours runs: wait for jobs other runs hold, else stop.
    refresh();
    const elsewhere = plan.jobs.some((job) => states.get(job.index) === 'running');
    const stillReady = plan.jobs.some(
      (job) =>
        !failedHere.has(job.index) &&
        (states.get(job.index) === 'pending' || states.get(job.index) === 'failed') &&
        job.dependsOn.every((index) => states.get(index) === 'done'),
    );
    if (stillReady) continue;
    if (!elsewhere) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  bar.done();
  summary.blocked = plan.jobs.filter(
    (job) => states.get(job.index) !== 'done' && !failedHere.has(job.index),
  ).length;
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

/** Runs one job as a child process, its output into the job's log; resolves with its exit code. */
function runChild(plan: Plan, job: Job): Promise<number> {
  const logPath = jobLogPath(plan, job);
  let fd: number;
  try {
    fd = openSync(logPath, 'a');
  } catch (error) {
    return Promise.reject(diskError(error, logPath));
  }
  const [command, ...args] = jobCommand(plan.dir, job.index) as [string, ...string[]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', fd, fd], env: process.env });
    child.on('error', (error) => {
      closeSync(fd);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      closeSync(fd);
      resolve(code ?? (signal !== null ? 128 : 1));
    });
  });
}
