import { createHash } from 'node:crypto';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../agent/backend.ts';
import { disposeCausalMasks, gatherRows, pickLogProbsWithEntropy } from '../agent/layers.ts';
import {
  countParameters,
  createModel,
  defaultModelConfig,
  logSoftmaxAt,
  sampleToken,
  TARGET_PARAMETERS,
  type ModelConfig,
  type PolicyModel,
} from '../agent/model.ts';
import { useOwnProducts } from '../agent/kernels/index.ts';
import { getWeights, withRedrawnEmbeddings } from '../agent/weights.ts';
import { Rng } from '../lib/rng.ts';
import { scaledDifference } from '../bench/closeness.ts';

const small: ModelConfig = { vocabSize: 40, contextLength: 40, dModel: 16, nHeads: 2, nLayers: 2, dFF: 24 };

beforeAll(async () => {
  expect(await initBackend({ preference: 'wasm' })).toBe('wasm');
});

function randomIds(rng: Rng, rows: number, length: number, vocab: number): number[][] {
  return Array.from({ length: rows }, () => Array.from({ length }, () => rng.int(vocab)));
}

function weightsHash(model: PolicyModel): string {
  const hash = createHash('sha256');
  for (const v of model.variables())
    hash.update(new Uint8Array((v.dataSync() as Float32Array).slice().buffer));
  return hash.digest('hex');
}

function loss(model: PolicyModel, ids: tf.Tensor2D): tf.Scalar {
  return tf.neg(tf.mean(model.tokenLogProbs(ids))) as tf.Scalar;
}

describe('parameter count', () => {
  it.each([150, 250, 350])(
    'vocab %i: live count equals the formula and is within 2%% of 158,000',
    (vocab) => {
      const cfg = defaultModelConfig(vocab);
      expect(cfg).toMatchObject({ contextLength: 128, dModel: 64, nHeads: 4, nLayers: 2 });
      expect(cfg.dFF % 8).toBe(0);
      const model = createModel(cfg, new Rng(1));
      try {
        expect(model.parameterCount()).toBe(countParameters(cfg));
        expect(Math.abs(countParameters(cfg) - TARGET_PARAMETERS) / TARGET_PARAMETERS).toBeLessThan(0.02);
      } finally {
        model.dispose();
      }
    },
  );

  it('picks the dFF closest to the target (vocab 250 -> 320, 157,050 parameters)', () => {
    expect(defaultModelConfig(250).dFF).toBe(320);
    expect(countParameters(defaultModelConfig(250))).toBe(157_050);
  });
});

