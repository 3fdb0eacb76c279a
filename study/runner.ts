import { fork, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT, InputError } from '../lib/errors.ts';
import { onStopSignal } from '../lib/processes.ts';
import { progressBar, type Progress } from '../lib/progress.ts';
import { appendStudyLog, studyFolder } from './disk.ts';
import { jobState, type JobState } from './job.ts';
import { claimPath } from './leases.ts';
import { jobSeconds } from './output.ts';
import type { Job, Plan } from './plan.ts';
import type { JobEnd, WorkerReply, WorkerRequest } from './worker.ts';

/** The CLI entry point that every job runs through, here as under Slurm or Kubernetes. */
export const BIN = fileURLToPath(new URL('../bin/tinyagent.js', import.meta.url));

/** The command that runs job `index` of a study: the one contract of every scheduler. */
export function jobCommand(studyDir: string, index: number | string): string[] {
  return [process.execPath, BIN, 'study', 'run', studyDir, '--index', String(index)];
}

const jobLogPath = (plan: Plan, job: Job) => join(plan.dir, 'logs', `${job.index}-${job.id}.log`);

/** What `runStudy` did; `blocked`: held by other runs, their claim lost, or waiting on a failed job. */
export interface StudyRunSummary {
  ran: number;
  skipped: number;
  failed: Array<{ index: number; id: string; log: string }>;
  blocked: number;
  seconds: number;
  slots: number;
  workerStarts: number[];
  jobs: Array<ReturnType<typeof jobRunOf>>;
}

/**
 * The CPU slots a job holds, and a training's threads: 1, so two trainings run side by side (its
 * plan's two shares on one thread give the same checkpoints, `twoSharesOneThread`); but a training
 * that is the only job ready takes as many of the `free` slots as its plan's threads.
 */
export function slotsOf(job: Job, free: number, alone: boolean): number {
  return job.kind === 'train' && alone ? Math.max(1, Math.min(job.threads, free)) : 1;
}

/**
 * Runs every pending job of a study on `workers` CPU slots in long-lived worker processes, each
 * through `runJob`. A failed job is not retried in this run, nor one whose claim was taken while it
 * ran; a worker that dies is replaced, its job failed.
 */
export async function runStudy(
  plan: Plan,
  { workers, timeout, say = () => {} }: { workers: number; timeout: number; say?: (line: string) => void },
): Promise<StudyRunSummary> {
  return new StudyRun(plan, workers, timeout, say).run();
}

class StudyRun {
  private readonly started = performance.now();
  private readonly states = new Map<number, JobState['state']>();
  private readonly summary: StudyRunSummary;
  private readonly bar: Progress;
  private readonly failedHere = new Set<number>();
  /** Jobs whose claim was removed or taken over while this run ran them: left to a later run. */
  private readonly lostHere = new Set<number>();
  private readonly running = new Map<number, Promise<void>>();
  private used = 0;
  /** Why the run stops early: a log that cannot be written fails every job alike. */
  private stopped: InputError | undefined;
  private readonly announced = new Set<string>();
  private readonly pool: WorkerPool;
  private interrupted = false;
  /** When each job held by another process's lease was last handed to a worker to watch it. */
  private readonly probed = new Map<number, number>();

  constructor(
    private readonly plan: Plan,
    private readonly workers: number,
    private readonly timeout: number,
    private readonly say: (line: string) => void,
  ) {
    this.refresh();
    const skipped = [...this.states.values()].filter((state) => state === 'done').length;
    const summary = { ran: 0, skipped, failed: [], blocked: 0, seconds: 0, slots: workers };
    this.summary = { ...summary, workerStarts: [], jobs: [] };
    this.bar = progressBar('study', plan.jobs.length, { offTerminal: 'ticks' });
    studyFolder(plan.dir, 'logs');
    this.pool = new WorkerPool(plan, timeout, (seconds) => this.summary.workerStarts.push(seconds));
  }

  /** Never resolves once interrupted. */
  async run(): Promise<StudyRunSummary> {
    const removeSignalHandlers = onStopSignal((signal) => this.interrupt(signal));
    try {
      await this.schedule();
    } finally {
      if (!this.interrupted) {
        removeSignalHandlers();
        this.pool.close();
      }
    }
    // Interrupted: the signal handler ends the process once every worker has.
    if (this.interrupted) await new Promise(() => {});
    this.bar.done();
    if (this.stopped !== undefined) throw this.stopped;
    this.summary.blocked = this.plan.jobs.filter(
      (job) => this.states.get(job.index) !== 'done' && !this.failedHere.has(job.index),
    ).length;
    this.summary.seconds = (performance.now() - this.started) / 1000;
    return this.summary;
  }

  private async schedule(): Promise<void> {
    for (;;) {
      const ready = this.plan.jobs.filter((job) => !this.running.has(job.index) && this.isReady(job));
      for (const job of ready) {
        if (this.used >= this.workers || this.stopped !== undefined || this.interrupted) break;
        this.start(job, slotsOf(job, this.workers - this.used, ready.length === 1));
      }
      if (this.running.size > 0) {
        await Promise.race(this.running.values());
        continue;
      }
      if (this.stopped !== undefined || this.interrupted) return;
      if (!(await this.waitForOthers())) return;
    }
  }

