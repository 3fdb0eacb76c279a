import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { z } from 'zod';
import {
  countParameters,
  evaluate,
  fingerprint,
  FINGERPRINT_PARTS,
  fingerprintDifferences,
  initBackend,
  isFingerprint,
  manifestChecksum,
  type Fingerprint,
} from '../agent/index.ts';
import { firstEditCounts } from '../gym/index.ts';
import { snapshotDir, trainingModelConfig, trainSnapshots } from '../train/index.ts';
import { InputError, RetryError } from '../lib/errors.ts';
import { existsInside, fileSystemError, readInside } from '../lib/files.ts';
import { openRunLog } from '../lib/log.ts';
import { onStopSignal } from '../lib/processes.ts';
import { printable } from '../lib/text.ts';
import { formatZodIssues } from '../lib/zodIssues.ts';
import { claimJob, leaseAtOnce, readLease, type Held, type Holder } from './claim.ts';
import { writeFileAtomic } from '../lib/atomic.ts';
import { studyFolder } from './disk.ts';
import {
  jobConfig,
  measuredSplit,
  measuredTasks,
  snapshotSteps,
  splitName,
  type EvalJob,
  type Job,
  type Plan,
} from './plan.ts';

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
const RESULT_FILE = 'result.json';
/** The files of a checkpoint folder (agent/checkpoint.ts): what a training's snapshots hold. */
const CHECKPOINT_FILES = ['manifest.json', 'weights.bin'];
/** Files of a job folder that record when and how long, not what: left out of the checksums. */
const LOG_FILES = new Set(['log.jsonl', 'summary.json', 'timing.json']);
/** The largest output.json, result.json, config.json, manifest.json, timing.json or failure note read: ours are a few KB. */
const MAX_RECORD_BYTES = 1024 * 1024;

let weightsBytesOnce: number | undefined;
/**
 * The size of every weights.bin a training writes: the float32 values of the model every training
 * builds (`trainingModelConfig`). A file of any other size is damaged, and is never read whole.
 */
function weightsBytes(): number {
  weightsBytesOnce ??= 4 * countParameters(trainingModelConfig());
  return weightsBytesOnce;
}

export const jobDir = (plan: Plan, job: Job) => join(plan.dir, 'jobs', job.id);
/** A job's file by its path inside the study folder, the form `existsInside` and `readInside` check. */
const inJob = (job: Job, name = '') => `jobs/${job.id}${name === '' ? '' : `/${name}`}`;
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((name) => !LOG_FILES.has(name) && name !== OUTPUT_FILE)
    .sort();
}

/**
 * The files a job writes besides its logs and output.json, from its kind and the plan alone: a
 * training its config.json and every snapshot's checkpoint, an evaluation its result.json. An
 * output is verified against this list, never against the list its own output.json gives.
 */
export function expectedFiles(plan: Plan, job: Job): string[] {
  if (job.kind === 'eval') return [RESULT_FILE];
  const checkpoints = snapshotSteps(plan.config).flatMap((step) =>
    CHECKPOINT_FILES.map((file) => join(snapshotDir('', step), file)),
  );
  return ['config.json', ...checkpoints].sort();
}

const evalOutputSchema = z
  .object({
    jobId: z.string(),
    seed: z.number().int(),
    step: z.number().int(),
    chapterStep: z.number().int(),
    label: z.string(),
    harnessHash: z.string(),
    evalSeed: z.string(),
    episodes: z.number().int(),
    checkpointChecksum: z.string().regex(/^[0-9a-f]{64}$/),
    backend: z.string().nullable(),
    passAt1: z.number(),
    perTask: z.array(
      z
        .object({
          name: z.string(),
          successes: z.number().int().min(0),
          episodes: z.number().int(),
          outcomes: z.string().regex(/^[01]*$/),
          firstEdits: z.record(z.string(), z.number().int().min(0)),
        })
        .strict(),
    ),
  })
  .strict();

