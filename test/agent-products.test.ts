import * as tf from '@tensorflow/tfjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initBackend, productKernelProblem } from '../agent/backend.ts';
import { addRowsAt, causalSelfAttention, dense } from '../agent/layers.ts';
import { createModel, type ModelConfig } from '../agent/model.ts';
import {
  columnSums,
  PRODUCT_KERNEL,
  product,
  productsInstalled,
  kernelsModuleText,
  useOwnProducts,
} from '../agent/kernels/index.ts';
import { Rng } from '../lib/rng.ts';
import { scaledDifference } from '../bench/closeness.ts';

// Our kernel and tfjs's own products (XNNPack on wasm) compute the same functions up to float
// rounding: every comparison here is within a relative tolerance of 1e-5. The kernel's exact bits
// are tested against its own scalar reference (test/agent-kernels.test.ts).

beforeAll(async () => {
  expect(await initBackend({ preference: 'wasm' })).toBe('wasm');
});

afterEach(() => useOwnProducts(true));

function random(rng: Rng, shape: number[], scale = 1): tf.Tensor {
  const size = shape.reduce((a, b) => a * b, 1);
  return tf.tensor(
    Float32Array.from({ length: size }, () => scale * rng.normal()),
    shape,
  );
}

const TOLERANCE = 1e-5;

/** x and y of one shape, equal up to float rounding (`scaledDifference` at most TOLERANCE). */
function expectClose(x: tf.Tensor, y: tf.Tensor, label?: string): void {
  expect(x.shape, label).toEqual(y.shape);
  expect(scaledDifference(x.dataSync(), y.dataSync()), label).toBeLessThanOrEqual(TOLERANCE);
}

/** Runs `compute` on our kernel and on tfjs's own products: every tensor it returns, the same up to rounding. */
function expectCloseBothWays(compute: () => tf.Tensor[]): void {
  useOwnProducts(true);
  const ours = compute();
  useOwnProducts(false);
  const reference = compute();
  useOwnProducts(true);
  expect(ours).toHaveLength(reference.length);
  ours.forEach((x, i) => expectClose(x, reference[i]!, `output ${i}`));
}

function kernelsRun(f: () => tf.Tensor | tf.Tensor[]): Promise<string[]> {
  return tf.profile(() => f()).then((info) => info.kernelNames);
}

// Shapes with every tail: rows not a multiple of 4, columns not of 8 or of 4, depth of one,
// depth over the 256 added per pass, the model's widths (64, 192, 221, 336).
const SHAPES: [number, number, number][] = [
  [1, 1, 1],
  [5, 1, 9],
  [37, 16, 95],
  [97, 64, 221],
  [95, 336, 64],
  [380, 64, 336],
  [63, 513, 7],
  [2001, 64, 192],
];

/** A small model config: width 16, 2 heads, 2 layers, MLP 24, with the vocabulary and context given. */
function smallModel(sizes: Pick<ModelConfig, 'vocabSize' | 'contextLength'>): ModelConfig {
  return { ...sizes, dModel: 16, nHeads: 2, nLayers: 2, dFF: 24 };
}