  private async interrupt(signal: NodeJS.Signals): Promise<void> {
    this.interrupted = true;
    this.say(`study run: ${signal}: passed on to the workers, which release their jobs' claims`);
    await this.pool.stop(signal);
  }

  private refresh(): void {
    this.plan.jobs.forEach((job) => this.states.set(job.index, jobState(this.plan, job).state));
  }

  /** Whether `job` can start: its dependencies are done, and it is pending, failed before, or held but not probed for `timeout` s. */
  private isReady(job: Job): boolean {
    const state = this.states.get(job.index);
    return (
      !this.failedHere.has(job.index) &&
      !this.lostHere.has(job.index) &&
      (state === 'pending' ||
        state === 'failed' ||
        (state === 'running' &&
          performance.now() - (this.probed.get(job.index) ?? -Infinity) >= this.timeout * 1000)) &&
      job.dependsOn.every((index) => this.states.get(index) === 'done')
    );
  }

  private start(job: Job, slots: number): void {
    this.used += slots;
    if (this.states.get(job.index) === 'running') {
      this.probed.set(job.index, performance.now());
      this.announce(job);
    }
    this.running.set(
      job.index,
      this.pool.run(job, slots === 1 ? 1 : 2).then((reply) => this.settle(job, slots, reply)),
    );
  }

  private settle(job: Job, slots: number, reply: Reply): void {
    this.running.delete(job.index);
    this.used -= slots;
    if (this.interrupted) return;
    const state = jobState(this.plan, job).state;
    this.states.set(job.index, state);
    this.summary.jobs.push(jobRunOf(this.plan, job, slots, reply));
    if (reply.logProblem !== null) {
      this.stopped ??= new InputError(reply.logProblem);
      this.failedHere.add(job.index);
    } else if (state === 'done') {
      // A job another run finished while this one started it was skipped, not run.
      if (reply.outcome === 'skipped') this.summary.skipped += 1;
      else this.summary.ran += 1;
      this.bar.tick(this.summary.ran + this.summary.skipped, job.id);
    } else if (reply.outcome === 'held') {
      // another run holds it, live: left to it, and watched again later
      this.probed.set(job.index, performance.now());
    } else if (reply.code === EXIT.retry) {
      // its claim was removed (unlock --force) or taken over while it ran: not a failure (docs/STUDIES.md)
      this.lostHere.add(job.index);
      this.say(
        `job ${job.index} (${job.id}) lost its claim while it ran (exit ${reply.code}); left for a later run; its log: ${jobLogPath(this.plan, job)}`,
      );
    } else if (state !== 'running') {
      // ended without an output: another run holds it (state 'running' then) or it failed
      this.failedHere.add(job.index);
      this.summary.failed.push({ index: job.index, id: job.id, log: jobLogPath(this.plan, job) });
      this.say(
        `job ${job.index} (${job.id}) failed (exit ${reply.code}); its log: ${jobLogPath(this.plan, job)}`,
      );
    }
  }

  /** Once per holder. */
  private announce(job: Job): void {
    const state = jobState(this.plan, job);
    if (state.state !== 'running') return;
    const { pid, host, since } = state.holder;
    const key = `${job.id} ${pid} ${host} ${since}`;
    if (this.announced.has(key)) return;
    this.announced.add(key);
    this.say(
      `waiting for job ${job.index} (${job.id}): its claim ${claimPath(this.plan.dir, job.id)} is held by process ${pid} on ${host} since ${since}, last renewed ${state.renewed}; it is taken over if not renewed for ${this.timeout} s`,
    );
  }

  /** Nothing of ours runs: true at once if a job is ready, after a pause if other runs hold some, else false. */
  private async waitForOthers(): Promise<boolean> {
    this.refresh();
    const elsewhere = this.plan.jobs.some(
      (job) => this.states.get(job.index) === 'running' && !this.lostHere.has(job.index),
    );
    if (this.plan.jobs.some((job) => this.isReady(job))) return true;
    if (!elsewhere) return false;
    // Only the jobs the last look found held: announce reads each one's claim again.
    for (const job of this.plan.jobs) if (this.states.get(job.index) === 'running') this.announce(job);
    await new Promise((resolve) => setTimeout(resolve, 500));
    return true;
  }
}

/** The summary's line for a job this run ran: `wall` seconds from the hand-over, `work` as its timing.json records. */
function jobRunOf(plan: Plan, job: Job, slots: number, reply: Reply) {
  const { wall, inJob, cpuSeconds, code, worker, tensors, rssMb } = reply;
  const { index, kind } = job;
  const work = jobSeconds(plan, job);
  return { index, kind, slots, wall, inJob, cpuSeconds, work, code, worker, tensors, rssMb };
}

