import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { canonicalJson } from '../lib/json.ts';
import { recordedBackend } from './backend.ts';
import { countParameters, PolicyModel, sizeOf, variableSpecs } from './model.ts';
import { oneLine } from '../lib/text.ts';
import { formatZodIssues } from '../lib/zodIssues.ts';
import { InputError } from '../lib/errors.ts';
import { isFolder, makeFolders, orUndefined } from '../lib/files.ts';

/**
 * Checkpoints: a folder with `weights.bin` (float32 little-endian, the model's variables
 * concatenated in their fixed order) and `manifest.json`:
 *   { format: 'tinyagent-checkpoint', version: 2, modelConfig, parameterCount,
 *     variables: [{ name, shape, offset }], checksum (sha256 hex of weights.bin), backend,
 *     ...extra (tokenizer, step, seed, harness, harnessHash, ...),
 *     manifestChecksum }
 * Offsets count float32 values from the start of weights.bin. `manifestChecksum` is the sha256
 * hex of the manifest's other fields as canonical JSON (keys sorted, no spaces); since those
 * include `checksum`, the two checksums together cover every byte that loading reads.
 *
 * Written atomically: the files go into a temporary sibling folder which is then renamed over
 * `dir` (an existing checkpoint is first moved aside, then removed), so a reader sees the old
 * checkpoint or the new one, never a mix.
 */
export const CHECKPOINT_FORMAT = 'tinyagent-checkpoint';
/** Version 2 added `manifestChecksum`; version 1 checkpoints are refused (retrain them). */
export const CHECKPOINT_VERSION = 2;

/** Why a checkpoint could not be loaded (or, for weights that are not finite, saved), naming the folder. */
export class CheckpointError extends InputError {
  override name = 'CheckpointError';
}

const positiveInt = (max: number) => z.number().int().min(1).max(max);

/** Upper bounds keep a hostile manifest from asking for a huge model before weights.bin is read. */
const ModelConfigSchema = z
  .object({
    vocabSize: positiveInt(100_000),
    contextLength: positiveInt(4096),
    dModel: positiveInt(4096),
    nHeads: positiveInt(256),
    nLayers: positiveInt(256),
    dFF: positiveInt(65_536),
  })
  .strict();

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The manifest's own fields; the extra fields pass through (`loadAgent` validates the agent's). */
const ManifestSchema = z
  .object({
    format: z.literal(CHECKPOINT_FORMAT),
    version: z.literal(CHECKPOINT_VERSION),
    modelConfig: ModelConfigSchema,
    parameterCount: z.number().int().min(1),
    variables: z.array(
      z
        .object({
          name: z.string(),
          shape: z.array(z.number().int().min(1)),
          offset: z.number().int().min(0),
        })
        .strict(),
    ),
    checksum: z.string().regex(SHA256_HEX),
    manifestChecksum: z.string().regex(SHA256_HEX),
    backend: z.string(),
  })
  .loose();

export type CheckpointManifest = z.infer<typeof ManifestSchema>;

const RESERVED = Object.keys(ManifestSchema.shape);