describe("product: our kernel against tfjs's products", () => {
  it('runs our kernel when on, and tfjs products when off', async () => {
    expect(productKernelProblem()).toBeUndefined();
    expect(productsInstalled()).toBe(true);
    expect(kernelsModuleText()).toContain('f32x4.add');
    const a = tf.ones([8, 4]) as tf.Tensor2D;
    const b = tf.ones([4, 8]) as tf.Tensor2D;
    expect(await kernelsRun(() => product(a, b))).toEqual([PRODUCT_KERNEL]);
    useOwnProducts(false);
    expect(productsInstalled()).toBe(false);
    expect(await kernelsRun(() => product(a, b))).not.toContain(PRODUCT_KERNEL);
  });

  it.each(SHAPES)('a [%i, %i] · b [.., %i], with and without bias and ReLU', (M, K, N) => {
    const rng = new Rng(`products/${M}/${K}/${N}`);
    const a = random(rng, [M, K]) as tf.Tensor2D;
    const b = random(rng, [K, N], 0.1) as tf.Tensor2D;
    const bias = random(rng, [N]) as tf.Tensor1D;
    expectClose(product(a, b), tf.matMul(a, b));
    expectClose(product(a, b, { bias }), tf.fused.matMul({ a, b, bias }));
    expectClose(product(a, b, { bias, relu: true }), tf.fused.matMul({ a, b, bias, activation: 'relu' }));
    // aᵀ · b read in place: the weight gradient's form, against both of the forms it replaces.
    const aT = tf.transpose(a) as tf.Tensor2D; // [K, M]
    expectClose(product(aT, b, { transposeA: true }), tf.matMul(a, b));
    expectClose(product(aT, b, { transposeA: true }), tf.transpose(tf.matMul(tf.transpose(b), aT)));
    expectClose(columnSums(a), tf.sum(a, 0));
    expectClose(columnSums(a), tf.reshape(tf.matMul(aT, tf.ones([M, 1])), [-1]));
  });

  it('a product that differs in one place is caught', () => {
    const rng = new Rng('products/mutation');
    const a = random(rng, [12, 16]) as tf.Tensor2D;
    const b = random(rng, [16, 12]) as tf.Tensor2D;
    const off = tf.add(tf.matMul(a, b), tf.scatterND([[3, 5]], [1e-3], [12, 12]));
    expect(scaledDifference(product(a, b).dataSync(), off.dataSync())).toBeGreaterThan(TOLERANCE);
  });

  it('refuses operands whose inner sizes differ', () => {
    expect(() => product(tf.ones([3, 4]) as tf.Tensor2D, tf.ones([5, 2]) as tf.Tensor2D)).toThrow(
      /inner sizes differ/,
    );
  });
});

describe("the embedding's gradient as row sums (addRowsAt)", () => {
  it("gives our kernel's product oneHot(rows)ᵀ · x bit for bit: repeated rows, rows never used, zeros of both signs", () => {
    const rng = new Rng('products/rows');
    const [n, width, count] = [300, 24, 40];
    const values = Float32Array.from({ length: n * width }, (_, i) =>
      i % 11 === 0 ? -0 : i % 13 === 0 ? 0 : rng.normal() * 10 ** rng.int(5),
    );
    const x = tf.tensor2d(values, [n, width]);
    // Rows 30-39 are never used; row 0 takes about a third of x's rows, so its sums are long.
    const rows = Int32Array.from({ length: n }, () => (rng.next() < 0.3 ? 0 : rng.int(30)));
    const viaProduct = product(
      tf.cast(tf.oneHot(tf.tensor1d(rows, 'int32'), count), 'float32') as tf.Tensor2D,
      x,
      {
        transposeA: true,
      },
    );
    const want = viaProduct.dataSync() as Float32Array;
    const got = addRowsAt(x, rows, count).dataSync() as Float32Array;
    expect(got.length).toBe(want.length);
    const differing = Array.from(got).filter((value, i) => !Object.is(value, want[i])).length;
    expect(differing).toBe(0);
  });

  it('refuses a row outside the table and a count of rows unlike x', () => {
    const x = tf.ones([3, 2]) as tf.Tensor2D;
    expect(() => addRowsAt(x, [0, 5, 1], 4)).toThrow(/row 5 outside \[0, 4\)/);
    expect(() => addRowsAt(x, [0, 1], 4)).toThrow(/2 rows for 3 rows of x/);
  });
});

