import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { checkpointChecksum, evaluate, initBackend } from '../agent/index.ts';
import { firstEditCounts } from '../gym/index.ts';
import { snapshotDir, trainSnapshots } from '../train/index.ts';
import { InputError } from '../lib/errors.ts';
import { openRunLog } from '../lib/log.ts';
import { claimHolder, claimJob, holderAlive, type Holder } from './claim.ts';
import { diskError, writeStudyFile } from './disk.ts';
import { jobConfig, type EvalJob, type Job, type Plan } from './plan.ts';

/** What one evaluation job writes (result.json): counts and episode outcomes, nothing about where or when it ran. */
export interface EvalOutput {
  jobId: string;
  seed: number;
  step: number;
  chapterStep: number;
  label: string;
  harnessHash: string;
  evalSeed: string;
  episodes: number;
  checkpointChecksum: string;
  backend: string | null;
  passAt1: number;
  perTask: Array<{
    name: string;
    successes: number;
    episodes: number;
    outcomes: string;
    firstEdits: Record<string, number>;
  }>;
}

const OUTPUT_FILE = 'output.json';
/** Files of a job folder that record when and how long, not what: left out of the checksums. */
const LOG_FILES = new Set(['log.jsonl', 'summary.json', 'timing.json']);

export const jobDir = (plan: Plan, job: Job) => join(plan.dir, 'jobs', job.id);
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((name) => !LOG_FILES.has(name) && name !== OUTPUT_FILE)
    .sort();
}

/**
 * Whether a job's output folder is complete and as written: output.json names the job and the
 * sha256 of every file, each file matches, and an evaluation was made from its training's current
 * checkpoint (when that training's output is here). Returns the problem, or undefined when it verifies.
 */
export function outputProblem(plan: Plan, job: Job): string | undefined {
  const dir = jobDir(plan, job);
  if (!existsSync(join(dir, OUTPUT_FILE))) return existsSync(dir) ? 'no output.json' : 'missing';
  let output: { jobId?: string; files?: Record<string, string>; checkpointChecksum?: string };
  try {
    output = JSON.parse(readFileSync(join(dir, OUTPUT_FILE), 'utf8')) as typeof output;
  } catch {
    return 'output.json is not valid JSON';
  }
  if (output.jobId !== job.id || output.files === undefined) return 'output.json names another job';
  for (const [name, digest] of Object.entries(output.files)) {
    const path = join(dir, name);
    if (!existsSync(path)) return `${name} is missing`;
    if (sha256(readFileSync(path)) !== digest) return `${name} fails its checksum`;
  }
  if (job.kind === 'eval') {
    const train = plan.jobs[job.dependsOn[0]!]!;
    const weights = join(jobDir(plan, train), `step-${job.step}`, 'weights.bin');
    if (
      existsSync(weights) &&
      checkpointChecksum(join(jobDir(plan, train), `step-${job.step}`)) !== output.checkpointChecksum
    )
      return 'made from another checkpoint than its training now holds';
  }
  return undefined;
}

export type JobState =
  | { state: 'done' }
  | { state: 'running'; holder: Holder }
  | { state: 'failed'; problem: string }
  | { state: 'pending' };

/** A job's state from the folder alone (what `study status` shows). */
export function jobState(plan: Plan, job: Job): JobState {
  const problem = outputProblem(plan, job);
  if (problem === undefined) return { state: 'done' };
  const holder = claimHolder(plan.dir, job.id);
  if (holder !== undefined && holderAlive(holder)) return { state: 'running', holder };
  if (holder !== undefined)
    return { state: 'failed', problem: `its process ${holder.pid} on ${holder.host} died` };
  const failure = join(plan.dir, 'failed', `${job.id}.txt`);
  if (existsSync(failure)) return { state: 'failed', problem: readFileSync(failure, 'utf8').trim() };
  if (problem !== 'missing') return { state: 'failed', problem };
  return { state: 'pending' };
}

export type JobOutcome = 'ran' | 'skipped' | { heldBy: Holder };

/**
 * Runs job `index` of the plan, alone: the contract of `study run --index I` and of every array
 * scheduler. A job whose output verifies is skipped; one claimed by a live process is left to it;
 * otherwise the job is claimed, what a dead attempt left is discarded, and the job writes into a
 * temporary folder that is renamed into place whole once output.json (the checksums) is in it.
 */
