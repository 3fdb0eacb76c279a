/** A job's output folder as the study reads it; which process holds a job is leases.ts's. */
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
import { getOrAdd } from '../lib/collections.ts';
import { InputError } from '../lib/errors.ts';
import { existsInside, orUndefined, readInside } from '../lib/files.ts';
import { formatZodIssues } from '../lib/zodIssues.ts';
import { measuredTasks, snapshotSteps, splitName, type EvalJob, type Job, type Plan } from './plan.ts';

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

/** What one evaluation job writes (result.json): counts and episode outcomes, nothing about where or when it ran. */
export type EvalOutput = z.infer<typeof evalOutputSchema>;

export const OUTPUT_FILE = 'output.json';
export const RESULT_FILE = 'result.json';
const CHECKPOINT_FILES = ['manifest.json', 'weights.bin'];
/** Files of a job folder that record when and how long, not what: left out of the checksums. */
const LOG_FILES = new Set(['log.jsonl', 'summary.json', 'timing.json']);
/** output.json, result.json, a manifest, a failure note: ours are a few KB. */
const MAX_RECORD_BYTES = 1024 * 1024;

let weightsBytesOnce: number | undefined;
/** The size of every weights.bin a training writes (`trainingModelConfig`): a file of another size is damaged, never read. */
const weightsBytes = () => (weightsBytesOnce ??= 4 * countParameters(trainingModelConfig()));

export const jobDir = (plan: Plan, job: Job) => join(plan.dir, 'jobs', job.id);
/** A job's file by its path inside the study folder, the form `existsInside` and `readInside` check. */
export const inJob = (job: Job, name = '') => `jobs/${job.id}${name === '' ? '' : `/${name}`}`;
export const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
export const readRecord = (root: string, name: string) =>
  readInside(root, name, { maxBytes: MAX_RECORD_BYTES }).toString('utf8');

const jsonOf = (text: string): unknown => orUndefined(() => JSON.parse(text));

/** The files a job wrote into `dir` that its output.json lists: all but its logs and output.json itself. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((name) => !LOG_FILES.has(name) && name !== OUTPUT_FILE)
    .sort();
}

/** The files a job writes besides its logs and output.json, from the plan alone: an output is verified against these. */
export function expectedFiles(plan: Plan, job: Job): string[] {
  if (job.kind === 'eval') return [RESULT_FILE];
  const checkpoints = snapshotSteps(plan.config).flatMap((step) =>
    CHECKPOINT_FILES.map((file) => join(snapshotDir('', step), file)),
  );
  return ['config.json', ...checkpoints].sort();
}

const measuredByPlan = new WeakMap<Plan, string>();
function measuredNames(plan: Plan): string {
  const names = measuredByPlan.get(plan) ?? Array.from(measuredTasks(plan), (task) => task.name).join();
  measuredByPlan.set(plan, names);
  return names;
}

export function evalIds(job: EvalJob) {
  const { seed, step, chapterStep, label, harnessHash, evalSeed, episodes } = job;
  return { jobId: job.id, seed, step, chapterStep, label, harnessHash, evalSeed, episodes };
}