/** The tasks a plan's evaluations play (`measuredTasks`), by name in evaluate's order, made once per plan (`study status` checks every evaluation). */
const measuredByPlan = new WeakMap<Plan, string>();
function measuredNames(plan: Plan): string {
  let names = measuredByPlan.get(plan);
  if (names === undefined) {
    names = measuredTasks(plan)
      .map((task) => task.name)
      .join(',');
    measuredByPlan.set(plan, names);
  }
  return names;
}

/**
 * What is wrong with an evaluation's result.json for job `job` of the plan, or undefined: its
 * fields, its own ids (job id, seed, step, label, harness hash, eval seed, episodes) against the
 * plan's, its tasks against the split the recipe measures, every task's outcomes against its
 * counts, and pass@1 against the counts (evaluate's formula, the mean of the tasks' rates).
 */
export function evalOutputProblem(plan: Plan, job: EvalJob, value: unknown): string | undefined {
  const parsed = evalOutputSchema.safeParse(value);
  if (!parsed.success) return `${RESULT_FILE}: ${formatZodIssues(parsed.error.issues)}`;
  const result = parsed.data;
  for (const field of [
    'jobId',
    'seed',
    'step',
    'chapterStep',
    'label',
    'harnessHash',
    'evalSeed',
    'episodes',
  ] as const) {
    const planned = field === 'jobId' ? job.id : job[field];
    if (result[field] !== planned)
      return `${RESULT_FILE}: its ${field} ${JSON.stringify(result[field])} is not the plan's ${JSON.stringify(planned)}`;
  }
  if (result.perTask.map((count) => count.name).join(',') !== measuredNames(plan))
    return `${RESULT_FILE}: its tasks are not the recipe's ${splitName(plan)} tasks`;
  for (const count of result.perTask) {
    const successes = [...count.outcomes].filter((outcome) => outcome === '1').length;
    if (
      count.episodes !== job.episodes ||
      count.outcomes.length !== job.episodes ||
      successes !== count.successes
    )
      return `${RESULT_FILE}: task ${count.name}'s counts are not its ${job.episodes} episodes' outcomes`;
  }
  const passAt1 =
    result.perTask.reduce((sum, { successes, episodes }) => sum + successes / episodes, 0) /
    result.perTask.length;
  if (result.passAt1 !== passAt1)
    return `${RESULT_FILE}: its passAt1 is not the mean of its tasks' pass rates`;
  return undefined;
}

/**
 * Whether a job's output folder is complete and as written: output.json names the job and the
 * sha256 of exactly the files its kind writes (`expectedFiles`), each file matches, an
 * evaluation's result.json is the plan's job (`evalOutputProblem`), and it was made from its
 * training's current checkpoint (when that training's output is here). Every path stays inside
 * the study folder and only regular files are opened (lib/files.ts `readInside`). Returns the
 * problem, or undefined when it verifies.
 */
export function outputProblem(plan: Plan, job: Job): string | undefined {
  try {
    return outputProblemUnchecked(plan, job);
  } catch (error) {
    // A link out of the folder, a FIFO, a device, an oversized file: the output is damaged.
    if (error instanceof InputError) return error.message;
    throw error;
  }
}