describe('forward and gradients', () => {
  // An outside reference: the same network written with plain tfjs ops and automatic gradients.
  function referenceLoss(model: PolicyModel, ids: tf.Tensor2D): tf.Scalar {
    const cfg = model.config;
    const vars = new Map(model.variableNames().map((name, i) => [name, model.variables()[i] as tf.Variable]));
    const w = (name: string) => vars.get(name) as tf.Variable;
    const [batch, total] = ids.shape;
    const length = total - 1;
    const d = cfg.dModel;
    const dh = d / cfg.nHeads;
    const norm = (x: tf.Tensor, gain: tf.Tensor, bias: tf.Tensor) => {
      const { mean, variance } = tf.moments(x, -1, true);
      return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), gain), bias);
    };
    const inputs = tf.reshape(tf.slice(ids, [0, 0], [batch, length]), [-1]) as tf.Tensor1D;
    const targets = tf.reshape(tf.slice(ids, [0, 1], [batch, length]), [-1]) as tf.Tensor1D;
    let x = tf.add(
      tf.reshape(tf.matMul(tf.oneHot(inputs, cfg.vocabSize).toFloat(), w('wte')), [batch, length, d]),
      tf.slice(w('wpe'), [0, 0], [length, d]),
    );
    const allowed = tf.linalg.bandPart(tf.ones([length, length]), -1, 0);
    for (let layer = 0; layer < cfg.nLayers; layer++) {
      const p = `h${layer}.`;
      const flat = (t: tf.Tensor) => tf.reshape(t, [batch * length, -1]);
      const qkv = tf.add(
        tf.matMul(flat(norm(x, w(`${p}ln1.gain`), w(`${p}ln1.bias`))), w(`${p}attn.wqkv`)),
        w(`${p}attn.bqkv`),
      );
      const [q, k, v] = tf.unstack(
        tf.transpose(tf.reshape(qkv, [batch, length, 3, cfg.nHeads, dh]), [2, 0, 3, 1, 4]),
      );
      const scores = tf.div(tf.matMul(q as tf.Tensor, k as tf.Tensor, false, true), Math.sqrt(dh));
      const masked = tf.where(tf.equal(allowed, 1), scores, tf.fill(scores.shape, -1e9));
      const attended = flat(tf.transpose(tf.matMul(tf.softmax(masked), v as tf.Tensor), [0, 2, 1, 3]));
      x = tf.add(
        x,
        tf.reshape(tf.add(tf.matMul(attended, w(`${p}attn.wo`)), w(`${p}attn.bo`)), [batch, length, d]),
      );
      const hidden = tf.relu(
        tf.add(
          tf.matMul(flat(norm(x, w(`${p}ln2.gain`), w(`${p}ln2.bias`))), w(`${p}mlp.w1`)),
          w(`${p}mlp.b1`),
        ),
      );
      x = tf.add(
        x,
        tf.reshape(tf.add(tf.matMul(hidden, w(`${p}mlp.w2`)), w(`${p}mlp.b2`)), [batch, length, d]),
      );
    }
    const logits = tf.add(
      tf.matMul(tf.reshape(norm(x, w('lnf.gain'), w('lnf.bias')), [batch * length, d]), w('head.w')),
      w('head.b'),
    );
    const picked = tf.sum(tf.mul(tf.logSoftmax(logits), tf.oneHot(targets, cfg.vocabSize)), -1);
    return tf.neg(tf.mean(picked)) as tf.Scalar;
  }

  it('hand-written gradients, on our kernel and on the plain-tfjs path, match plain tfjs autodiff', () => {
    const model = createModel(small, new Rng('grad'));
    // Move LayerNorm gains and all biases away from 1 / 0 so that their gradients are exercised.
    const noise = new Rng('grad/noise');
    model.variables().forEach((v, i) => {
      const name = model.variableNames()[i] as string;
      if (v.shape.length === 1)
        v.assign(tf.add(v, tf.tensor1d(Array.from({ length: v.size }, () => noise.normal() * 0.3))));
      if (name.startsWith('h') && v.shape.length === 2) v.assign(tf.mul(v, 10)); // larger attention scores
    });
    const ids = tf.tensor2d(randomIds(new Rng('grad/ids'), 3, 12, small.vocabSize), undefined, 'int32');
    const reference = tf.variableGrads(() => referenceLoss(model, ids));
    for (const mode of ['our kernel', 'reference'] as const) {
      useOwnProducts(mode === 'our kernel');
      const ours = tf.variableGrads(() => loss(model, ids));
      expect(ours.value.dataSync()[0]).toBeCloseTo(reference.value.dataSync()[0] as number, 5);
      for (const name of Object.keys(reference.grads)) {
        const difference = scaledDifference(ours.grads[name]!.dataSync(), reference.grads[name]!.dataSync(), {
          floor: 1e-3,
        });
        expect(difference, `${mode} ${name}`).toBeLessThanOrEqual(1e-4);
      }
      tf.dispose([ours.value, ...Object.values(ours.grads)]);
    }
    useOwnProducts(true);
    tf.dispose([ids, reference.value, ...Object.values(reference.grads)]);
    model.dispose();
  });

  it('tokenStats entropy is the entropy of the softmax of the logits', () => {
    const model = createModel(small, new Rng('entropy'));
    const rows = randomIds(new Rng('entropy/ids'), 2, 6, small.vocabSize);
    const ids = tf.tensor2d(rows, undefined, 'int32');
    const { logProbs, entropy } = model.tokenStats(ids);
    const logits = model.logits(ids);
    const expected = tf.tidy(() => {
      const lp = tf.logSoftmax(tf.slice(logits, [0, 0, 0], [2, 5, small.vocabSize]));
      return tf.neg(tf.sum(tf.mul(tf.exp(lp), lp), -1));
    });
    const a = entropy.arraySync();
    const b = expected.arraySync() as number[][];
    a.forEach((row, r) =>
      row.forEach((value, t) => expect(value).toBeCloseTo((b[r] as number[])[t] as number, 5)),
    );
    expect(logProbs.shape).toEqual([2, 5]);
    tf.dispose([ids, logProbs, entropy, logits, expected]);
    model.dispose();
  });
});