/** Writes the checkpoint; returns its manifest. `extra` may not override the reserved fields. */
export function saveCheckpoint(
  dir: string,
  model: PolicyModel,
  extra: Record<string, unknown> = {},
): CheckpointManifest {
  for (const key of Object.keys(extra)) {
    if (RESERVED.includes(key))
      throw new Error(`saveCheckpoint: extra field '${key}' would overwrite the manifest's own field`);
  }
  const variables = model.variables();
  const names = model.variableNames();
  const total = variables.reduce((sum, v) => sum + v.size, 0);
  const weights = new Float32Array(total);
  const entries: CheckpointManifest['variables'] = [];
  let offset = 0;
  variables.forEach((v, i) => {
    weights.set(v.dataSync() as Float32Array, offset);
    entries.push({ name: names[i] as string, shape: [...v.shape], offset });
    offset += v.size;
  });
  // A diverged model is refused here rather than written as a checkpoint that loading refuses.
  const fault = nonFiniteWeight(weights, entries);
  if (fault !== undefined)
    throw new CheckpointError(`checkpoint ${dir}: not written: ${fault} (the model diverged)`);
  const bytes = new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength);
  // The manifest as a reader will see it (a JSON round trip drops undefined fields), then its checksum.
  const fields = JSON.parse(
    JSON.stringify({
      format: CHECKPOINT_FORMAT,
      version: CHECKPOINT_VERSION,
      modelConfig: { ...model.config },
      parameterCount: total,
      variables: entries,
      checksum: sha256(bytes),
      backend: recordedBackend() ?? 'unknown',
      ...extra,
    }),
  ) as Record<string, unknown>;
  const manifest = { ...fields, manifestChecksum: manifestChecksum(fields) } as CheckpointManifest;

  const target = resolve(dir);
  makeFolders(dirname(target));
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now()}.tmp`);
  const aside = `${temporary}.old`;
  try {
    mkdirSync(temporary);
    writeFileSync(join(temporary, 'weights.bin'), bytes);
    writeFileSync(join(temporary, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    if (existsSync(target)) {
      renameSync(target, aside);
      try {
        renameSync(temporary, target);
      } catch (error) {
        renameSync(aside, target); // put the old checkpoint back
        throw error;
      }
      rmSync(aside, { recursive: true, force: true });
    } else {
      renameSync(temporary, target);
    }
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    throw error;
  }
  return manifest;
}

/** sha256 hex of `dir/weights.bin`, as recorded in the manifest's `checksum`. */
export function checkpointChecksum(dir: string): string {
  return sha256(readFileSync(join(dir, 'weights.bin')));
}

/** The largest manifest read: a default model's is about 8 KB, its tokenizer included. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/**
 * Loads and verifies a checkpoint: the manifest's format, version and checksum, its fields
 * against a schema, nHeads dividing dModel, the config's parameter count, variable names, shapes
 * and offsets, weights.bin's size and checksum, and every weight finite. Throws a CheckpointError
 * naming the folder and the fault.
 *
 * The checksums only show that the files are as written; the other checks are what refuses a
 * manifest or weights.bin edited on purpose and given fresh checksums.
 */
export async function loadCheckpoint(
  dir: string,
): Promise<{ model: PolicyModel; manifest: CheckpointManifest }> {
  const fail: Fail = (problem) => {
    throw new CheckpointError(`checkpoint ${dir}: ${problem}`);
  };
  if (!isFolder(dir)) fail('no such folder (train one first with `npm run train`, or check the path)');
  const manifest = verifiedManifest(readManifest(join(dir, 'manifest.json'), fail), fail);
  const count = checkLayout(manifest, fail);
  const weights = readWeights(join(dir, 'weights.bin'), manifest, count, fail);
  // checkLayout matched each entry's shape and offset to the config's.
  const values = manifest.variables.map(({ shape, offset }) => weights.slice(offset, offset + sizeOf(shape)));
  return { model: new PolicyModel(manifest.modelConfig, values), manifest };
}

/** Throws a CheckpointError naming the checkpoint's folder and `problem`. */
type Fail = (problem: string) => never;

/** manifest.json read as an object with the checkpoint format: present, not too large, valid JSON. */
function readManifest(manifestPath: string, fail: Fail): Record<string, unknown> {
  const manifestStats = orUndefined(() => statSync(manifestPath));
  if (manifestStats === undefined || !manifestStats.isFile())
    fail('manifest.json is missing: not a TinyAgent checkpoint');
  if (manifestStats!.size > MAX_MANIFEST_BYTES)
    fail(`manifest.json is larger than ${MAX_MANIFEST_BYTES} bytes: not a TinyAgent checkpoint`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (error) {
    fail(
      `manifest.json is not valid JSON (${oneLine(error instanceof Error ? error.message : String(error), 200)})`,
    );
  }
  const format = (parsed as { format?: unknown } | null)?.format;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || format !== CHECKPOINT_FORMAT)
    fail(
      `manifest.json has format ${JSON.stringify(format) ?? 'undefined'}, expected '${CHECKPOINT_FORMAT}': not a TinyAgent checkpoint`,
    );
  return parsed as Record<string, unknown>;
}

/** The manifest once its version, its manifestChecksum and then the schema accept it. */
function verifiedManifest(raw: Record<string, unknown>, fail: Fail): CheckpointManifest {
  if (raw.version !== CHECKPOINT_VERSION) {
    fail(
      `manifest.json has version ${JSON.stringify(raw.version) ?? 'undefined'}; this code reads version ${CHECKPOINT_VERSION} (retrain with \`npm run train\`)`,
    );
  }
  // The manifest checksum first: a field changed by hand is reported as that, not as whatever it breaks.
  const { manifestChecksum: recorded, ...fields } = raw;
  if (typeof recorded !== 'string') fail('manifest.json has no manifestChecksum');
  const actual = manifestChecksum(fields);
  if (actual !== recorded)
    fail(
      `manifest.json checksum ${actual} does not match its manifestChecksum ${String(recorded)}: the manifest was edited or is corrupt`,
    );
  const checked = ManifestSchema.safeParse(raw);
  if (!checked.success) fail(`manifest.json: ${formatZodIssues(checked.error.issues)}`);
  return raw as CheckpointManifest;
}