function outputProblemUnchecked(plan: Plan, job: Job): string | undefined {
  const root = plan.dir;
  if (!existsInside(root, inJob(job), 'folder')) return 'missing';
  if (!existsInside(root, inJob(job, OUTPUT_FILE), 'file')) return 'no output.json';
  let output: { jobId?: unknown; kind?: unknown; files?: unknown; checkpointChecksum?: unknown };
  try {
    output = JSON.parse(
      readInside(root, inJob(job, OUTPUT_FILE), { maxBytes: MAX_RECORD_BYTES }).toString('utf8'),
    ) as typeof output;
  } catch (error) {
    if (error instanceof InputError) throw error;
    return 'output.json is not valid JSON';
  }
  if (output === null || typeof output !== 'object' || output.jobId !== job.id || output.kind !== job.kind)
    return 'output.json names another job';
  const files = output.files;
  const expected = expectedFiles(plan, job);
  if (
    files === null ||
    typeof files !== 'object' ||
    Object.keys(files).sort().join('\n') !== expected.join('\n')
  )
    return `output.json does not list the files ${job.kind === 'train' ? 'a training' : 'an evaluation'} job writes (${expected.length === 1 ? expected[0] : `${expected.length} files`})`;
  /** Each file's sha256, and the bytes of the small ones (manifests, result.json) for the checks below. */
  const digests = new Map<string, string>();
  const records = new Map<string, Buffer>();
  for (const name of expected) {
    const path = inJob(job, name);
    if (!existsInside(root, path, 'file')) return `${name} is missing`;
    // The plan knows a checkpoint's size: a weights.bin of another size is not read (a sparse 3 GiB file would be).
    const weights = name.endsWith('weights.bin');
    const size = lstatSync(join(root, path)).size;
    if (weights && size !== weightsBytes())
      return `${name} is ${size} bytes, not the ${weightsBytes()} of the recipe's model`;
    const bytes = readInside(root, path, { maxBytes: weights ? weightsBytes() : MAX_RECORD_BYTES });
    digests.set(name, sha256(bytes));
    if (digests.get(name) !== (files as Record<string, unknown>)[name]) return `${name} fails its checksum`;
    if (!weights) records.set(name, bytes);
  }
  if (job.kind === 'train') {
    // Fresh checksums in output.json show only that the files are as listed: each snapshot's own checksums must hold too.
    for (const step of snapshotSteps(plan.config)) {
      const dir = snapshotDir('', step);
      const problem = snapshotProblem(
        records.get(join(dir, 'manifest.json'))!,
        digests.get(join(dir, 'weights.bin'))!,
      );
      if (problem !== undefined) return `${dir}: ${problem}`;
    }
    return undefined;
  }
  let value: { checkpointChecksum?: unknown };
  try {
    value = JSON.parse(records.get(RESULT_FILE)!.toString('utf8')) as typeof value;
  } catch {
    return `${RESULT_FILE} is not valid JSON`;
  }
  const problem = evalOutputProblem(plan, job, value);
  if (problem !== undefined) return problem;
  if (value.checkpointChecksum !== output.checkpointChecksum)
    return `output.json's checkpointChecksum is not its ${RESULT_FILE}'s`;
  const train = plan.jobs[job.dependsOn[0]!]!;
  const weights = inJob(train, join(snapshotDir('', job.step), 'weights.bin'));
  if (
    existsInside(root, weights, 'file') &&
    sha256(readInside(root, weights, { maxBytes: weightsBytes() })) !== value.checkpointChecksum
  )
    return 'made from another checkpoint than its training now holds';
  return undefined;
}

/**
 * What is wrong with a snapshot of a training: its manifest must be JSON whose `manifestChecksum`
 * covers its other fields, and whose `checksum` is weights.bin's sha256 (agent/checkpoint.ts).
 * A damaged file listed in output.json with a fresh checksum fails here, and is rerun.
 */
function snapshotProblem(manifestBytes: Buffer, weightsSha256: string): string | undefined {
  let manifest: unknown;
  try {
    manifest = JSON.parse(manifestBytes.toString('utf8'));
  } catch {
    return 'manifest.json is not valid JSON';
  }
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest))
    return 'manifest.json is not a checkpoint manifest';
  const { manifestChecksum: recorded, ...fields } = manifest as Record<string, unknown>;
  if (recorded !== manifestChecksum(fields)) return 'manifest.json does not match its manifestChecksum';
  if (fields['checksum'] !== weightsSha256) return "weights.bin does not match its manifest's checksum";
  return undefined;
}