export async function runJob(
  plan: Plan,
  index: number,
  { quiet = true }: { quiet?: boolean } = {},
): Promise<JobOutcome> {
  const job = plan.jobs[index];
  if (job === undefined) throw new RangeError(`no job ${index}`);
  if (outputProblem(plan, job) === undefined) return 'skipped';
  for (const dependency of job.dependsOn) {
    const needed = plan.jobs[dependency]!;
    if (outputProblem(plan, needed) !== undefined)
      throw new InputError(
        `job ${index} (${job.id}) needs job ${dependency} (${needed.id}) done first; run it, or study run without --index`,
      );
  }
  const claim = claimJob(plan.dir, job.id);
  if ('heldBy' in claim) return claim;
  const jobsDir = join(plan.dir, 'jobs');
  const temporary = join(jobsDir, `.partial-${job.id}-${hostname()}-${process.pid}`);
  try {
    // Holding the claim: a finished output may have appeared meanwhile; anything else left is dead.
    if (outputProblem(plan, job) === undefined) return 'skipped';
    mkdirSync(jobsDir, { recursive: true });
    for (const name of readdirSync(jobsDir))
      if (name.startsWith(`.partial-${job.id}-`) || name.startsWith(`.discarded-${job.id}-`))
        rmSync(join(jobsDir, name), { recursive: true, force: true });
    const started = performance.now();
    await (job.kind === 'train'
      ? runTraining(plan, job.seed, temporary, quiet)
      : runEvaluation(plan, job, temporary));
    const files: Record<string, string> = {};
    for (const name of filesUnder(temporary)) files[name] = sha256(readFileSync(join(temporary, name)));
    const output: Record<string, unknown> = { jobId: job.id, index, kind: job.kind, files };
    if (job.kind === 'eval')
      output['checkpointChecksum'] = (
        JSON.parse(readFileSync(join(temporary, 'result.json'), 'utf8')) as EvalOutput
      ).checkpointChecksum;
    writeStudyFile(
      join(temporary, 'timing.json'),
      `${JSON.stringify({ seconds: (performance.now() - started) / 1000, host: hostname() })}\n`,
    );
    writeStudyFile(join(temporary, OUTPUT_FILE), `${JSON.stringify(output, null, 2)}\n`);
    const final = jobDir(plan, job);
    // A damaged output of an earlier attempt is moved aside whole, then removed.
    if (existsSync(final)) {
      const aside = join(jobsDir, `.discarded-${job.id}-${process.pid}`);
      renameSync(final, aside);
      rmSync(aside, { recursive: true, force: true });
    }
    renameSync(temporary, final);
    rmSync(join(plan.dir, 'failed', `${job.id}.txt`), { force: true });
    return 'ran';
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    const reported = diskError(error, plan.dir);
    try {
      writeStudyFile(
        join(plan.dir, 'failed', `${job.id}.txt`),
        `${(reported as Error).message?.split('\n')[0] ?? String(reported)}\n`,
      );
    } catch {
      // a full disk: the claim's release below still marks the job as not running
    }
    throw reported;
  } finally {
    claim.release();
  }
}

/** The line `study run --index I` prints for a job's outcome (the job logs and the tests read it). */
export function outcomeLine(plan: Plan, index: number, outcome: JobOutcome): string {
  const job = plan.jobs[index]!;
  return outcome === 'ran'
    ? `job ${index} (${job.id}) done`
    : outcome === 'skipped'
      ? `job ${index} (${job.id}) already done; skipped`
      : `job ${index} (${job.id}) is being run by process ${outcome.heldBy.pid} on ${outcome.heldBy.host}; left to it`;
}

async function runTraining(plan: Plan, seed: number, dir: string, quiet: boolean): Promise<void> {
  await initBackend();
  const log = openRunLog(dir, { quiet });
  try {
    await trainSnapshots(jobConfig(plan, seed), { runDir: dir, log });
  } finally {
    log.close();
  }
  // The run's lock and config are the training's bookkeeping; the checkpoints are the output.
  rmSync(join(dir, '.lock'), { force: true });
}

async function runEvaluation(plan: Plan, job: EvalJob, dir: string): Promise<void> {
  const train = plan.jobs[job.dependsOn[0]!]!;
  const checkpoint = snapshotDir(jobDir(plan, train), job.step);
  const result = await evaluate({
    checkpoint,
    harness: job.harness,
    split: 'heldout',
    episodes: job.episodes,
    seed: job.evalSeed,
  });
  if (result.provenance.harnessHash !== job.harnessHash)
    throw new InputError(
      `${checkpoint}: its harness hash ${result.provenance.harnessHash} is not the plan's ${job.harnessHash}; plan the study again`,
    );
  const output: EvalOutput = {
    jobId: job.id,
    seed: job.seed,
    step: job.step,
    chapterStep: job.chapterStep,
    label: job.label,
    harnessHash: job.harnessHash,
    evalSeed: job.evalSeed,
    episodes: job.episodes,
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
  writeStudyFile(join(dir, 'result.json'), `${JSON.stringify(output, null, 2)}\n`);
}

/** The result of a finished evaluation job. */
export function readEvalOutput(plan: Plan, job: EvalJob): EvalOutput {
  return JSON.parse(readFileSync(join(jobDir(plan, job), 'result.json'), 'utf8')) as EvalOutput;
}

/** Seconds a finished job took, from its timing.json (null when it has none). */
export function jobSeconds(plan: Plan, job: Job): number | null {
  try {
    return (JSON.parse(readFileSync(join(jobDir(plan, job), 'timing.json'), 'utf8')) as { seconds: number })
      .seconds;
  } catch {
    return null;
  }
}
