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
import {
  CheckpointError,
  checkpointChecksum,
  loadCheckpoint,
  manifestChecksum,
  saveCheckpoint,
} from '../agent/checkpoint.ts';
import { loadAgent } from '../agent/load.ts';
import {
  countParameters,
  createModel,
  defaultModelConfig,
  variableSpecs,
  type ModelConfig,
  type PolicyModel,
} from '../agent/model.ts';
import { buildTokenizer } from '../agent/tokenizer.ts';
import { getWeights, modelFromWeights } from '../agent/weights.ts';
import { makeTasks, trainingHarness } from '../gym/index.ts';
import { Rng } from '../lib/rng.ts';
import { cli } from './support/cli.ts';

const small: ModelConfig = { vocabSize: 30, contextLength: 16, dModel: 16, nHeads: 2, nLayers: 1, dFF: 16 };
let root: string;
let model: PolicyModel;

beforeAll(async () => {
  await initBackend({ preference: 'wasm' });
  root = mkdtempSync(join(tmpdir(), 'tinyagent-checkpoint-'));
  model = createModel(small, new Rng('checkpoint'));
});

afterAll(() => {
  model.dispose();
  rmSync(root, { recursive: true, force: true });
});

/** A checkpoint of `of` (the small model unless told) saved as `root/name`. */
function fresh(
  name: string,
  { of = model, extra = { step: 3 } }: { of?: PolicyModel; extra?: Record<string, unknown> } = {},
): string {
  const dir = join(root, name);
  saveCheckpoint(dir, of, extra);
  return dir;
}

const manifestOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;

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
    const { model: loaded, manifest } = await loadCheckpoint(dir);
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
    const other = createModel(small, new Rng('other'));
    saveCheckpoint(dir, other, { step: 2 });
    const { model: loaded, manifest } = await loadCheckpoint(dir);
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
    await expect(loadCheckpoint(missing)).rejects.toThrow(
      new RegExp(`checkpoint ${missing}: no such folder.*npm run train`),
    );

    const truncated = join(root, 'truncated');
    saveCheckpoint(truncated, model, {});
    truncateSync(join(truncated, 'weights.bin'), 100);
    await expect(loadCheckpoint(truncated)).rejects.toThrow(
      /truncated.*weights\.bin has 100 bytes|weights\.bin has 100 bytes.*truncated/,
    );

    const corrupt = join(root, 'corrupt');
    saveCheckpoint(corrupt, model, {});
    const bytes = readFileSync(join(corrupt, 'weights.bin'));
    bytes[7] = (bytes[7] as number) ^ 1;
    writeFileSync(join(corrupt, 'weights.bin'), bytes);
    await expect(loadCheckpoint(corrupt)).rejects.toThrow(
      new RegExp(`checkpoint ${corrupt}: weights\\.bin checksum .* does not match`),
    );

    const foreign = join(root, 'foreign');
    saveCheckpoint(foreign, model, {});
    writeFileSync(join(foreign, 'manifest.json'), JSON.stringify({ format: 'keras', weightsManifest: [] }));
    await expect(loadCheckpoint(foreign)).rejects.toThrow(/not a TinyAgent checkpoint/);
  });
});

