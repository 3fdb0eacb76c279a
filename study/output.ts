/**
 * A job's output folder as the study reads it: what a job writes (`expectedFiles`), whether what
 * is there is complete and as written (`outputProblem`: output.json's checksums, an evaluation's
 * result.json against the plan), and what it records (`readEvalOutput`, timings, fingerprints).
 * Reads files only: which process holds a job, and running one, are job.ts's and leases.ts's.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import {
  countParameters,
  FINGERPRINT_PARTS,
  fingerprintDifferences,
  isFingerprint,
  manifestChecksum,
  type Fingerprint,
} from '../agent/index.ts';
import { snapshotDir, trainingModelConfig } from '../train/index.ts';
import { InputError } from '../lib/errors.ts';
import { existsInside, readInside } from '../lib/files.ts';
import { formatZodIssues } from '../lib/zodIssues.ts';
import { measuredTasks, snapshotSteps, splitName, type EvalJob, type Job, type Plan } from './plan.ts';

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

export const OUTPUT_FILE = 'output.json';
export const RESULT_FILE = 'result.json';
/** The files of a checkpoint folder (agent/checkpoint.ts): what a training's snapshots hold. */
const CHECKPOINT_FILES = ['manifest.json', 'weights.bin'];
/** Files of a job folder that record when and how long, not what: left out of the checksums. */
const LOG_FILES = new Set(['log.jsonl', 'summary.json', 'timing.json']);
/** The largest output.json, result.json, config.json, manifest.json, timing.json or failure note read: ours are a few KB. */
export const MAX_RECORD_BYTES = 1024 * 1024;

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
export const inJob = (job: Job, name = '') => `jobs/${job.id}${name === '' ? '' : `/${name}`}`;
export const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

/** The files a job wrote into `dir` that its output.json lists: all but its logs and output.json itself. */
export function filesUnder(dir: string): string[] {
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

/** A done job whose output another code made than the one asked about (`staleJobs`). */
export interface StaleJob {
  index: number;
  id: string;
  /** What its output.json records; null when it records none (made before fingerprints were recorded). */
  fingerprint: Fingerprint | null;
  /** `fingerprintDifferences` from the recorded fingerprint to `current`. */
  differences: string[];
}

/** Of `jobs` (done ones), those whose outputs record another fingerprint than `current`, in order. */
export function staleJobs(plan: Plan, jobs: readonly Job[], current: Fingerprint): StaleJob[] {
  return jobs.flatMap((job) => {
    const recorded = jobFingerprint(plan, job);
    const differences = fingerprintDifferences(recorded, current);
    return differences.length === 0
      ? []
      : [{ index: job.index, id: job.id, fingerprint: recorded ?? null, differences }];
  });
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