/** The entry of a worker process (worker.ts behind its own TypeScript loader). */
const WORKER_ENTRY = fileURLToPath(new URL('./worker-entry.js', import.meta.url));

/** How a job handed to a worker ended, the worker's pid, and the seconds from the hand-over. */
type Reply = JobEnd & { worker: number; wall: number };

/** The job a worker runs: its log, how to settle it, when it started, why its log could not be written. */
interface CurrentJob {
  log: string;
  settle: (reply: Reply) => void;
  started: number;
  logProblem: string | null;
}

/** One worker process: runs one job at a time; `exited` once it is gone. */
class WorkerProcess {
  private readonly child: ChildProcess;
  private readonly ready: Promise<boolean>;
  private current: CurrentJob | undefined;
  exited = false;

  constructor(
    private readonly plan: Plan,
    timeout: number,
    onStart: (seconds: number) => void,
  ) {
    this.child = fork(WORKER_ENTRY, [plan.dir, String(timeout)], {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      execArgv: [],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => this.toLog(this.current, chunk));
    this.child.stderr!.on('data', (chunk: Buffer) => this.toLog(this.current, chunk));
    let markReady: (ok: boolean) => void;
    this.ready = new Promise((resolve) => (markReady = resolve));
    this.child.on('message', (message: WorkerReply) => {
      if (message.type === 'ready') {
        onStart(message.seconds);
        markReady(true);
        return;
      }
      const { type: _type, ...reply } = message;
      this.settle((current) => ({ ...reply, logProblem: reply.logProblem ?? current.logProblem }));
    });
    this.child.on('error', () => {}); // a failed spawn ends in 'close' too
    this.child.on('close', (code, signal) => {
      this.exited = true;
      markReady(false);
      this.settle((current) => this.endedDuring(current, code, signal));
    });
  }

  /** Output outside a job's redirection (start-up errors) goes to the job's log; a failed append is its `logProblem`. */
  private toLog(current: CurrentJob | undefined, chunk: Buffer | string): void {
    if (current === undefined || current.logProblem !== null) return;
    try {
      appendStudyLog(this.plan.dir, current.log, chunk);
    } catch (error) {
      current.logProblem = (error as Error).message;
    }
  }

  private settle(replyOf: (current: CurrentJob) => JobEnd): void {
    const current = this.current;
    if (current === undefined) return;
    this.current = undefined;
    current.settle({
      ...replyOf(current),
      worker: this.child.pid ?? -1,
      wall: (performance.now() - current.started) / 1000,
    });
  }

  /** The reply of a job during which the process ended: failed, with its exit code, and a line in the job's log. */
  private endedDuring(current: CurrentJob, code: number | null, signal: NodeJS.Signals | null): JobEnd {
    const exit = code ?? 128 + (signal !== null ? (constants.signals[signal] ?? 0) : 0);
    this.toLog(
      current,
      `tinyagent study: the worker process ${this.child.pid ?? ''} ended during this job (${signal !== null ? `signal ${signal}` : `exit ${exit}`}); the job failed\n`,
    );
    const none = { inJob: null, cpuSeconds: null, tensors: null, rssMb: null };
    return { code: exit, outcome: 'failed', logProblem: current.logProblem, ...none };
  }

  /** Sends `signal` to the process and disconnects it (an idle worker then exits); resolves once it has. */
  stop(signal: NodeJS.Signals): Promise<void> {
    if (this.exited) return Promise.resolve();
    // 'exit', not 'close': a child disconnected this way never emits 'close' (Node 20).
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill(signal);
    if (this.child.connected) this.child.disconnect();
    return exited;
  }

  /** Runs the request's job, its output appended to its log; resolves when it has ended, however. */
  run(request: WorkerRequest): Promise<Reply> {
    return new Promise((settle) => {
      this.current = { log: request.log, settle, started: performance.now(), logProblem: null };
      void this.ready.then((ok) => {
        if (ok && !this.exited) this.child.send(request);
      });
    });
  }

  close(): void {
    if (!this.exited && this.child.connected) this.child.disconnect();
  }
}

/** Worker processes started on demand and reused; one that died is replaced by a new one. */
class WorkerPool {
  private readonly idle: WorkerProcess[] = [];
  private readonly all = new Set<WorkerProcess>();

  constructor(
    private readonly plan: Plan,
    private readonly timeout: number,
    private readonly onStart: (seconds: number) => void,
  ) {}

  async run(job: Job, threads: 1 | 2): Promise<Reply> {
    const log = jobLogPath(this.plan, job);
    let worker = this.idle.pop();
    while (worker?.exited) worker = this.idle.pop();
    worker ??= new WorkerProcess(this.plan, this.timeout, this.onStart);
    this.all.add(worker);
    const reply = await worker.run({ index: job.index, log, threads });
    if (worker.exited) this.all.delete(worker);
    else this.idle.push(worker);
    return reply;
  }

  close(): void {
    for (const worker of this.all) worker.close();
  }

  async stop(signal: NodeJS.Signals): Promise<void> {
    await Promise.all([...this.all].map((worker) => worker.stop(signal)));
  }
}