export type JobState =
  | { state: 'done' }
  /** Claimed by a lease not known to be stale: one look cannot tell more (`leaseAtOnce`); watching its renewals can. */
  | { state: 'running'; holder: Holder; renewed: string }
  | { state: 'failed'; problem: string }
  | { state: 'pending' };

/** A job's state from the folder alone (what `study status` shows). */
export function jobState(plan: Plan, job: Job): JobState {
  const problem = outputProblem(plan, job);
  if (problem === undefined) return { state: 'done' };
  const read = readLease(plan.dir, job.id);
  if (read !== undefined && 'lease' in read) {
    const { holder, renewed } = read.lease;
    if (leaseAtOnce(read.lease) === 'watch') return { state: 'running', holder, renewed };
    return { state: 'failed', problem: `its process ${holder.pid} on ${holder.host} died` };
  }
  const note = failureNote(plan, job);
  if (note !== undefined) return { state: 'failed', problem: note };
  // A problem may quote what a file holds (a key of result.json): shown escaped.
  if (problem !== 'missing') return { state: 'failed', problem: printable(problem) };
  return { state: 'pending' };
}

/**
 * The first line of a job's `failed/<id>.txt`, read as any file of the folder (`readInside`): a
 * link or a FIFO there is reported, not followed, and control characters are shown escaped.
 */
function failureNote(plan: Plan, job: Job): string | undefined {
  const name = `failed/${job.id}.txt`;
  try {
    if (!existsInside(plan.dir, name, 'file')) return undefined;
    return printable(
      readInside(plan.dir, name, { maxBytes: MAX_RECORD_BYTES }).toString('utf8').split('\n')[0]!.trim(),
    );
  } catch (error) {
    if (error instanceof InputError) return printable(`its failure note is not read: ${error.message}`);
    throw error;
  }
}

export type JobOutcome = 'ran' | 'skipped' | Held;

/**
 * Runs job `index` of the plan, alone: the contract of `study run --index I` and of every array
 * scheduler. A job whose output verifies is skipped; one claimed by a live lease is left to it
 * (the caller exits 75, retry later); otherwise the job is claimed (study/claim.ts: a stale
 * lease is taken over), what a dead attempt left is discarded, and the job writes into a
 * temporary folder that is renamed into place whole once output.json (the checksums) is in it.
 * A holder whose lease was taken over meanwhile (it stopped renewing, and another process judged
 * it stale) removes its own temporary folder only and throws a RetryError (exit 75).
 */