describe('checkpoint corruption', () => {
  it('refuses an empty, missing, flipped or truncated weights.bin with a CheckpointError', async () => {
    const empty = fresh('empty');
    writeFileSync(join(empty, 'weights.bin'), '');
    await expect(loadCheckpoint(empty)).rejects.toThrow(/weights\.bin has 0 bytes/);
    const missing = fresh('missing-weights');
    unlinkSync(join(missing, 'weights.bin'));
    await expect(loadCheckpoint(missing)).rejects.toThrow(/weights\.bin is missing/);
    const flipped = fresh('flipped');
    const bytes = readFileSync(join(flipped, 'weights.bin'));
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x80;
    writeFileSync(join(flipped, 'weights.bin'), bytes);
    await expect(loadCheckpoint(flipped)).rejects.toBeInstanceOf(CheckpointError);
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
      await expect(loadCheckpoint(dir), field).rejects.toThrow(
        /manifest\.json checksum .* does not match its manifestChecksum [0-9a-f]{64}: the manifest was edited/,
      );
    }
    const unsigned = fresh('unsigned');
    const { manifestChecksum: _dropped, ...rest } = manifestOf(unsigned);
    writeFileSync(join(unsigned, 'manifest.json'), JSON.stringify(rest));
    await expect(loadCheckpoint(unsigned)).rejects.toThrow(/no manifestChecksum/);
  });

  it('refuses a version-1 manifest, a missing manifest and a manifest that is not JSON', async () => {
    const old = fresh('v1');
    writeFileSync(join(old, 'manifest.json'), JSON.stringify({ ...manifestOf(old), version: 1 }));
    await expect(loadCheckpoint(old)).rejects.toThrow(/version 1; this code reads version 2/);
    const gone = fresh('no-manifest');
    unlinkSync(join(gone, 'manifest.json'));
    await expect(loadCheckpoint(gone)).rejects.toThrow(/manifest\.json is missing/);
    const garbage = fresh('garbage');
    writeFileSync(join(garbage, 'manifest.json'), '{"format": "tinyagent-checkpoint",\n  oops');
    await expect(loadCheckpoint(garbage)).rejects.toThrow(
      /^checkpoint .*: manifest\.json is not valid JSON \([^\n]*\)$/,
    );
    const list = fresh('array');
    writeFileSync(join(list, 'manifest.json'), '[1, 2]');
    await expect(loadCheckpoint(list)).rejects.toThrow(/not a TinyAgent checkpoint/);
  });
});

/**
 * Applies a deliberate edit to a checkpoint and gives it fresh checksums, computed as saving
 * computes them (`checkpointChecksum`, `manifestChecksum`): the checksums then hold, so only a
 * consistency check can refuse it. `weights` edits weights.bin's values in place (the variable
 * offsets are the manifest's), `manifest` the manifest's fields.
 */
function resign(
  dir: string,
  edit: {
    weights?: (values: Float32Array, offsetOf: (name: string) => number) => void;
    manifest?: (fields: Record<string, unknown>) => void;
  },
): string {
  const { manifestChecksum: _old, ...fields } = manifestOf(dir);
  if (edit.weights !== undefined) {
    const bytes = readFileSync(join(dir, 'weights.bin'));
    const values = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    const variables = fields.variables as Array<{ name: string; offset: number }>;
    edit.weights(values, (name) => variables.find((variable) => variable.name === name)!.offset);
    writeFileSync(join(dir, 'weights.bin'), new Uint8Array(values.buffer));
  }
  edit.manifest?.(fields);
  fields.checksum = checkpointChecksum(dir);
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({ ...fields, manifestChecksum: manifestChecksum(fields) }),
  );
  return dir;
}

/** The error a load rejects with, which must be a CheckpointError. */
async function refusal(loading: Promise<unknown>): Promise<string> {
  const error = await loading.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CheckpointError);
  return (error as Error).message;
}

