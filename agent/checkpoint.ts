import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { activeBackend } from './backend.ts';
import { countParameters, PolicyModel, variableSpecs, type ModelConfig, type ModelOptions } from './model.ts';

/**
 * Checkpoints: a folder with `weights.bin` (float32 little-endian, the model's variables
 * concatenated in their fixed order) and `manifest.json`:
 *   { format: 'tinyagent-checkpoint', version: 1, modelConfig, parameterCount,
 *     variables: [{ name, shape, offset }], checksum (sha256 hex of weights.bin), backend,
 *     ...extra (tokenizer, step, seed, harness, harnessHash, ...) }
 * Offsets count float32 values from the start of weights.bin.
 *
 * Written atomically: the files go into a temporary sibling folder which is then renamed over
 * `dir` (an existing checkpoint is first moved aside, then removed), so a reader sees the old
 * checkpoint or the new one, never a mix.
 */
export const CHECKPOINT_FORMAT = 'tinyagent-checkpoint';
export const CHECKPOINT_VERSION = 1;

export interface CheckpointManifest {
  format: typeof CHECKPOINT_FORMAT;
  version: number;
  modelConfig: ModelConfig;
  parameterCount: number;
  variables: Array<{ name: string; shape: number[]; offset: number }>;
  checksum: string;
  backend: string;
  [extra: string]: unknown;
}

const RESERVED = ['format', 'version', 'modelConfig', 'parameterCount', 'variables', 'checksum', 'backend'];

/** Writes the checkpoint; returns its manifest. `extra` may not override the reserved fields. */
export function saveCheckpoint(dir: string, model: PolicyModel, extra: Record<string, unknown> = {}): CheckpointManifest {
  for (const key of Object.keys(extra)) {
    if (RESERVED.includes(key)) throw new Error(`saveCheckpoint: extra field '${key}' would overwrite the manifest's own field`);
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
  const bytes = new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength);
  const manifest: CheckpointManifest = {
    format: CHECKPOINT_FORMAT,
    version: CHECKPOINT_VERSION,
    modelConfig: { ...model.config },
    parameterCount: total,
    variables: entries,
    checksum: sha256(bytes),
    backend: activeBackend() ?? 'unknown',
    ...extra,
  };

  const target = resolve(dir);
  mkdirSync(dirname(target), { recursive: true });
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

/**
 * Loads and verifies a checkpoint: format and version, the config's parameter count, variable
 * names, shapes and offsets, weights.bin size and checksum. Errors name the folder and the fault.
 */
export async function loadCheckpoint(dir: string, options: ModelOptions): Promise<{ model: PolicyModel; manifest: CheckpointManifest }> {
  const fail = (problem: string): never => {
    throw new Error(`checkpoint ${dir}: ${problem}`);
  };
  if (!existsSync(dir) || !statSync(dir).isDirectory()) fail('no such folder (train one first with `npm run train`, or check the path)');
  const manifestPath = join(dir, 'manifest.json');
  const weightsPath = join(dir, 'weights.bin');
  if (!existsSync(manifestPath)) fail('manifest.json is missing: not a TinyAgent checkpoint');
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (error) {
    fail(`manifest.json is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const manifest = parsed as Partial<CheckpointManifest> | null;
  if (manifest === null || typeof manifest !== 'object' || manifest.format !== CHECKPOINT_FORMAT) {
    fail(`manifest.json has format ${JSON.stringify((manifest as { format?: unknown } | null)?.format)}, expected '${CHECKPOINT_FORMAT}': not a TinyAgent checkpoint`);
  }
  const m = manifest as CheckpointManifest;
  if (m.version !== CHECKPOINT_VERSION) fail(`manifest.json has version ${JSON.stringify(m.version)}; this code reads version ${CHECKPOINT_VERSION}`);
  const cfg = m.modelConfig;
  if (cfg === undefined || typeof cfg !== 'object') fail('manifest.json has no modelConfig');
  const expectedCount = countParameters(cfg);
  if (m.parameterCount !== expectedCount) fail(`parameterCount ${m.parameterCount} does not match its modelConfig (${expectedCount})`);
  const specs = variableSpecs(cfg);
  if (!Array.isArray(m.variables) || m.variables.length !== specs.length) fail(`manifest lists ${Array.isArray(m.variables) ? m.variables.length : 'no'} variables, the config needs ${specs.length}`);
  let offset = 0;
  specs.forEach((spec, i) => {
    const entry = m.variables[i] as CheckpointManifest['variables'][number];
    if (entry.name !== spec.name || JSON.stringify(entry.shape) !== JSON.stringify(spec.shape) || entry.offset !== offset) {
      fail(`variable ${i} is ${entry.name} ${JSON.stringify(entry.shape)} at ${entry.offset}, expected ${spec.name} ${JSON.stringify(spec.shape)} at ${offset}`);
    }
    offset += spec.shape.reduce((a, b) => a * b, 1);
  });
  if (!existsSync(weightsPath)) fail('weights.bin is missing');
  const bytes = readFileSync(weightsPath);
  if (bytes.byteLength !== offset * 4) fail(`weights.bin has ${bytes.byteLength} bytes, expected ${offset * 4} (${offset} float32 values): truncated or from another model`);
  const checksum = sha256(bytes);
  if (checksum !== m.checksum) fail(`weights.bin checksum ${checksum} does not match the manifest's ${m.checksum}: the file is corrupt or was replaced`);
  // Copy into an aligned buffer (a Buffer's byteOffset need not be a multiple of 4).
  const weights = new Float32Array(offset);
  new Uint8Array(weights.buffer).set(bytes);
  const values = specs.map((spec, i) => {
    const start = (m.variables[i] as { offset: number }).offset;
    return weights.slice(start, start + spec.shape.reduce((a, b) => a * b, 1));
  });
  return { model: new PolicyModel(cfg, values, options), manifest: m };
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