export async function runJob(
  plan: Plan,
  index: number,
  { quiet = true, say = () => {} }: { quiet?: boolean; say?: (line: string) => void } = {},
): Promise<JobOutcome> {
  const job = plan.jobs[index];
  if (job === undefined) throw new RangeError(`no job ${index}`);
  if (outputProblem(plan, job) === undefined) return 'skipped';
  for (const dependency of job.dependsOn) {
    const needed = plan.jobs[dependency]!;
    const problem = outputProblem(plan, needed);
    if (problem !== undefined)
      throw new InputError(
        `job ${index} (${job.id}) needs the training of seed ${needed.seed}, job ${dependency} (${needed.id}), done first, and it is ${problem === 'missing' ? 'not done' : `failed (${problem})`}; run it, or study run without --index`,
      );
  }
  const jobsDir = studyFolder(plan.dir, 'jobs');
  const claim = await claimJob(plan.dir, job.id, { say });
  if ('heldBy' in claim) return claim;
  const temporary = join(jobsDir, `.partial-${job.id}-${hostname()}-${process.pid}`);
  const lockPath = join(plan.dir, 'claims', `${job.id}.lock`);
  const lost = () => {
    const now = readLease(plan.dir, job.id);
    const how =
      now !== undefined && 'lease' in now
        ? `taken over by process ${now.lease.holder.pid} on ${now.lease.holder.host}`
        : 'removed by another process (study unlock --force, or a takeover that has ended)';
    return new RetryError(
      `job ${index} (${job.id}): its claim ${lockPath} was ${how}; this attempt's output was discarded and the new holder's left as it is: retry later`,
    );
  };
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
    await (job.kind === 'train'
      ? runTraining(plan, job.seed, temporary, quiet)
      : runEvaluation(plan, job, temporary));
    // A turn of the event loop: a signal that came during the job is handled here, before its output is made final.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const files: Record<string, string> = {};
    const written = filesUnder(temporary);
    // What the job wrote must be what its kind writes, or it would never verify (a change of the training's files).
    if (written.join('\n') !== expectedFiles(plan, job).join('\n'))
      throw new Error(`job ${job.id} wrote ${written.join(', ')}, not the files of a ${job.kind} job`);
    for (const name of written) files[name] = sha256(readFileSync(join(temporary, name)));
    // What made these bytes (agent/fingerprint.ts), outside the checksums: `study report` refuses to merge outputs of different code.
    const output: Record<string, unknown> = {
      jobId: job.id,
      index,
      kind: job.kind,
      files,
      fingerprint: fingerprint(),
    };
    if (job.kind === 'eval')
      output['checkpointChecksum'] = (
        JSON.parse(readFileSync(join(temporary, 'result.json'), 'utf8')) as EvalOutput
      ).checkpointChecksum;
    writeFileAtomic(
      join(temporary, 'timing.json'),
      `${JSON.stringify({ seconds: (performance.now() - started) / 1000, host: hostname() })}\n`,
    );
    writeFileAtomic(join(temporary, OUTPUT_FILE), `${JSON.stringify(output, null, 2)}\n`);
    const final = jobDir(plan, job);
    if (!claim.held()) throw lost();
    // A damaged output of an earlier attempt is moved aside whole, then removed.
    if (presentAsItself(final)) {
      const aside = join(jobsDir, `.discarded-${job.id}-${process.pid}`);
      renameSync(final, aside);
      rmSync(aside, { recursive: true, force: true });
    }
    renameSync(temporary, final);
    if (existsInside(plan.dir, `failed/${job.id}.txt`, 'file'))
      rmSync(join(plan.dir, 'failed', `${job.id}.txt`), { force: true });
    return 'ran';
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    // Taken over: the job is the new holder's now, and so are its failure note and its folder.
    if (error instanceof RetryError || !claim.held()) throw error instanceof RetryError ? error : lost();
    const reported = fileSystemError(error, plan.dir);
    try {
      writeFileAtomic(
        join(studyFolder(plan.dir, 'failed'), `${job.id}.txt`),
        `${(reported as Error).message?.split('\n')[0] ?? String(reported)}\n`,
      );
    } catch {
      // a full disk: the claim's release below still marks the job as not running
    }
    throw reported;
  } finally {
    removeSignalHandlers();
    claim.release();
  }
}

/** Whether anything is at `path`, a link counting as itself (existsSync would follow it). */
function presentAsItself(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
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
    split: measuredSplit(plan),
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
  writeFileAtomic(join(dir, 'result.json'), `${JSON.stringify(output, null, 2)}\n`);
}

/** The result of a finished evaluation job, checked as `outputProblem` checks it: an InputError when it is not the plan's. */
export function readEvalOutput(plan: Plan, job: EvalJob): EvalOutput {
  const path = join(jobDir(plan, job), RESULT_FILE);
  let value: unknown;
  try {
    value = JSON.parse(
      readInside(plan.dir, inJob(job, RESULT_FILE), { maxBytes: MAX_RECORD_BYTES }).toString('utf8'),
    );
  } catch (error) {
    throw new InputError(error instanceof InputError ? error.message : `${path}: not valid JSON`);
  }
  const problem = evalOutputProblem(plan, job, value);
  if (problem !== undefined)
    throw new InputError(`${jobDir(plan, job)}: ${problem}; rerun it with tinyagent study run`);
  return value as EvalOutput;
}