describe('layers on our kernel against their reference form in plain tfjs', () => {
  function attentionCase() {
    const rng = new Rng('products/attention');
    const [batch, length, heads, width] = [3, 13, 2, 16];
    const h = random(rng, [batch * length, width]) as tf.Tensor2D;
    const w = random(rng, [width, 3 * width], 0.3) as tf.Tensor2D;
    const b = random(rng, [3 * width], 0.1) as tf.Tensor1D;
    const options = { batch, length, heads };
    const out = causalSelfAttention(h, w, b, options);
    const grads = tf.grads((x: tf.Tensor, ww: tf.Tensor, bb: tf.Tensor) =>
      tf.sum(tf.square(causalSelfAttention(x as tf.Tensor2D, ww as tf.Tensor2D, bb as tf.Tensor1D, options))),
    )([h, w, b]);
    return [out, ...grads];
  }

  it('causal self-attention, forward and gradients', async () => {
    expectCloseBothWays(attentionCase);
    expect(await kernelsRun(() => attentionCase()[0]!)).not.toContain('BatchMatMul');
  });

  it('a ReLU dense layer under a gradient tape', () => {
    expectCloseBothWays(() => {
      const rng = new Rng('products/dense');
      const x = random(rng, [50, 24]) as tf.Tensor2D;
      const w = random(rng, [24, 40], 0.3) as tf.Tensor2D;
      const b = random(rng, [40]) as tf.Tensor1D;
      const f = (xx: tf.Tensor, ww: tf.Tensor, bb: tf.Tensor) =>
        tf.sum(tf.square(dense(xx as tf.Tensor2D, ww as tf.Tensor2D, bb as tf.Tensor1D, { relu: true })));
      return [dense(x, w, b, { relu: true }), ...tf.grads(f)([x, w, b])];
    });
  });

  /**
   * Plays `plan` (a list of feeds, one chunk per row) on a session of `model` on our kernel and
   * in plain tfjs, expects every feed's logits the same up to rounding, and returns how many feeds
   * compacted the cache on our kernel. `retire(feed)` names the rows to retire before a feed.
   */
  function sessionBothWays(
    model: ReturnType<typeof createModel>,
    plan: number[][][],
    retire: (feed: number) => number[] = () => [],
  ): number {
    let compactions = 0;
    const play = (on: boolean): Float32Array[] => {
      useOwnProducts(on);
      const session = model.startSession(plan[0]!.length);
      compactions = 0;
      const out = plan.map((chunks, feed) => {
        session.retire(retire(feed));
        const before = session.slotCount;
        const logits = session.feed(chunks);
        if (session.slotCount < before) compactions += 1;
        return logits;
      });
      session.dispose();
      return out;
    };
    const ours = play(true);
    const found = compactions;
    const reference = play(false);
    ours.forEach((logits, feed) =>
      expect(scaledDifference(logits, reference[feed]!), `feed ${feed}`).toBeLessThanOrEqual(TOLERANCE),
    );
    return found;
  }

  it('a sampling session: logits over wide and single-token chunks, through retiring', () => {
    const config = smallModel({ vocabSize: 30, contextLength: 128 });
    const model = createModel(config, new Rng('products/session'));
    const rng = new Rng('products/session/plan');
    const rows = 12;
    // A wide first chunk, then mostly single tokens, some rows skipping feeds so padding builds
    // up, and rows retiring.
    const plan = Array.from({ length: 40 }, (_, feed) =>
      Array.from({ length: rows }, (_, b) => {
        if (feed > 30 + (b % 5)) return [];
        const size = feed === 0 ? 50 + b : feed % 9 === 4 && b % 3 === 0 ? 5 : rng.int(3) === 0 ? 0 : 1;
        return Array.from({ length: size }, () => rng.int(config.vocabSize));
      }),
    );
    sessionBothWays(model, plan, (feed) =>
      Array.from({ length: rows }, (_, b) => b).filter((b) => feed === 31 + (b % 5)),
    );
    model.dispose();
  });

  it('a sampling session whose cache is compacted again and again', () => {
    const config = smallModel({ vocabSize: 30, contextLength: 256 });
    const model = createModel(config, new Rng('products/grow'));
    const rng = new Rng('products/grow/plan');
    const rows = 8;
    // Two tokens first, then one token per row and six for one row in turn: padding builds up
    // faster than any row's tokens, so the cache is compacted, again and again.
    const plan = Array.from({ length: 70 }, (_, feed) =>
      Array.from({ length: rows }, (_, b) =>
        Array.from({ length: feed === 0 ? 2 : feed % rows === b ? 6 : 1 }, () => rng.int(config.vocabSize)),
      ),
    );
    expect(sessionBothWays(model, plan)).toBeGreaterThan(1);
    model.dispose();
  });

  it("a whole model's loss gradient", () => {
    const config = smallModel({ vocabSize: 40, contextLength: 40 });
    const model = createModel(config, new Rng('products/model'));
    const rng = new Rng('products/model/ids');
    const ids = tf.tensor2d(
      Array.from({ length: 6 }, () => Array.from({ length: 21 }, () => rng.int(config.vocabSize))),
      undefined,
      'int32',
    );
    expectCloseBothWays(() => {
      const { grads, value } = tf.variableGrads(() => tf.neg(tf.mean(model.tokenLogProbs(ids))) as tf.Scalar);
      return [value, ...Object.values(grads)];
    });
  });
});
