import * as tf from '@tensorflow/tfjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../agent/backend.ts';
import { adamUpdate, productsInstalled, sumOfSquares, useOwnProducts } from '../agent/kernels/index.ts';
import { adam, type Optimizer } from '../train/optimizer.ts';
import { Rng } from '../lib/rng.ts';

// The reference is tfjs's own Adam (tf.train.adam, tfjs-core 4.22's AdamOptimizer) after the
// clip as tfjs ops compute it: sqrt(addN(sum(square(g)))), then mul(g, scale). Our kernel must
// give its bits on wasm, not values within a tolerance.

beforeAll(async () => {
  expect(await initBackend({ preference: 'wasm' })).toBe('wasm');
});

afterEach(() => useOwnProducts(true));

/** Shapes like a model's: a vector whose size is not a multiple of 4 takes the kernel's scalar tail. */
const SHAPES: number[][] = [[23, 16], [16], [7], [16, 48], [1, 3]];

/** The same starting weights under each label (a label names the variables). */
function variables(label: string): tf.Variable[] {
  const rng = new Rng('optimizer/weights');
  return SHAPES.map((shape, i) =>
    tf.variable(
      tf.tensor(
        Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
        shape,
      ),
      true,
      `optimizer-${label}-${i}`,
    ),
  );
}

/** Step k's gradients for the variables: large ones (clipped) on even steps, small ones (not), a few exact zeros. */
function gradients(vars: tf.Variable[], step: number): tf.NamedTensorMap {
  const rng = new Rng(`optimizer/grads/${step}`);
  const scale = step % 2 === 0 ? 3 : 1e-3;
  const grads: tf.NamedTensorMap = {};
  for (const v of vars)
    grads[v.name] = tf.tensor(
      Float32Array.from({ length: v.size }, () => (rng.next() < 0.1 ? 0 : scale * rng.normal())),
      v.shape,
    );
  return grads;
}

/** tf.train.adam after tfjs's clip: the reference. */
function referenceStep(optimizer: tf.Optimizer, grads: tf.NamedTensorMap, maxGradNorm: number): number {
  const norm = tf.tidy(
    () => tf.sqrt(tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g))))).dataSync()[0]!,
  );
  const scale = norm > maxGradNorm ? maxGradNorm / (norm + 1e-6) : 1;
  tf.tidy(() => {
    const clipped: tf.NamedTensorMap = {};
    for (const [name, g] of Object.entries(grads)) clipped[name] = scale === 1 ? g : tf.mul(g, scale);
    optimizer.applyGradients(clipped);
  });
  tf.dispose(Object.values(grads));
  return norm;
}

function bits(vars: tf.Variable[]): number[][] {
  return vars.map((v) => Array.from(new Uint32Array((v.dataSync() as Float32Array).slice().buffer)));
}

/** Runs `steps` steps of ours and of the reference from the same start; returns both runs' norms and weights. */
function race(make: () => Optimizer, steps: number, learningRate = 1e-2) {
  const ours = variables('ours');
  const theirs = variables('theirs');
  const optimizer = make();
  const reference = tf.train.adam(learningRate);
  const norms: Array<[number, number]> = [];
  for (let step = 0; step < steps; step++) {
    const mine = gradients(ours, step);
    const other: tf.NamedTensorMap = {};
    theirs.forEach((v, i) => (other[v.name] = tf.clone(mine[ours[i]!.name]!)));
    norms.push([optimizer.applyClipped(mine, 1), referenceStep(reference, other, 1)]);
  }
  const result = { norms, ours: bits(ours), theirs: bits(theirs) };
  optimizer.dispose();
  reference.dispose();
  tf.dispose([...ours, ...theirs]);
  return result;
}

describe('adam: global-norm clipping and Adam', () => {
  it('on our kernel gives tf.train.adam bit for bit: every weight and every norm, clipped or not', () => {
    expect(productsInstalled()).toBe(true);
    const { norms, ours, theirs } = race(() => adam(1e-2), 7);
    for (const [mine, reference] of norms) expect(mine).toBe(reference);
    expect(norms.some(([norm]) => norm > 1)).toBe(true); // some steps clipped
    expect(norms.some(([norm]) => norm < 1)).toBe(true); // and some not
    expect(ours).toEqual(theirs);
  });

  it('off our kernel (tfjs ops) gives the same bits too', () => {
    useOwnProducts(false);
    const { norms, ours, theirs } = race(() => adam(1e-2), 4);
    for (const [mine, reference] of norms) expect(mine).toBe(reference);
    expect(ours).toEqual(theirs);
  });

  it('moves the weights: a changed learning rate gives other weights', () => {
    const a = race(() => adam(1e-2), 2);
    const b = race(() => adam(2e-2), 2);
    expect(a.ours).not.toEqual(b.ours);
  });

  it('keeps its moments only, and frees them on dispose', () => {
    const vars = variables('leak');
    const before = tf.memory().numTensors;
    const optimizer = adam(1e-3);
    optimizer.applyClipped(gradients(vars, 0), 1); // creates two moments per variable
    const afterFirst = tf.memory().numTensors;
    expect(afterFirst).toBe(before + 2 * vars.length);
    optimizer.applyClipped(gradients(vars, 1), 1);
    expect(tf.memory().numTensors).toBe(afterFirst);
    optimizer.dispose();
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose(vars);
  });

  it('sumOfSquares adds in order as tfjs sum(square(x)) does', () => {
    const rng = new Rng('optimizer/sum');
    for (const size of [1, 5, 1000, 40_001]) {
      const x = tf.tensor(Float32Array.from({ length: size }, () => 100 * rng.normal()));
      const reference = tf.tidy(() => tf.sum(tf.square(x)).dataSync()[0]!);
      expect(sumOfSquares(x)).toBe(reference);
      x.dispose();
    }
  });

  it('adamUpdate refuses operands of another size, in one line', () => {
    const w = tf.zeros([4]);
    const g = tf.zeros([5]);
    const scalars = {
      scale: 1,
      beta1: 0.9,
      oneMinusBeta1: 0.1,
      beta2: 0.999,
      oneMinusBeta2: 0.001,
      debias1: 0.1,
      debias2: 0.001,
      epsilon: 1e-7,
      step: -1e-3,
    };
    expect(() => adamUpdate(w, g, w, w, scalars)).toThrow(
      /^adamUpdate: g is float32 \[5\], the weights float32 \[4\]$/,
    );
    tf.dispose([w, g]);
  });
});