describe('tokenLogProbs and tokenStats at some positions only', () => {
  // A mask over [B, T-1] with a row left empty and a row full, the rest at random.
  function someMask(rows: number, steps: number, rng: Rng): Float32Array {
    return Float32Array.from({ length: rows * steps }, (_, i) => {
      const row = Math.floor(i / steps);
      return row === 0 ? 0 : row === 1 ? 1 : rng.next() < 0.3 ? 1 : 0;
    });
  }

  it.each([
    ['our products', true],
    ["tfjs's products", false],
  ] as const)(
    'give the bits of the whole forward where the mask is set and 0 elsewhere, and the same gradients bit for bit (%s)',
    (_, own) => {
      useOwnProducts(own);
      const model = createModel(small, new Rng('only'));
      try {
        const mode = own ? 'our kernel' : 'reference';
        const [rows, length] = [5, 23];
        const ids = tf.tensor2d(
          randomIds(new Rng('only/ids'), rows, length, small.vocabSize),
          undefined,
          'int32',
        );
        const mask = someMask(rows, length - 1, new Rng('only/mask'));
        const maskTensor = tf.tensor2d(mask, [rows, length - 1]);
        // A loss that reads the values only where the mask is set, as training's losses do.
        const lossOf = (stats: { logProbs: tf.Tensor2D; entropy: tf.Tensor2D }) =>
          tf.neg(tf.sum(tf.mul(tf.add(stats.logProbs, tf.mul(stats.entropy, 0.3)), maskTensor))) as tf.Scalar;
        const whole = tf.variableGrads(() => lossOf(model.tokenStats(ids)));
        const some = tf.variableGrads(() => lossOf(model.tokenStats(ids, { only: mask })));
        expect(some.value.dataSync()[0], mode).toBe(whole.value.dataSync()[0]);
        for (const name of Object.keys(whole.grads))
          expect(
            Buffer.from((some.grads[name] as tf.Tensor).dataSync().buffer).equals(
              Buffer.from((whole.grads[name] as tf.Tensor).dataSync().buffer),
            ),
            `${mode} ${name}`,
          ).toBe(true);
        const full = model.tokenStats(ids);
        const picked = model.tokenStats(ids, { only: mask });
        const onlyLogProbs = model.tokenLogProbs(ids, { only: mask });
        const [a, b, c, e, f] = [
          full.logProbs,
          picked.logProbs,
          onlyLogProbs,
          full.entropy,
          picked.entropy,
        ].map((t) => t.dataSync());
        mask.forEach((m, i) => {
          expect(b![i], `logProbs ${i}`).toBe(m === 0 ? 0 : a![i]);
          expect(c![i], `tokenLogProbs ${i}`).toBe(m === 0 ? 0 : a![i]);
          expect(f![i], `entropy ${i}`).toBe(m === 0 ? 0 : e![i]);
        });
        tf.dispose([ids, maskTensor, whole.value, some.value, ...Object.values(whole.grads)]);
        tf.dispose([
          ...Object.values(some.grads),
          full.logProbs,
          full.entropy,
          picked.logProbs,
          picked.entropy,
          onlyLogProbs,
        ]);
      } finally {
        model.dispose();
        useOwnProducts(true);
      }
    },
  );

  it('refuse a mask of the wrong size', () => {
    const model = createModel(small, new Rng('only'));
    const ids = tf.tensor2d([[1, 2, 3]], undefined, 'int32');
    expect(() => model.tokenLogProbs(ids, { only: [1, 0, 1] })).toThrow(
      /only has 3 entries for \[1, 2\] positions/,
    );
    ids.dispose();
    model.dispose();
  });
});