/** What is wrong with an evaluation's result.json for `job`, down to its outcomes against its counts and pass@1. */
function evalOutputProblem(plan: Plan, job: EvalJob, value: unknown): string | undefined {
  const parsed = evalOutputSchema.safeParse(value);
  if (!parsed.success) return `${RESULT_FILE}: ${formatZodIssues(parsed.error.issues)}`;
  const result = parsed.data;
  for (const [field, planned] of Object.entries(evalIds(job)) as Array<[keyof EvalOutput, unknown]>) {
    if (result[field] !== planned)
      return `${RESULT_FILE}: its ${field} ${JSON.stringify(result[field])} is not the plan's ${JSON.stringify(planned)}`;
  }
  if (result.perTask.map((count) => count.name).join() !== measuredNames(plan))
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
 * What is wrong with a job's output folder, or undefined: output.json must list the sha256 of
 * exactly the files its kind writes, and an evaluation be made from its training's current
 * checkpoint (when here). Only regular files inside the study folder are opened (`readInside`).
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
  const output = jsonOf(readRecord(root, inJob(job, OUTPUT_FILE))) as
    { jobId?: unknown; kind?: unknown; files?: unknown; checkpointChecksum?: unknown } | undefined;
  if (output === undefined) return 'output.json is not valid JSON';
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
  const value = jsonOf(records.get(RESULT_FILE)!.toString('utf8')) as
    { checkpointChecksum?: unknown } | undefined;
  if (value === undefined) return `${RESULT_FILE} is not valid JSON`;
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

/** What is wrong with a training's snapshot: its manifest's `manifestChecksum` and weights.bin's `checksum` must hold. */
function snapshotProblem(manifestBytes: Buffer, weightsSha256: string): string | undefined {
  const manifest = jsonOf(manifestBytes.toString('utf8'));
  if (manifest === undefined) return 'manifest.json is not valid JSON';
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest))
    return 'manifest.json is not a checkpoint manifest';
  const { manifestChecksum: recorded, ...fields } = manifest as Record<string, unknown>;
  if (recorded !== manifestChecksum(fields)) return 'manifest.json does not match its manifestChecksum';
  if (fields['checksum'] !== weightsSha256) return "weights.bin does not match its manifest's checksum";
  return undefined;
}

function recordField(plan: Plan, job: Job, name: string, key: string): unknown {
  const record = orUndefined(() => jsonOf(readRecord(plan.dir, inJob(job, name))));
  return (record as Record<string, unknown> | null | undefined)?.[key];
}

export function jobSeconds(plan: Plan, job: Job): number | null {
  const seconds = recordField(plan, job, 'timing.json', 'seconds');
  return typeof seconds === 'number' && Number.isFinite(seconds) ? seconds : null;
}

export function jobFingerprint(plan: Plan, job: Job): Fingerprint | undefined {
  const recorded = recordField(plan, job, OUTPUT_FILE, 'fingerprint');
  return isFingerprint(recorded) ? recorded : undefined;
}

/** Of `jobs` (done ones), those whose outputs other code made than `current`. */
export function staleJobs(plan: Plan, jobs: readonly Job[], current: Fingerprint) {
  return jobs.flatMap((job) => {
    const recorded = jobFingerprint(plan, job);
    const differences = fingerprintDifferences(recorded, current);
    return differences.length === 0
      ? []
      : [{ index: job.index, id: job.id, fingerprint: recorded ?? null, differences }];
  });
}

export type StaleJob = ReturnType<typeof staleJobs>[number];

interface FingerprintGroup {
  fingerprint: Fingerprint | undefined;
  jobs: Job[];
}

/** The largest group first. */
export function fingerprintGroups(plan: Plan, jobs: readonly Job[]): FingerprintGroup[] {
  const groups = new Map<string, FingerprintGroup>();
  for (const job of jobs) {
    const recorded = jobFingerprint(plan, job);
    const key = recorded === undefined ? '' : FINGERPRINT_PARTS.map((part) => recorded[part]).join('\0');
    getOrAdd(groups, key, () => ({ fingerprint: recorded, jobs: [] })).jobs.push(job);
  }
  // Between groups of one size, one with a fingerprint is the one the others are compared with.
  return [...groups.values()].sort(
    (a, b) =>
      b.jobs.length - a.jobs.length ||
      Number(a.fingerprint === undefined) - Number(b.fingerprint === undefined),
  );
}

function indexRanges(jobs: readonly Job[]): string {
  const ranges = indexRuns(jobs.map((job) => job.index));
  return ranges.length > 6 ? `${ranges.slice(0, 6).join(', ')}, ...` : ranges.join(', ');
}

/** `0-3`, `5`, `7-9` */
export function indexRuns(indices: readonly number[]): string[] {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j += 1;
    runs.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return runs;
}

/** Each smaller group of `fingerprintGroups` against the largest, in one line; undefined for one group. */
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