describe('an edited checkpoint with fresh checksums is refused by loadCheckpoint', () => {
  it('a checkpoint given fresh checksums without an edit still loads (so the refusals below are the edits)', async () => {
    const { model: loaded } = await loadCheckpoint(resign(fresh('resigned'), {}));
    expect(bytesOf(loaded)).toEqual(bytesOf(model));
    loaded.dispose();
  });

  it('a NaN or infinite weight, named by variable and index within it', async () => {
    for (const [name, index, value] of [
      ['lnf.gain', 3, NaN],
      ['h0.mlp.w1', 17, Infinity],
      ['wte', 0, -Infinity],
      ['head.b', small.vocabSize - 1, NaN],
    ] as const) {
      const dir = resign(fresh(`nonfinite-${name}-${index}`), {
        weights: (values, offsetOf) => {
          values[offsetOf(name) + index] = value;
        },
      });
      expect(await refusal(loadCheckpoint(dir))).toBe(
        `checkpoint ${dir}: weights.bin: weight ${name} holds ${value} at index ${index}; saving refuses such weights, so the file was edited or written by other code`,
      );
    }
  });

  it('nHeads that does not divide dModel', async () => {
    const dir = resign(fresh('heads-3'), {
      manifest: (fields) => {
        fields.modelConfig = { ...small, nHeads: 3 };
      },
    });
    expect(await refusal(loadCheckpoint(dir))).toBe(
      `checkpoint ${dir}: manifest.json: modelConfig nHeads 3 does not divide dModel 16`,
    );
  });

  it('a config the variables do not follow, and one whose variables weights.bin does not fill', async () => {
    const shorter = { ...small, contextLength: 8 };
    const withCount = (fields: Record<string, unknown>) => {
      fields.modelConfig = shorter;
      fields.parameterCount = countParameters(shorter);
    };
    const stale = resign(fresh('context-8'), { manifest: withCount });
    expect(await refusal(loadCheckpoint(stale))).toBe(
      `checkpoint ${stale}: variable 1 is wpe [16,16] at 480, expected wpe [8,16] at 480`,
    );
    // The variables rewritten to the new shapes too: only weights.bin's size is left to disagree.
    const rewritten = resign(fresh('context-8-variables'), {
      manifest: (fields) => {
        withCount(fields);
        let offset = 0;
        fields.variables = variableSpecs(shorter).map(({ name, shape }) => {
          const entry = { name, shape, offset };
          offset += shape.reduce((a, b) => a * b, 1);
          return entry;
        });
      },
    });
    const expected = countParameters(shorter);
    expect(await refusal(loadCheckpoint(rewritten))).toBe(
      `checkpoint ${rewritten}: weights.bin has ${model.parameterCount() * 4} bytes, expected ${expected * 4} (${expected} float32 values): truncated or from another model`,
    );
  });

  it('saving refuses weights that are not finite and writes nothing', () => {
    const weights = getWeights(model);
    const names = model.variableNames();
    weights[names.indexOf('h0.ln1.gain')]![3] = NaN;
    const diverged = modelFromWeights(small, weights);
    const dir = join(root, 'diverged');
    try {
      expect(() => saveCheckpoint(dir, diverged, {})).toThrow(
        new CheckpointError(
          `checkpoint ${dir}: not written: weight h0.ln1.gain holds NaN at index 3 (the model diverged)`,
        ),
      );
    } finally {
      diverged.dispose();
    }
    expect(readdirSync(root).filter((name) => name.includes('diverged'))).toEqual([]);
  });
});