describe('pickLogProbsWithEntropy', () => {
  it('gives log p(target) and the entropy, and its hand-written gradient matches autodiff through logSoftmax', () => {
    const rng = new Rng('fused-entropy');
    const logits = tf.tensor2d(
      Array.from({ length: 7 * 11 }, () => rng.normal() * 3),
      [7, 11],
    );
    const targets = tf.tensor1d(
      Array.from({ length: 7 }, () => rng.int(11)),
      'int32',
    );
    const weights = tf.tensor2d(
      Array.from({ length: 14 }, () => rng.normal()),
      [7, 2],
    ); // arbitrary upstream gradient
    const reference = (z: tf.Tensor2D) => {
      const logP = tf.logSoftmax(z);
      const picked = tf.sum(tf.mul(logP, tf.oneHot(targets, 11)), -1, true);
      const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logP), logP), -1, true));
      return tf.concat([picked, entropy], 1) as tf.Tensor2D;
    };
    const ours = pickLogProbsWithEntropy(logits, targets);
    const expected = reference(logits);
    expect(tf.max(tf.abs(tf.sub(ours, expected))).dataSync()[0]).toBeLessThan(1e-5);
    const gradOurs = tf.grad((z: tf.Tensor) =>
      tf.sum(tf.mul(pickLogProbsWithEntropy(z as tf.Tensor2D, targets), weights)),
    )(logits);
    const gradRef = tf.grad((z: tf.Tensor) => tf.sum(tf.mul(reference(z as tf.Tensor2D), weights)))(logits);
    const scale = tf.max(tf.abs(gradRef)).dataSync()[0]!;
    expect(scale).toBeGreaterThan(0.01);
    expect(scaledDifference(gradOurs.dataSync(), gradRef.dataSync())).toBeLessThan(1e-5);
    tf.dispose([logits, targets, weights, ours, expected, gradOurs, gradRef]);
  });
});

describe('gatherRows', () => {
  it('equals tf.gather on the first axis bit for bit, repeated and out-of-order rows included', () => {
    const rng = new Rng('gather');
    const table = tf.tensor2d(
      Float32Array.from({ length: 37 * 16 }, () => rng.normal()),
      [37, 16],
    );
    const rows = Array.from({ length: 500 }, () => rng.int(37));
    const ours = gatherRows(table, rows);
    const theirs = tf.gather(table, tf.tensor1d(rows, 'int32'));
    expect(ours.shape).toEqual([500, 16]);
    expect(ours.dataSync()).toEqual(theirs.dataSync());
    expect(() => gatherRows(table, [3, 37])).toThrow(/gatherRows: row 37 outside \[0, 37\)/);
    expect(() => gatherRows(table, [1.5])).toThrow(/row 1.5 outside/);
    tf.dispose([table, ours, theirs]);
  });
});

