import { closeSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '../agent/index.ts';
import { debugging, errorKind, errorLine, EXIT } from '../lib/errors.ts';
import { openStudyLog, writeAll } from './disk.ts';
import { outcomeLine, runJob, type JobOutcome } from './job.ts';
import { readPlan, type Plan } from './plan.ts';

/**
 * A long-lived job process of `study run --jobs N` (runner.ts): it starts node, tsx and
 * TensorFlow.js once, then runs job after job of one study in-process, each through `runJob`, the
 * code path of `study run DIR --index I`, with the job's standard output and error appended to
 * its log as `--index` would write them. The parent sends `{ index, log }` over the IPC channel
 * and gets a `WorkerReply` back when the job has ended.
 */

/** What the parent asks: run job `index`, its output into the file `log`. */
export interface WorkerRequest {
  index: number;
  log: string;
}

export type WorkerReply =
  | {
      type: 'ready';
      /** Seconds from the process's start to ready: node, tsx, the imports, the plan, the backend. */
      seconds: number;
    }
  | {
      type: 'done';
      index: number;
      /** The exit code `study run --index I` would have ended with. */
      code: number;
      /** What the job did: ran it, found it done (another run finished it) or held by another run, or failed. */
      outcome: 'ran' | 'skipped' | 'held' | 'failed';
      /** Why the job's log could not be written (a full or read-only disk, a link in its place), or null. */
      logProblem: string | null;
      /** Seconds inside the job (runJob: verify, claim, run, checksums, rename). */
      seconds: number;
      /** CPU seconds the process used during the job (user and system, every thread). */
      cpuSeconds: number;
      /** Live tensors after the job (the same before every job: a job leaves nothing behind). */
      tensors: number;
      /** Resident memory of the process after the job, in MB. */
      rssMb: number;
    };

type Write = typeof process.stdout.write;

/**
 * Sends `process.stdout` and `process.stderr` into file descriptor `fd` (synchronously) until the
 * returned function is called. A write that fails (a full disk) is not retried and does not end
 * the job: `failed` gets the first error, which the parent reports.
 */
function redirectOutput(fd: number, failed: (error: Error) => void): () => void {
  const saved: Array<[NodeJS.WriteStream, Write]> = [
    [process.stdout, process.stdout.write],
    [process.stderr, process.stderr.write],
  ];
  const write = ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    try {
      writeAll(fd, bytes);
    } catch (error) {
      failed(error as Error);
    }
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') (done as () => void)();
    return true;
  }) as Write;
  for (const [stream] of saved) stream.write = write;
  return () => {
    for (const [stream, original] of saved) stream.write = original;
  };
}

/** A job's outcome as a worker reports it. */
const outcomeKind = (outcome: JobOutcome) => (typeof outcome === 'string' ? outcome : 'held');

/**
 * Runs job `index` as `study run DIR --index I` does: its outcome line on stdout, or an error as
 * the one line `tinyagent study: ...` on stderr; returns the exit code that command ends with and
 * what the job did.
 */
export async function runIndexed(
  plan: Plan,
  index: number,
  timeout: number,
): Promise<{ code: number; outcome: 'ran' | 'skipped' | 'held' | 'failed' }> {
  try {
    const outcome = await runJob(plan, index, {
      timeout,
      quiet: false,
      say: (line) => process.stderr.write(`tinyagent study: ${line}\n`),
    });
    // As `study run --index I` ends: a held job is one line on stderr and exit 75 (RetryError).
    if (typeof outcome === 'string') process.stdout.write(`${outcomeLine(plan, index, outcome)}\n`);
    else process.stderr.write(`tinyagent study: ${outcomeLine(plan, index, outcome)}\n`);
    return { code: typeof outcome === 'string' ? EXIT.ok : EXIT.retry, outcome: outcomeKind(outcome) };
  } catch (error) {
    const kind = errorKind(error);
    process.stderr.write(`tinyagent study: ${errorLine(error, kind)}\n`);
    if (kind === 'internal' && debugging() && error instanceof Error && error.stack !== undefined)
      process.stderr.write(`${error.stack}\n`);
    return { code: EXIT[kind], outcome: 'failed' };
  }
}

/** Serves jobs of the study in `dir`, with the run's lease timeout, until the parent disconnects (worker-entry.js calls this). */
export async function serveJobs(dir: string, timeout: number): Promise<void> {
  const send = (reply: WorkerReply) => process.send?.(reply);
  const plan = readPlan(dir);
  await initBackend();
  let busy = false;
  let parentGone = false;
  process.on('disconnect', () => {
    parentGone = true;
    if (!busy) process.exit(0);
  });
  process.on('message', (request: WorkerRequest) => {
    busy = true;
    void (async () => {
      const jobStarted = performance.now();
      const cpuStarted = process.cpuUsage();
      let logProblem: string | null = null;
      let ran: Awaited<ReturnType<typeof runIndexed>>;
      let fd: number | undefined;
      try {
        fd = openStudyLog(plan.dir, request.log);
      } catch (error) {
        logProblem = (error as Error).message;
      }
      if (fd === undefined) ran = { code: EXIT.input, outcome: 'failed' };
      else {
        const restore = redirectOutput(fd, (error) => {
          logProblem ??= `cannot write the log ${request.log}: ${error.message}`;
        });
        try {
          ran = await runIndexed(plan, request.index, timeout);
        } finally {
          restore();
          closeSync(fd);
        }
      }
      busy = false;
      if (parentGone) process.exit(0);
      send({
        type: 'done',
        index: request.index,
        code: ran.code,
        outcome: ran.outcome,
        logProblem,
        seconds: (performance.now() - jobStarted) / 1000,
        cpuSeconds: (({ user, system }) => (user + system) / 1e6)(process.cpuUsage(cpuStarted)),
        tensors: tf.memory().numTensors,
        rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
      });
    })();
  });
  // performance.now() counts from the start of the process.
  send({ type: 'ready', seconds: performance.now() / 1000 });
}