/** Seconds a finished job took, from its timing.json (null when it has none). */
export function jobSeconds(plan: Plan, job: Job): number | null {
  try {
    const { seconds } = JSON.parse(
      readInside(plan.dir, inJob(job, 'timing.json'), { maxBytes: MAX_RECORD_BYTES }).toString('utf8'),
    ) as { seconds?: unknown };
    return typeof seconds === 'number' && Number.isFinite(seconds) ? seconds : null;
  } catch {
    return null;
  }
}

/**
 * The fingerprint a job's output.json records (agent/fingerprint.ts), or undefined when it has
 * none (made before fingerprints were recorded) or one that is not a whole fingerprint: both
 * differ from every fingerprint in every part (`fingerprintDifferences`).
 */
export function jobFingerprint(plan: Plan, job: Job): Fingerprint | undefined {
  try {
    const { fingerprint: recorded } = JSON.parse(
      readInside(plan.dir, inJob(job, OUTPUT_FILE), { maxBytes: MAX_RECORD_BYTES }).toString('utf8'),
    ) as { fingerprint?: unknown };
    return isFingerprint(recorded) ? recorded : undefined;
  } catch {
    return undefined;
  }
}

/** The jobs of one fingerprint (undefined: none recorded), in index order. */
export interface FingerprintGroup {
  fingerprint: Fingerprint | undefined;
  jobs: Job[];
}

/** `jobs` grouped by the fingerprint their outputs record, the largest group first. */
export function fingerprintGroups(plan: Plan, jobs: readonly Job[]): FingerprintGroup[] {
  const groups = new Map<string, FingerprintGroup>();
  for (const job of jobs) {
    const recorded = jobFingerprint(plan, job);
    const key = recorded === undefined ? '' : FINGERPRINT_PARTS.map((part) => recorded[part]).join('\0');
    const group = groups.get(key) ?? { fingerprint: recorded, jobs: [] };
    group.jobs.push(job);
    groups.set(key, group);
  }
  // Between groups of one size, one with a fingerprint is the one the others are compared with.
  return [...groups.values()].sort(
    (a, b) =>
      b.jobs.length - a.jobs.length ||
      Number(a.fingerprint === undefined) - Number(b.fingerprint === undefined),
  );
}

/** Job indices as ranges: `0-13, 15` (at most 6 ranges, then `...`). */
function indexRanges(jobs: readonly Job[]): string {
  const ranges: string[] = [];
  for (let i = 0; i < jobs.length;) {
    let j = i;
    while (j + 1 < jobs.length && jobs[j + 1]!.index === jobs[j]!.index + 1) j += 1;
    ranges.push(i === j ? String(jobs[i]!.index) : `${jobs[i]!.index}-${jobs[j]!.index}`);
    i = j + 1;
  }
  return ranges.length > 6 ? `${ranges.slice(0, 6).join(', ')}, ...` : ranges.join(', ');
}

/**
 * What differs between the groups of `fingerprintGroups`, in one line: each smaller group's
 * jobs against the largest group's, with the parts in which their fingerprints differ; undefined
 * when every job has one fingerprint (or none has any).
 */
export function describeMixedFingerprints(groups: readonly FingerprintGroup[]): string | undefined {
  if (groups.length < 2) return undefined;
  const [largest, ...others] = groups as [FingerprintGroup, ...FingerprintGroup[]];
  const name = (group: FingerprintGroup) =>
    `job${group.jobs.length === 1 ? '' : 's'} ${indexRanges(group.jobs)} (${group.jobs.length}${group.fingerprint === undefined ? ', no fingerprint' : ''})`;
  return others
    .map(
      (group) =>
        `${name(group)} ${group.jobs.length === 1 ? 'differs' : 'differ'} from ${name(largest)} in ${fingerprintDifferences(largest.fingerprint, group.fingerprint).join(', ')}`,
    )
    .join('; ');
}