describe('sampling session', () => {
  it('ragged chunks give the full-forward logits at the same positions (1e-4), through compaction', () => {
    const model = createModel(small, new Rng('session'));
    const rng = new Rng('session/data');
    const lengths = [40, 23, 9, 31];
    const sequences = lengths.map((length) => Array.from({ length }, () => rng.int(small.vocabSize)));
    const full = sequences.map((sequence) => {
      const ids = tf.tensor2d([sequence], undefined, 'int32');
      const logits = model.logits(ids);
      const values = logits.arraySync()[0] as number[][];
      tf.dispose([ids, logits]);
      return values;
    });
    const session = model.startSession(sequences.length);
    const fed = sequences.map(() => 0);
    let feeds = 0;
    let maxSlots = 0;
    let compacted = false;
    while (fed.some((count, b) => count < (sequences[b] as number[]).length)) {
      // Chunk sizes 0, 1 or 8, one row taking a long chunk in turn so that padding builds up.
      const chunks = sequences.map((sequence, b) => {
        const size = b === feeds % sequences.length ? 8 : rng.int(2);
        const chunk = sequence.slice(fed[b], (fed[b] as number) + size);
        return chunk;
      });
      const before = session.slotCount;
      const logits = session.feed(chunks);
      if (session.slotCount < before) compacted = true;
      maxSlots = Math.max(maxSlots, session.slotCount);
      chunks.forEach((chunk, b) => {
        fed[b] = (fed[b] as number) + chunk.length;
        expect(session.tokensFed(b)).toBe(fed[b]);
        if (fed[b] === 0) return;
        const expected = (full[b] as number[][])[(fed[b] as number) - 1] as number[];
        let worst = 0;
        for (let i = 0; i < small.vocabSize; i++)
          worst = Math.max(
            worst,
            Math.abs((logits[b * small.vocabSize + i] as number) - (expected[i] as number)),
          );
        expect(worst, `row ${b} after ${fed[b]} tokens`).toBeLessThan(1e-4);
      });
      feeds++;
    }
    expect(compacted).toBe(true);
    expect(maxSlots).toBeLessThanOrEqual(2 * (small.contextLength + 8));
    expect(() => session.feed([[1], [], [], []])).toThrow(
      /row 0 would hold 41 tokens, over contextLength 40/,
    );
    session.dispose();
    model.dispose();
  });

  it("retiring rows leaves every other row's logits bit for bit the same, through compaction", () => {
    const model = createModel(small, new Rng('retire'));
    const rng = new Rng('retire/data');
    const rows = 16;
    // Row b retires after feed 2 + (b % 6); the others run on with chunks of 0, 1 or 6 tokens,
    // so padding builds up.
    const plan = Array.from({ length: 9 }, (_, feed) =>
      Array.from({ length: rows }, (_, b) => {
        if (feed > 2 + (b % 6)) return [];
        const size = b === feed % rows ? 6 : rng.int(2) + (feed === 0 ? 1 : 0);
        return Array.from({ length: size }, () => rng.int(small.vocabSize));
      }),
    );
    const play = (retiring: boolean): Float32Array[] => {
      const session = model.startSession(rows);
      const out: Float32Array[] = [];
      let shrank = false;
      plan.forEach((chunks, feed) => {
        if (retiring) session.retire(chunks.flatMap((_, b) => (feed === 3 + (b % 6) ? [b] : [])));
        const before = session.computedRows;
        out.push(session.feed(chunks));
        if (session.computedRows < before) shrank = true;
      });
      expect(shrank).toBe(retiring);
      if (retiring) {
        expect(session.computedRows).toBeLessThan(rows);
        expect(() => session.feed(Array.from({ length: rows }, (_, b) => (b === 0 ? [1] : [])))).toThrow(
          /row 0 was retired and cannot be fed/,
        );
      }
      session.dispose();
      return out;
    };
    const retired = play(true);
    const kept = play(false);
    retired.forEach((logits, feed) => expect(logits, `feed ${feed}`).toEqual(kept[feed]));
    model.dispose();
  });

  it('log-prob of a sampled token (temperature 1) equals tokenLogProbs', () => {
    const model = createModel(small, new Rng('logprob'));
    const rng = new Rng('logprob/sample');
    const rows = 3;
    const session = model.startSession(rows);
    const sequences: number[][] = [[1], [2], [3]];
    const recorded: number[][] = [[], [], []];
    let logits = session.feed(sequences.map((s) => [...s]));
    for (let step = 0; step < 10; step++) {
      const chunks = sequences.map((sequence, b) => {
        const token = sampleToken(logits, small.vocabSize, b, 1, rng);
        (recorded[b] as number[]).push(logSoftmaxAt(logits, small.vocabSize, b, 1, token));
        sequence.push(token);
        return [token];
      });
      logits = session.feed(chunks);
    }
    session.dispose();
    const ids = tf.tensor2d(sequences, undefined, 'int32');
    const logProbs = model.tokenLogProbs(ids);
    const expected = logProbs.arraySync();
    recorded.forEach((row, b) =>
      row.forEach((value, t) =>
        expect(Math.abs(value - ((expected[b] as number[])[t] as number))).toBeLessThan(1e-4),
      ),
    );
    tf.dispose([ids, logProbs]);
    model.dispose();
  });

  it('sampleToken: temperature 0 is argmax with ties to the lowest id; sampling follows the softmax', () => {
    const logits = new Float32Array([0, 3, 1, 3, /* row 1 */ 2, 2, 2, 2]);
    const rng = new Rng('sample');
    expect(sampleToken(logits, 4, 0, 0, rng)).toBe(1);
    expect(sampleToken(logits, 4, 1, 0, rng)).toBe(0);
    expect(logSoftmaxAt(logits, 4, 0, 0, 1)).toBe(0);
    expect(logSoftmaxAt(logits, 4, 0, 0, 3)).toBe(-Infinity);
    expect(logSoftmaxAt(logits, 4, 1, 1, 2)).toBeCloseTo(Math.log(0.25), 12);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) (counts as number[])[sampleToken(logits, 4, 1, 1, rng)]! += 1;
    for (const count of counts) expect(Math.abs(count - 1000)).toBeLessThan(120);
  });
});

