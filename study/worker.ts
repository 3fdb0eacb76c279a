import { closeSync, writeFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '../agent/index.ts';
import { debugging, errorKind, errorLine, EXIT } from '../lib/errors.ts';
import { openStudyLog } from './disk.ts';
import { outcomeLine, runJob } from './job.ts';
import { readPlan, type Plan } from './plan.ts';

/** What the parent (runner.ts) sends a long-lived job process of `study run --jobs N` over IPC for each job. */
export interface WorkerRequest {
  index: number;
  log: string;
  /** The threads a training may use: the CPU slots it holds (`slotsOf`). */
  threads: 1 | 2;
}

/** How a job ended in a worker: `inJob` the seconds inside runJob; the numbers null when the worker died during the job. */
export interface JobEnd {
  code: number;
  outcome: 'ran' | 'skipped' | 'held' | 'failed';
  logProblem: string | null;
  inJob: number | null;
  cpuSeconds: number | null;
  tensors: number | null;
  rssMb: number | null;
}

/** `ready` with the seconds from the process's start, `done` once a job has ended. */
export type WorkerReply = { type: 'ready'; seconds: number } | ({ type: 'done' } & JobEnd);

type Write = typeof process.stdout.write;

/** Sends stdout and stderr into `fd` until the returned function is called; a failed write goes to `failed`, not the job. */
function redirectOutput(fd: number, failed: (error: Error) => void): () => void {
  const saved: Array<[NodeJS.WriteStream, Write]> = [
    [process.stdout, process.stdout.write],
    [process.stderr, process.stderr.write],
  ];
  const write = ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
    try {
      writeFileSync(fd, chunk); // every byte, unlike writeSync
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

/** Runs job `index` as `study run DIR --index I` does, lines and all. */
async function runIndexed(
  plan: Plan,
  { index, threads }: WorkerRequest,
  timeout: number,
): Promise<Pick<JobEnd, 'code' | 'outcome'>> {
  try {
    const outcome = await runJob(plan, index, {
      timeout,
      threads,
      quiet: false,
      say: (line) => process.stderr.write(`tinyagent study: ${line}\n`),
    });
    // As `study run --index I` ends: a held job is one line on stderr and exit 75 (RetryError).
    if (typeof outcome === 'string') process.stdout.write(`${outcomeLine(plan, index, outcome)}\n`);
    else process.stderr.write(`tinyagent study: ${outcomeLine(plan, index, outcome)}\n`);
    return typeof outcome === 'string' ? { code: EXIT.ok, outcome } : { code: EXIT.retry, outcome: 'held' };
  } catch (error) {
    const kind = errorKind(error);
    process.stderr.write(`tinyagent study: ${errorLine(error, kind)}\n`);
    if (kind === 'internal' && debugging() && error instanceof Error && error.stack !== undefined)
      process.stderr.write(`${error.stack}\n`);
    return { code: EXIT[kind], outcome: 'failed' };
  }
}

/** Serves jobs of the study in `dir` until the parent disconnects. */
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
      let ran: Awaited<ReturnType<typeof runIndexed>> = { code: EXIT.input, outcome: 'failed' };
      let fd: number | undefined;
      try {
        fd = openStudyLog(plan.dir, request.log);
      } catch (error) {
        logProblem = (error as Error).message;
      }
      if (fd !== undefined) {
        const restore = redirectOutput(fd, (error) => {
          logProblem ??= `cannot write the log ${request.log}: ${error.message}`;
        });
        try {
          ran = await runIndexed(plan, request, timeout);
        } finally {
          restore();
          closeSync(fd);
        }
      }
      busy = false;
      if (parentGone) process.exit(0);
      send({
        type: 'done',
        ...ran,
        logProblem,
        inJob: (performance.now() - jobStarted) / 1000,
        cpuSeconds: (({ user, system }) => (user + system) / 1e6)(process.cpuUsage(cpuStarted)),
        tensors: tf.memory().numTensors,
        rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
      });
    })();
  });
  // performance.now() counts from the start of the process.
  send({ type: 'ready', seconds: performance.now() / 1000 });
}
