import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../agent/backend.ts';
import { CheckpointError, checkpointChecksum, loadCheckpoint, saveCheckpoint } from '../agent/checkpoint.ts';
import { createModel, type ModelConfig, type PolicyModel } from '../agent/model.ts';
import { Rng } from '../lib/rng.ts';

const small: ModelConfig = { vocabSize: 30, contextLength: 16, dModel: 16, nHeads: 2, nLayers: 1, dFF: 16 };
const WASM = { attention: 'depthwise' } as const;
let root: string;
let model: PolicyModel;

beforeAll(async () => {
  await initBackend({ preference: 'wasm' });
  root = mkdtempSync(join(tmpdir(), 'tinyagent-checkpoint-'));
  model = createModel(small, new Rng('checkpoint'), WASM);
});

afterAll(() => {
  model.dispose();
  rmSync(root, { recursive: true, force: true });
});

function bytesOf(m: PolicyModel): Uint8Array[] {
  return m.variables().map((v) => new Uint8Array((v.dataSync() as Float32Array).slice().buffer));
}

describe('checkpoints', () => {
  it('round trip is bit-identical and keeps the extra fields', async () => {
    const dir = join(root, 'roundtrip');
    const saved = saveCheckpoint(dir, model, {
      tokenizer: ['a', 'b'],
      step: 10,
      seed: 3,
      harnessHash: 'abc',
    });
    const { model: loaded, manifest } = await loadCheckpoint(dir, WASM);
    expect(bytesOf(loaded)).toEqual(bytesOf(model));
    expect(loaded.variableNames()).toEqual(model.variableNames());
    expect(manifest).toMatchObject({
      format: 'tinyagent-checkpoint',
      version: 2,
      modelConfig: small,
      parameterCount: model.parameterCount(),
      step: 10,
      seed: 3,
      tokenizer: ['a', 'b'],
      backend: 'wasm',
    });
    expect(manifest.checksum).toBe(saved.checksum);
    expect(checkpointChecksum(dir)).toBe(saved.checksum);
    loaded.dispose();
  });

  it('replaces an existing checkpoint and leaves no temporary folders', async () => {
    const dir = join(root, 'replace');
    saveCheckpoint(dir, model, { step: 1 });
    const other = createModel(small, new Rng('other'), WASM);
    saveCheckpoint(dir, other, { step: 2 });
    const { model: loaded, manifest } = await loadCheckpoint(dir, WASM);
    expect(manifest.step).toBe(2);
    expect(bytesOf(loaded)).toEqual(bytesOf(other));
    expect(readdirSync(root).filter((name) => name.includes('.tmp'))).toEqual([]);
    [loaded, other].forEach((m) => m.dispose());
  });

  it('refuses reserved fields in extra', () => {
    expect(() => saveCheckpoint(join(root, 'reserved'), model, { checksum: 'x' })).toThrow(/'checksum'/);
  });

  it('errors name the folder and the problem', async () => {
    const missing = join(root, 'nope');
    await expect(loadCheckpoint(missing, WASM)).rejects.toThrow(
      new RegExp(`checkpoint ${missing}: no such folder.*npm run train`),
    );

    const truncated = join(root, 'truncated');
    saveCheckpoint(truncated, model, {});
    truncateSync(join(truncated, 'weights.bin'), 100);
    await expect(loadCheckpoint(truncated, WASM)).rejects.toThrow(
      /truncated.*weights\.bin has 100 bytes|weights\.bin has 100 bytes.*truncated/,
    );

    const corrupt = join(root, 'corrupt');
    saveCheckpoint(corrupt, model, {});
    const bytes = readFileSync(join(corrupt, 'weights.bin'));
    bytes[7] = (bytes[7] as number) ^ 1;
    writeFileSync(join(corrupt, 'weights.bin'), bytes);
    await expect(loadCheckpoint(corrupt, WASM)).rejects.toThrow(
      new RegExp(`checkpoint ${corrupt}: weights\\.bin checksum .* does not match`),
    );

    const foreign = join(root, 'foreign');
    saveCheckpoint(foreign, model, {});
    writeFileSync(join(foreign, 'manifest.json'), JSON.stringify({ format: 'keras', weightsManifest: [] }));
    await expect(loadCheckpoint(foreign, WASM)).rejects.toThrow(/not a TinyAgent checkpoint/);
  });
});

describe('checkpoint corruption', () => {
  function fresh(name: string): string {
    const dir = join(root, name);
    saveCheckpoint(dir, model, { step: 3 });
    return dir;
  }
  const manifestOf = (dir: string) =>
    JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;

  it('refuses an empty, missing, flipped or truncated weights.bin with a CheckpointError', async () => {
    const empty = fresh('empty');
    writeFileSync(join(empty, 'weights.bin'), '');
    await expect(loadCheckpoint(empty, WASM)).rejects.toThrow(/weights\.bin has 0 bytes/);
    const missing = fresh('missing-weights');
    unlinkSync(join(missing, 'weights.bin'));
    await expect(loadCheckpoint(missing, WASM)).rejects.toThrow(/weights\.bin is missing/);
    const flipped = fresh('flipped');
    const bytes = readFileSync(join(flipped, 'weights.bin'));
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x80;
    writeFileSync(join(flipped, 'weights.bin'), bytes);
    await expect(loadCheckpoint(flipped, WASM)).rejects.toBeInstanceOf(CheckpointError);
  });

  it('the manifest checksum covers every manifest field: an edited tokenizer, harness or step is refused', async () => {
    for (const [field, value] of [
      ['tokenizer', ['a']],
      ['step', 4],
      ['harness', { contextTokens: 200 }],
      ['backend', 'cpu'],
    ] as const) {
      const dir = fresh(`edited-${field}`);
      writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifestOf(dir), [field]: value }));
      await expect(loadCheckpoint(dir, WASM), field).rejects.toThrow(
        /manifest\.json checksum .* does not match its manifestChecksum [0-9a-f]{64}: the manifest was edited/,
      );
    }
    const unsigned = fresh('unsigned');
    const { manifestChecksum: _dropped, ...rest } = manifestOf(unsigned);
    writeFileSync(join(unsigned, 'manifest.json'), JSON.stringify(rest));
    await expect(loadCheckpoint(unsigned, WASM)).rejects.toThrow(/no manifestChecksum/);
  });

  it('refuses a version-1 manifest, a missing manifest and a manifest that is not JSON', async () => {
    const old = fresh('v1');
    writeFileSync(join(old, 'manifest.json'), JSON.stringify({ ...manifestOf(old), version: 1 }));
    await expect(loadCheckpoint(old, WASM)).rejects.toThrow(/version 1; this code reads version 2/);
    const gone = fresh('no-manifest');
    unlinkSync(join(gone, 'manifest.json'));
    await expect(loadCheckpoint(gone, WASM)).rejects.toThrow(/manifest\.json is missing/);
    const garbage = fresh('garbage');
    writeFileSync(join(garbage, 'manifest.json'), '{"format": "tinyagent-checkpoint",\n  oops');
    await expect(loadCheckpoint(garbage, WASM)).rejects.toThrow(
      /^checkpoint .*: manifest\.json is not valid JSON \([^\n]*\)$/,
    );
    const list = fresh('array');
    writeFileSync(join(list, 'manifest.json'), '[1, 2]');
    await expect(loadCheckpoint(list, WASM)).rejects.toThrow(/not a TinyAgent checkpoint/);
  });
});