describe('an edited agent checkpoint with fresh checksums is refused by loadAgent and by `tinyagent eval`', () => {
  const project = buildTokenizer(makeTasks('all')).words;
  let agentModel: PolicyModel;
  const agentCheckpoint = (name: string) =>
    fresh(name, {
      of: agentModel,
      extra: { step: 0, seed: 0, harness: trainingHarness(), tokenizer: [...project] },
    });
  const editWords = (edit: (words: string[]) => void) => ({
    manifest: (fields: Record<string, unknown>) => edit(fields.tokenizer as string[]),
  });
  const swap = (words: string[], a: number, b: number) => {
    [words[a], words[b]] = [words[b] as string, words[a] as string];
  };
  const id = (word: string) => project.indexOf(word);

  beforeAll(() => {
    agentModel = createModel(defaultModelConfig(project.length), new Rng('checkpoint/agent'));
  });
  afterAll(() => agentModel.dispose());

  it('a sound agent checkpoint loads with the project tokenizer', async () => {
    const { agent } = await loadAgent(resign(agentCheckpoint('agent-good'), {}));
    expect(agent.tokenizer.words).toEqual(project);
    expect(agent.tokenizer.encode(['read', '<end>'])).toEqual([id('read'), id('<end>')]);
    agent.model.dispose();
  });

  // Each edit passes both checksums; the fault is the one consistency check that catches it.
  const [first, second] = [id('read'), id('test')].sort((a, b) => a - b) as [number, number];
  const edits: Array<[string, Parameters<typeof resign>[1], string]> = [
    [
      'nan-lnf',
      {
        weights: (values, offsetOf) => {
          values[offsetOf('lnf.gain') + 3] = NaN;
        },
      },
      'weights.bin: weight lnf.gain holds NaN at index 3;',
    ],
    [
      // 8 divides dModel 64, and no shape depends on nHeads: only the project's config tells.
      'heads-8',
      {
        manifest: (fields) => {
          fields.modelConfig = { ...(fields.modelConfig as ModelConfig), nHeads: 8 };
        },
      },
      `manifest.json: modelConfig nHeads 8 differs from the model the project trains for ${project.length} words (nHeads 4): the weights would be read under another architecture;`,
    ],
    [
      'heads-6',
      {
        manifest: (fields) => {
          fields.modelConfig = { ...(fields.modelConfig as ModelConfig), nHeads: 6 };
        },
      },
      'manifest.json: modelConfig nHeads 6 does not divide dModel 64',
    ],
    [
      'words-cut',
      editWords((words) => words.pop()),
      `manifest.json: the tokenizer has ${project.length - 1} words (specials included), the model's vocabulary ${project.length}`,
    ],
    [
      'words-duplicate',
      editWords((words) => {
        words[project.length - 1] = 'read';
      }),
      `manifest.json: tokenizer: duplicate word 'read' (ids ${id('read')} and ${project.length - 1})`,
    ],
    [
      'words-pad-moved',
      editWords((words) => swap(words, 0, 5)),
      `manifest.json: tokenizer word 0 is '${project[5]}', expected the special '<pad>'`,
    ],
    [
      'words-no-end',
      editWords((words) => {
        words[id('<end>')] = 'zzz';
      }),
      'manifest.json: the tokenizer lacks the action words <end>',
    ],
    [
      // Every word still present once: the gym's 'read' and 'test' would reach the model as each other.
      'words-reordered',
      editWords((words) => swap(words, first, second)),
      `manifest.json: tokenizer word ${first} is '${project[second]}', the project's vocabulary has '${project[first]}' there: the gym's words would reach the model as other ids`,
    ],
    [
      'words-replaced',
      editWords((words) => {
        words[id('passed')] = 'zzz';
      }),
      `manifest.json: tokenizer word ${id('passed')} is 'zzz', the project's vocabulary has 'passed' there:`,
    ],
  ];

  for (const [name, edit, fault] of edits) {
    it(`${name}: ${fault.slice(0, 60)}`, async () => {
      const dir = resign(agentCheckpoint(name), edit);
      const message = await refusal(loadAgent(dir));
      expect(message.startsWith(`checkpoint ${dir}: ${fault}`), message).toBe(true);
      const result = await cli(['eval', '--checkpoint', dir, '--episodes', '1']);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(`tinyagent eval: ${message}\n`);
    });
  }

  it('a checkpoint consistent in itself but made for another vocabulary (one word more)', async () => {
    const words = [...project, 'zzz'];
    const other = createModel(defaultModelConfig(words.length), new Rng('checkpoint/other'));
    try {
      const dir = fresh('other-vocabulary', { of: other, extra: { step: 0, tokenizer: words } });
      expect(await refusal(loadAgent(dir))).toMatch(
        new RegExp(
          `^checkpoint ${dir}: manifest\\.json: tokenizer word ${project.length} is 'zzz', the project's vocabulary has none there: .*made for other tasks; retrain with \`npm run train\`\\)$`,
        ),
      );
    } finally {
      other.dispose();
    }
  });
});