/**
 * Checks the manifest's model against its config: nHeads dividing dModel, the parameter count,
 * and each variable's name, shape and offset in order. Returns the number of float32 values.
 */
function checkLayout(m: CheckpointManifest, fail: Fail): number {
  const cfg = m.modelConfig;
  if (cfg.dModel % cfg.nHeads !== 0)
    fail(`manifest.json: modelConfig nHeads ${cfg.nHeads} does not divide dModel ${cfg.dModel}`);
  const expectedCount = countParameters(cfg);
  if (m.parameterCount !== expectedCount)
    fail(`parameterCount ${m.parameterCount} does not match its modelConfig (${expectedCount})`);
  const specs = variableSpecs(cfg);
  if (m.variables.length !== specs.length)
    fail(`manifest lists ${m.variables.length} variables, the config needs ${specs.length}`);
  let offset = 0;
  specs.forEach((spec, i) => {
    const entry = m.variables[i] as CheckpointManifest['variables'][number];
    if (
      entry.name !== spec.name ||
      JSON.stringify(entry.shape) !== JSON.stringify(spec.shape) ||
      entry.offset !== offset
    ) {
      fail(
        `variable ${i} is ${entry.name} ${JSON.stringify(entry.shape)} at ${entry.offset}, expected ${spec.name} ${JSON.stringify(spec.shape)} at ${offset}`,
      );
    }
    offset += sizeOf(spec.shape);
  });
  return offset;
}

/** weights.bin's `count` float32 values, once its size, its checksum and every value's finiteness are checked. */
function readWeights(weightsPath: string, m: CheckpointManifest, count: number, fail: Fail): Float32Array {
  const weightsStats = orUndefined(() => statSync(weightsPath));
  if (weightsStats === undefined || !weightsStats.isFile()) fail('weights.bin is missing');
  const size = weightsStats!.size;
  if (size !== count * 4)
    fail(
      `weights.bin has ${size} bytes, expected ${count * 4} (${count} float32 values): truncated or from another model`,
    );
  const bytes = readFileSync(weightsPath);
  const checksum = sha256(bytes);
  if (checksum !== m.checksum)
    fail(
      `weights.bin checksum ${checksum} does not match the manifest's ${m.checksum}: the file is corrupt or was replaced`,
    );
  // Copy into an aligned buffer (a Buffer's byteOffset need not be a multiple of 4).
  const weights = new Float32Array(count);
  new Uint8Array(weights.buffer).set(bytes);
  const fault = nonFiniteWeight(weights, m.variables);
  if (fault !== undefined)
    fail(
      `weights.bin: ${fault}; saving refuses such weights, so the file was edited or written by other code`,
    );
  return weights;
}

/**
 * sha256 hex of the manifest fields (all but `manifestChecksum`) as canonical JSON: what
 * `manifestChecksum` must hold. A manifest edited on purpose must be given this checksum anew.
 */
export function manifestChecksum(fields: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(fields)).digest('hex');
}

/**
 * The first weight that is NaN or ±Infinity, as `weight NAME holds VALUE at index I` (I counts
 * within the variable), or undefined. Nothing else would notice one: a NaN `lnf.gain` loads, and
 * every logit becomes NaN, so the agent plays and fails every episode. One pass over the values.
 */
function nonFiniteWeight(
  weights: Float32Array,
  variables: ReadonlyArray<{ name: string; offset: number }>,
): string | undefined {
  for (let i = 0; i < weights.length; i++) {
    const value = weights[i] as number;
    if (Number.isFinite(value)) continue;
    // Variables lie in offset order: the last one starting at or before i holds value i.
    let k = variables.length - 1;
    while (k > 0 && (variables[k] as { offset: number }).offset > i) k--;
    const variable = variables[k] as { name: string; offset: number };
    return `weight ${variable.name} holds ${value} at index ${i - variable.offset}`;
  }
  return undefined;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