describe('memory and determinism', () => {
  it('a training step with Adam and a full sampling session leave the tensor count unchanged', () => {
    const model = createModel(small, new Rng('leak'));
    const ids = tf.tensor2d(randomIds(new Rng('leak/ids'), 4, 16, small.vocabSize), undefined, 'int32');
    const optimizer = tf.train.adam(1e-3);
    const step = () => tf.dispose(optimizer.minimize(() => loss(model, ids), true, model.variables()) ?? []);
    step(); // creates Adam's slots and the cached causal mask
    const before = tf.memory().numTensors;
    step();
    expect(tf.memory().numTensors).toBe(before);

    const session = model.startSession(3);
    session.feed([[1, 2, 3], [], [4]]);
    session.feed([[5], [6, 7, 8, 9, 10], []]);
    session.feed([[11], [12], [13]]);
    session.dispose();
    expect(tf.memory().numTensors).toBe(before);
    optimizer.dispose();
    ids.dispose();
    model.dispose();
    disposeCausalMasks();
  });

  it('creating and disposing a model leaves no tensors behind', () => {
    const before = tf.memory().numTensors;
    createModel(small, new Rng('leak/model')).dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it("withRedrawnEmbeddings draws the named words' embedding rows anew from N(0, 0.02^2) and leaves every other weight and the model itself as they were", () => {
    const model = createModel(small, new Rng(7));
    const before = getWeights(model);
    const redrawn = withRedrawnEmbeddings(model, [9, 3, 9], new Rng('redraw'));
    const after = getWeights(redrawn);
    const d = small.dModel;
    // Rows in ascending id order, each value rng.normal() * 0.02 (createModel's draw of wte).
    const rng = new Rng('redraw');
    const expected = Float32Array.from({ length: 2 * d }, () => rng.normal() * 0.02);
    expect(Array.from(after[0]!.slice(3 * d, 4 * d))).toEqual(Array.from(expected.slice(0, d)));
    expect(Array.from(after[0]!.slice(9 * d, 10 * d))).toEqual(Array.from(expected.slice(d)));
    for (let id = 0; id < small.vocabSize; id += 1)
      if (id !== 3 && id !== 9)
        expect(after[0]!.slice(id * d, (id + 1) * d)).toEqual(before[0]!.slice(id * d, (id + 1) * d));
    after.slice(1).forEach((values, i) => expect(values).toEqual(before[i + 1]));
    expect(getWeights(model)).toEqual(before);
    // Logits at a position reading word 3 move; the same draw twice gives the same model.
    const ids = tf.tensor2d([[3, 5, 3, 7]], undefined, 'int32');
    const again = withRedrawnEmbeddings(model, [3, 9], new Rng('redraw'));
    expect(weightsHash(again)).toBe(weightsHash(redrawn));
    const lossOf = (m: PolicyModel) => {
      const value = tf.tidy(() => loss(m, ids));
      const [number] = value.dataSync();
      value.dispose();
      return number;
    };
    expect(lossOf(redrawn)).not.toBe(lossOf(model));
    expect(lossOf(again)).toBe(lossOf(redrawn));
    expect(() => withRedrawnEmbeddings(model, [small.vocabSize], new Rng(1))).toThrow(
      /word id 40 is not in \[0, 40\)/,
    );
    tf.dispose(ids);
    [model, redrawn, again].forEach((m) => m.dispose());
  });

  it('the same seed gives the same weights, and the same step gives the same result', () => {
    const a = createModel(small, new Rng(7));
    const b = createModel(small, new Rng(7));
    const c = createModel(small, new Rng(8));
    expect(weightsHash(a)).toBe(weightsHash(b));
    expect(weightsHash(a)).not.toBe(weightsHash(c));
    const ids = tf.tensor2d(randomIds(new Rng('det/ids'), 4, 16, small.vocabSize), undefined, 'int32');
    for (const model of [a, b]) {
      const optimizer = tf.train.adam(1e-2);
      for (let i = 0; i < 2; i++)
        tf.dispose(optimizer.minimize(() => loss(model, ids), true, model.variables()) ?? []);
      optimizer.dispose();
    }
    expect(weightsHash(a)).toBe(weightsHash(b));
    tf.dispose(ids);
    [a, b, c].forEach((model) => model.dispose());
  });
});
