/** One job of a study, run alone (`runJob`), and its state as `study status` shows it (`jobState`). */
import { readdirSync, readFileSync, renameSync, rmSync, lstatSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { evaluate, fingerprint, initBackend } from '../agent/index.ts';
import { firstEditCounts } from '../gym/index.ts';
import { snapshotDir, trainSnapshots } from '../train/index.ts';
import { writeFileAtomic, writeJsonAtomic } from '../lib/atomic.ts';
import { InputError, RetryError } from '../lib/errors.ts';
import { existsInside, fileSystemError } from '../lib/files.ts';
import { openRunLog } from '../lib/log.ts';
import { holderAlive, onStopSignal } from '../lib/processes.ts';
import { printable } from '../lib/text.ts';
import { claimJob, claimPath, readLease, type Held, type Holder } from './leases.ts';
import { studyFolder } from './disk.ts';
import {
  evalIds,
  expectedFiles,
  filesUnder,
  jobDir,
  OUTPUT_FILE,
  outputProblem,
  readRecord,
  sha256,
  type EvalOutput,
} from './output.ts';
import { measuredSplit, type EvalJob, type Job, type Plan } from './plan.ts';

/** `running`: claimed by a lease not known to be stale at one look (its holder not a pid of this host that is gone). */
export type JobState =
  | { state: 'done' }
  | { state: 'running'; holder: Holder; renewed: string }
  | { state: 'failed'; problem: string }
  | { state: 'pending' };

export function jobState(plan: Plan, job: Job): JobState {
  const problem = outputProblem(plan, job);
  if (problem === undefined) return { state: 'done' };
  const read = readLease(plan.dir, job.id);
  if (read !== undefined && 'lease' in read) {
    const { holder, renewed } = read.lease;
    if (holderAlive(holder)) return { state: 'running', holder, renewed };
    return { state: 'failed', problem: `its process ${holder.pid} on ${holder.host} died` };
  }
  const note = failureNote(plan, job);
  if (note !== undefined) return { state: 'failed', problem: note };
  // A problem may quote what a file holds (a key of result.json): shown escaped.
  if (problem !== 'missing') return { state: 'failed', problem: printable(problem) };
  return { state: 'pending' };
}

const failureNotePath = (job: Job) => `failed/${job.id}.txt`;

/** The first line of a job's failure note, escaped (a link or a FIFO there reported, not followed). */
function failureNote(plan: Plan, job: Job): string | undefined {
  const name = failureNotePath(job);
  try {
    if (!existsInside(plan.dir, name, 'file')) return undefined;
    return printable(readRecord(plan.dir, name).split('\n')[0]!.trim());
  } catch (error) {
    if (error instanceof InputError) return printable(`its failure note is not read: ${error.message}`);
    throw error;
  }
}

type JobOutcome = 'ran' | 'skipped' | Held;

/**
 * Runs job `index` alone: the contract of `study run --index I` and of every array scheduler. A
 * holder whose lease was taken over meanwhile removes its own temporary folder only and throws a
 * RetryError (exit 75).
 */
export async function runJob(
  plan: Plan,
  index: number,
  {
    timeout,
    quiet = true,
    say = () => {},
    threads = 2,
  }: { timeout: number; quiet?: boolean; say?: (line: string) => void; threads?: 1 | 2 },
): Promise<JobOutcome> {
  const job = plan.jobs[index];
  if (job === undefined) throw new RangeError(`no job ${index}`);
  if (outputProblem(plan, job) === undefined) return 'skipped';
  for (const dependency of job.dependsOn) {
    const needed = plan.jobs[dependency]!;
    const problem = outputProblem(plan, needed);
    if (problem !== undefined)
      throw new InputError(
        `job ${job.index} (${job.id}) needs the training of seed ${needed.seed}, job ${dependency} (${needed.id}), done first, and it is ${problem === 'missing' ? 'not done' : `failed (${problem})`}; run it, or study run without --index`,
      );
  }
  const jobsDir = studyFolder(plan.dir, 'jobs');
  const claim = await claimJob(plan.dir, job.id, { timeout, say });
  if ('heldBy' in claim) return claim;
  const temporary = join(jobsDir, `.partial-${job.id}-${hostname()}-${process.pid}`);
  // A scheduler's cancel (scancel: SIGTERM) or Ctrl-C: the claim goes back and nothing partial stays.
  const removeSignalHandlers = onStopSignal((signal) => {
    say(`job ${index} (${job.id}) stopped by ${signal}: its partial folder removed and its claim released`);
    rmSync(temporary, { recursive: true, force: true });
    claim.release();
  });
  try {
    // Holding the claim: a finished output may have appeared meanwhile; anything else left is dead.
    if (outputProblem(plan, job) === undefined) return 'skipped';
    for (const name of readdirSync(jobsDir))
      if (name.startsWith(`.partial-${job.id}-`) || name.startsWith(`.discarded-${job.id}-`))
        rmSync(join(jobsDir, name), { recursive: true, force: true });
    const started = performance.now();
    let checkpointChecksum: string | undefined;
    if (job.kind === 'train') await runTraining(plan, job, temporary, { quiet, threads });
    else checkpointChecksum = await runEvaluation(plan, job, temporary);
    // A turn of the event loop: a signal that came during the job is handled here, before its output is made final.
    await new Promise<void>((resolve) => setImmediate(resolve));
    writeOutputRecord(plan, job, temporary, started, checkpointChecksum);
    if (!claim.held()) throw lostClaim(plan, job);
    moveIntoPlace(plan, job, jobsDir, temporary);
    return 'ran';
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    // Taken over: the job is the new holder's now, and so are its failure note and its folder.
    if (error instanceof RetryError || !claim.held())
      throw error instanceof RetryError ? error : lostClaim(plan, job);
    throw recordFailure(plan, job, error);
  } finally {
    removeSignalHandlers();
    claim.release();
  }
}

function lostClaim(plan: Plan, job: Job): RetryError {
  const now = readLease(plan.dir, job.id);
  const how =
    now !== undefined && 'lease' in now
      ? `taken over by process ${now.lease.holder.pid} on ${now.lease.holder.host}`
      : 'removed by another process (study unlock --force, or a takeover that has ended)';
  return new RetryError(
    `job ${job.index} (${job.id}): its claim ${claimPath(plan.dir, job.id)} was ${how}; this attempt's output was discarded and the new holder's left as it is: retry later`,
  );
}

/** Writes timing.json and output.json (the checksums of the job's files, the code's fingerprint). */
function writeOutputRecord(
  plan: Plan,
  job: Job,
  temporary: string,
  started: number,
  checkpointChecksum: string | undefined,
): void {
  const written = filesUnder(temporary);
  // What the job wrote must be what its kind writes, or it would never verify (a change of the training's files).
  if (written.join('\n') !== expectedFiles(plan, job).join('\n'))
    throw new Error(`job ${job.id} wrote ${written.join(', ')}, not the files of a ${job.kind} job`);
  const output = {
    jobId: job.id,
    index: job.index,
    kind: job.kind,
    files: Object.fromEntries(written.map((name) => [name, sha256(readFileSync(join(temporary, name)))])),
    // What made these bytes, outside the checksums: `study report` refuses to merge outputs of different code.
    fingerprint: fingerprint(),
    ...(checkpointChecksum !== undefined ? { checkpointChecksum } : {}),
  };
  const seconds = (performance.now() - started) / 1000;
  writeFileAtomic(join(temporary, 'timing.json'), `${JSON.stringify({ seconds, host: hostname() })}\n`);
  writeJsonAtomic(join(temporary, OUTPUT_FILE), output);
}

/** Renames `temporary` to the job's folder, replacing a damaged earlier output, and removes its failure note. */
function moveIntoPlace(plan: Plan, job: Job, jobsDir: string, temporary: string): void {
  const final = jobDir(plan, job);
  // lstat: a link in the folder's place counts as itself (existsSync would follow it).
  if (lstatSync(final, { throwIfNoEntry: false }) !== undefined) {
    const aside = join(jobsDir, `.discarded-${job.id}-${process.pid}`);
    renameSync(final, aside);
    rmSync(aside, { recursive: true, force: true });
  }
  renameSync(temporary, final);
  if (existsInside(plan.dir, failureNotePath(job), 'file'))
    rmSync(join(plan.dir, failureNotePath(job)), { force: true });
}

/** Writes the first line of a failed job's error to `failed/<id>.txt` (if it can); returns the error to throw. */
function recordFailure(plan: Plan, job: Job, error: unknown): unknown {
  const reported = fileSystemError(error, plan.dir);
  try {
    writeFileAtomic(
      join(studyFolder(plan.dir, 'failed'), `${job.id}.txt`),
      `${(reported as Error).message?.split('\n')[0] ?? String(reported)}\n`,
    );
  } catch {
    // a full disk: the claim's release still marks the job as not running
  }
  return reported;
}

/** The line `study run --index I` prints for a job's outcome (the job logs and the tests read it). */
export function outcomeLine(plan: Plan, index: number, outcome: JobOutcome): string {
  const job = plan.jobs[index]!;
  return outcome === 'ran'
    ? `job ${index} (${job.id}) done`
    : outcome === 'skipped'
      ? `job ${index} (${job.id}) already done; skipped`
      : `job ${index} (${job.id}) is held by process ${outcome.heldBy.pid} on ${outcome.heldBy.host} (claimed ${outcome.heldBy.since}, last renewed ${outcome.renewed}); left to it: retry later`;
}

async function runTraining(
  plan: Plan,
  job: Job,
  dir: string,
  { quiet, threads }: { quiet: boolean; threads: 1 | 2 },
): Promise<void> {
  await initBackend();
  const log = openRunLog(dir, { quiet });
  try {
    await trainSnapshots(
      { ...plan.config, seed: job.seed },
      { runDir: dir, log, threads, baseAgent: doneTrainingsBaseAgent(plan, job) },
    );
  } finally {
    log.close();
  }
  // The run's lock and config are the training's bookkeeping; the checkpoints are the output.
  rmSync(join(dir, '.lock'), { force: true });
}

/**
 * Where the plan's trainings share one RL base agent (its recipe gives a `baseSeed`), the step-0
 * snapshot of a training of another seed that is done: the training takes it as its step 0
 * instead of behaviour cloning (`trainSnapshots`' `baseAgent`), the same bytes. Undefined
 * otherwise, and while none is done.
 */
function doneTrainingsBaseAgent(plan: Plan, job: Job): string | undefined {
  if (plan.config.baseSeed === undefined) return undefined;
  const done = plan.jobs.find(
    (other) => other.kind === 'train' && other.seed !== job.seed && outputProblem(plan, other) === undefined,
  );
  return done === undefined ? undefined : snapshotDir(jobDir(plan, done), 0);
}

/** The checkpoint an evaluation job evaluates: its training's snapshot at the job's step. */
export function checkpointOf(plan: Plan, job: EvalJob): string {
  return snapshotDir(jobDir(plan, plan.jobs[job.dependsOn[0]!]!), job.step);
}

/** Returns the checkpoint's checksum. */
async function runEvaluation(plan: Plan, job: EvalJob, dir: string): Promise<string> {
  const checkpoint = checkpointOf(plan, job);
  const result = await evaluate({
    checkpoint,
    harness: job.harness,
    split: measuredSplit(plan),
    episodes: job.episodes,
    seed: job.evalSeed,
  });
  if (result.provenance.harnessHash !== job.harnessHash)
    throw new InputError(
      `${checkpoint}: its harness hash ${result.provenance.harnessHash} is not the plan's ${job.harnessHash}; plan the study again`,
    );
  const output: EvalOutput = {
    ...evalIds(job),
    checkpointChecksum: result.provenance.checkpoint!.checksum,
    backend: result.provenance.backend,
    passAt1: result.passAt1,
    perTask: result.perTask.map((count) => {
      const records = result.records.filter((record) => record.task === count.name);
      return {
        name: count.name,
        successes: count.successes,
        episodes: count.episodes,
        // One character per episode, in sample order: paired tests between checkpoints need the episodes, not only the counts.
        outcomes: records.map((record) => (record.success ? '1' : '0')).join(''),
        firstEdits: firstEditCounts(records),
      };
    }),
  };
  writeJsonAtomic(join(dir, 'result.json'), output);
  return output.checkpointChecksum;
}
