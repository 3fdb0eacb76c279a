import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../agent/backend.ts';
import { checkpointChecksum, loadCheckpoint, saveCheckpoint } from '../agent/checkpoint.ts';
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
    const saved = saveCheckpoint(dir, model, { tokenizer: ['a', 'b'], step: 10, seed: 3, harnessHash: 'abc' });
    const { model: loaded, manifest } = await loadCheckpoint(dir, WASM);
    expect(bytesOf(loaded)).toEqual(bytesOf(model));
    expect(loaded.variableNames()).toEqual(model.variableNames());
    expect(manifest).toMatchObject({ format: 'tinyagent-checkpoint', version: 1, modelConfig: small, parameterCount: model.parameterCount(), step: 10, seed: 3, tokenizer: ['a', 'b'], backend: 'wasm' });
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
    await expect(loadCheckpoint(missing, WASM)).rejects.toThrow(new RegExp(`checkpoint ${missing}: no such folder.*npm run train`));

    const truncated = join(root, 'truncated');
    saveCheckpoint(truncated, model, {});
    truncateSync(join(truncated, 'weights.bin'), 100);
    await expect(loadCheckpoint(truncated, WASM)).rejects.toThrow(/truncated.*weights\.bin has 100 bytes|weights\.bin has 100 bytes.*truncated/);

    const corrupt = join(root, 'corrupt');
    saveCheckpoint(corrupt, model, {});
    const bytes = readFileSync(join(corrupt, 'weights.bin'));
    bytes[7] = (bytes[7] as number) ^ 1;
    writeFileSync(join(corrupt, 'weights.bin'), bytes);
    await expect(loadCheckpoint(corrupt, WASM)).rejects.toThrow(new RegExp(`checkpoint ${corrupt}: weights\\.bin checksum .* does not match`));

    const foreign = join(root, 'foreign');
    saveCheckpoint(foreign, model, {});
    writeFileSync(join(foreign, 'manifest.json'), JSON.stringify({ format: 'keras', weightsManifest: [] }));
    await expect(loadCheckpoint(foreign, WASM)).rejects.toThrow(/not a TinyAgent checkpoint/);
  });
});
