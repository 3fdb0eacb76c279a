import * as tf from '@tensorflow/tfjs';
import { version_wasm } from '@tensorflow/tfjs-backend-wasm';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initBackend, productKernelProblem } from '../agent/backend.ts';
import { layerNorm, pickLogProbs, pickLogProbsWithEntropy } from '../agent/layers.ts';
import {
  ADAM_SCALARS,
  checkProductBounds,
  installKernels,
  KERNELS_WAT,
  kernelsModuleText,
  matrixProductGeometry,
  PINNED_TFJS,
  PRODUCT_KERNEL,
  product,
  productsInstalled,
  rowKernel,
  selfTest,
  stridedProduct,
  stridedSpan,
  tilesOf,
  uninstallKernels,
  withTiles,
  type ProductGeometry,
} from '../agent/kernels/index.ts';
import { binaryLayout } from '../agent/kernels/tfjsKernels.ts';
import { wasmInternals } from '../agent/kernels/tfjsWasm.ts';
import { Rng } from '../lib/rng.ts';
import { scalarProduct } from '../agent/kernels/reference.ts';

// The kernels as a module (agent/kernels/): the committed WAT, the pinned tfjs internals, the
// self-test at start, the bounds checks on every call, and random products against the scalar
// reference in the same order of k (test/support/scalarProduct.ts). The bit-for-bit comparisons
// with tfjs's own products are in agent-products.test.ts.

beforeAll(async () => {
  expect(await initBackend({ preference: 'wasm' })).toBe('wasm');
  expect(productKernelProblem()).toBeUndefined();
});

afterEach(async () => {
  await installKernels();
});

/** The bits of x, each NaN as one NaN (wasm leaves a NaN's sign and payload unspecified). */
function bits(values: ArrayLike<number>, places: readonly number[]): number[] {
  const word = new Uint32Array(1);
  const float = new Float32Array(word.buffer);
  return places.map((place) => {
    float[0] = values[place]!;
    return Number.isNaN(float[0]) ? -1 : word[0]!;
  });
}

/** n float32 values: mostly normal ones, some NaN, ±Infinity, ±0 and subnormals when `specials`. */
function values(rng: Rng, n: number, specials: boolean): Float32Array {
  const special = [NaN, Infinity, -Infinity, 0, -0, 1e-40, -3e-39];
  return Float32Array.from({ length: n }, () =>
    specials && rng.int(12) === 0 ? rng.pick(special) : rng.normal(),
  );
}

describe('the committed WAT and the pinned internals', () => {
  it('the generator writes agent/kernels/kernels.wat byte for byte (npm run kernels:wat rewrites it)', () => {
    expect(kernelsModuleText() === readFileSync(KERNELS_WAT, 'utf8')).toBe(true);
  });

  it('the internals are checked against the versions package.json pins', () => {
    const pins = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(pins.dependencies['@tensorflow/tfjs']).toBe(PINNED_TFJS);
    expect(pins.dependencies['@tensorflow/tfjs-backend-wasm']).toBe(PINNED_TFJS);
    expect(tf.version_core).toBe(PINNED_TFJS);
    expect(version_wasm).toBe(PINNED_TFJS);
    expect(() => wasmInternals('4.21.0')).toThrow(
      /^@tensorflow\/tfjs-backend-wasm is 4\.21\.0; the kernels' use of its internals is checked against 4\.22\.0$/,
    );
  });
});

describe("Identity: a clone shares its input's data, as on every other backend", () => {
  it('installed, a clone adds no buffer and keeps its values once its input is gone; uninstalled, it copies', async () => {
    const buffersAdded = () =>
      tf.tidy(() => {
        const x = tf.tensor1d([1, -0, 3.5]);
        const before = tf.engine().backend.numDataIds();
        const y = tf.clone(x);
        const added = tf.engine().backend.numDataIds() - before;
        x.dispose();
        expect(Array.from(y.dataSync())).toEqual([1, -0, 3.5]);
        expect(Object.is(y.dataSync()[1], -0)).toBe(true);
        return added;
      });
    expect(buffersAdded()).toBe(0);
    uninstallKernels();
    expect(buffersAdded()).toBe(1);
    await installKernels();
    expect(buffersAdded()).toBe(0);
  });
});

describe('the self-test at start', () => {
  it('passes on the kernels as generated', () => {
    expect(productsInstalled()).toBe(true);
    expect(selfTest()).toBeUndefined();
  });

  it('a kernel that adds in another order fails it: nothing stays installed, the products run on tfjs', async () => {
    uninstallKernels();
    // A kernel that subtracts where it should add, as a changed tfjs module could mislead it.
    const wrong = kernelsModuleText().replaceAll('f32x4.add', 'f32x4.sub');
    expect(wrong).not.toBe(kernelsModuleText());
    await expect(installKernels({ text: wrong })).rejects.toThrow(
      /^self-test: a \[6, 9\] · \[9, 13\] product with bias and ReLU differs from its scalar reference in \d+ of 78 outputs/,
    );
    expect(productsInstalled()).toBe(false);
    const a = tf.ones([4, 3]) as tf.Tensor2D;
    const b = tf.ones([3, 5]) as tf.Tensor2D;
    const info = await tf.profile(() => product(a, b));
    expect(info.kernelNames).not.toContain(PRODUCT_KERNEL);
    await installKernels();
    expect(productsInstalled()).toBe(true);
  });

  it('a kernel that does not assemble leaves nothing installed', async () => {
    uninstallKernels();
    await expect(installKernels({ text: '(module (func $broken' })).rejects.toThrow();
    expect(productsInstalled()).toBe(false);
  });
});

describe("tiles of other bits, for the bench's measurement of fused multiply-adds (bench/model.ts)", () => {
  const fused = kernelsModuleText({ fused: true });

  it('the fused text differs only in the vector multiply-adds of the 30 vector tile loops', () => {
    const madd =
      /\(f32x4\.relaxed_madd \(local\.get \$av\) \(local\.get (\$b\d)\) \(local\.get (\$c\d_\d)\)\)/g;
    expect(fused.match(madd)).toHaveLength(30);
    const separate = fused.replaceAll(
      madd,
      '(f32x4.add (local.get $2) (f32x4.mul (local.get $av) (local.get $1)))',
    );
    expect(separate === kernelsModuleText()).toBe(true);
  });

  it('runs f on the given tiles, then puts the installed ones back, also when f throws', async () => {
    const wrong = kernelsModuleText().replaceAll('f32x4.add', 'f32x4.sub');
    const wrongTiles = await tilesOf(wrong);
    expect(await withTiles(wrongTiles, async () => selfTest())).toMatch(/differs from its scalar reference/);
    expect(selfTest()).toBeUndefined();
    await expect(
      withTiles(wrongTiles, async () => {
        throw new Error('inside');
      }),
    ).rejects.toThrow('inside');
    expect(selfTest()).toBeUndefined();
    await expect(tilesOf('(module (func $broken')).rejects.toThrow();
    expect(selfTest()).toBeUndefined();
  });

  it('the fused tiles compute the products (to float rounding) once V8 compiles relaxed SIMD', async () => {
    v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
    const rng = new Rng('kernels/fused');
    const [M, K, N] = [9, 70, 19];
    const a = values(rng, M * K, false);
    const b = values(rng, K * N, false);
    const reference = new Float32Array(M * N);
    scalarProduct(a, b, reference, matrixProductGeometry(M, K, N, { transposeA: false }), {});
    const ours = await withTiles(await tilesOf(fused), async () =>
      tf.tidy(() => product(tf.tensor2d(a, [M, K]), tf.tensor2d(b, [K, N])).dataSync()),
    );
    ours.forEach((value, i) =>
      expect(Math.abs(value - reference[i]!)).toBeLessThan(1e-4 * (1 + Math.abs(reference[i]!))),
    );
  });
});

describe('bounds: every call checks its operands before it writes', () => {
  it('stridedSpan counts one past the furthest element', () => {
    expect(stridedSpan([2, 3], [10, 1])).toBe(13);
    expect(stridedSpan([1, 5], [1000, 2])).toBe(9);
    expect(stridedSpan([4, 0], [1, 1])).toBe(0);
  });

  const geometry: ProductGeometry = {
    rows: 3,
    depth: 4,
    cols: 5,
    batch: 2,
    heads: 1,
    aStrides: [12, 0, 4, 1],
    bStrides: [20, 0, 5],
    cStrides: [15, 0, 5],
    outShape: [2, 3, 5],
  };
  const fits = { a: 24, b: 40, out: 30, bias: 5 };

  it('names the operand that would reach past its buffer', () => {
    expect(() => checkProductBounds('K', geometry, fits)).not.toThrow();
    expect(() => checkProductBounds('K', geometry, { ...fits, a: 23 })).toThrow(
      /^K: a would reach element 23 of a 23-element buffer \(rows 3, depth 4, cols 5, batch 2, heads 1\)$/,
    );
    expect(() => checkProductBounds('K', geometry, { ...fits, b: 39 })).toThrow(
      /^K: b would reach element 39 /,
    );
    expect(() => checkProductBounds('K', geometry, { ...fits, out: 29 })).toThrow(
      /^K: out would reach element 29 /,
    );
    expect(() => checkProductBounds('K', geometry, { ...fits, bias: 4 })).toThrow(
      /^K: bias would reach element 4 /,
    );
    expect(() => checkProductBounds('K', { ...geometry, aStrides: [12, 0, -4, 1] }, fits)).toThrow(
      /^K: aStrides 12,0,-4,1 is not made of non-negative integers$/,
    );
    expect(() => checkProductBounds('K', { ...geometry, cols: 2.5 }, fits)).toThrow(/^K: cols 2.5 /);
  });

  it('a product whose output would run past its tensor throws before any write, and leaks nothing', () => {
    const rng = new Rng('kernels/bounds');
    const a = tf.tensor(values(rng, 24, false));
    const b = tf.tensor(values(rng, 40, false));
    const neighbour = tf.tensor(values(rng, 64, false));
    const before = neighbour.dataSync().slice();
    const tensors = tf.memory().numTensors;
    // The output holds 30 elements; a row stride of 6 would write 5 elements past it.
    const wrong = { ...geometry, cStrides: [18, 0, 6] as [number, number, number] };
    expect(() => stridedProduct(a, b, wrong)).toThrow(
      new RegExp(`^${PRODUCT_KERNEL}: out would reach element 34 of a 30-element buffer`),
    );
    expect(() => stridedProduct(tf.slice(a, 0, 23), b, geometry)).toThrow(
      /: a would reach element 23 of a 23-element/,
    );
    expect(tf.memory().numTensors).toBe(tensors + 1); // the slice, and no output
    expect(neighbour.dataSync()).toEqual(before);
    const ok = stridedProduct(a, b, geometry);
    expect(ok.shape).toEqual([2, 3, 5]);
    tf.dispose([a, b, neighbour, ok]);
  });

  it('a row-wise kernel refuses an operand of another size than its rows, before any write', () => {
    const [dy, xhat] = [tf.ones([3, 4]), tf.ones([3, 4])];
    const [rstd, gain] = [tf.ones([2, 1]), tf.ones([4])];
    const before = tf.memory().numTensors;
    expect(() => rowKernel('TinyAgentLayerNormGrad', { dy, xhat, rstd, gain })).toThrow(
      'TinyAgentLayerNormGrad: rstd holds 2 values, not 3',
    );
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([dy, xhat, rstd, gain]);
  });

  it("the head's kernels take int32 targets, one per row, and refuse others before any write", () => {
    const logits = tf.ones([3, 5]) as tf.Tensor2D;
    const [floats, short] = [tf.tensor1d([0, 1, 2]), tf.tensor1d([0, 1], 'int32')];
    const before = tf.memory().numTensors;
    expect(() => pickLogProbs(logits, floats)).toThrow('TinyAgentPick targets: a float32 tensor, not int32');
    expect(() => pickLogProbs(logits, short)).toThrow('TinyAgentPick: targets holds 2 values, not 3');
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([logits, floats, short]);
  });

  it("Adam's kernel refuses moments of another size than the weights", () => {
    const w = tf.zeros([10]);
    const short = tf.zeros([9]);
    const scalars = Object.fromEntries(ADAM_SCALARS.map((name) => [name, 1]));
    expect(() => rowKernel('TinyAgentAdam', { w, g: w, m: short, v: w }, scalars)).toThrow(
      /^TinyAgentAdam: m holds 9 values, not 10$/,
    );
    tf.dispose([w, short]);
  });
});

describe('properties: random products against the scalar reference, in the same order of k', () => {
  const options = (seed: number) => ({ seed, numRuns: 150, endOnFailure: true });

  it('strided products: random shapes, strides and tails, with NaN and Infinity', () => {
    const small = (max: number) => fc.integer({ min: 0, max });
    const shape = fc.record({
      batch: fc.integer({ min: 1, max: 3 }),
      heads: fc.integer({ min: 1, max: 3 }),
      rows: fc.integer({ min: 1, max: 9 }),
      depth: fc.integer({ min: 1, max: 13 }),
      cols: fc.integer({ min: 1, max: 19 }),
      aStrides: fc.tuple(small(400), small(120), small(30), small(20)),
      bStrides: fc.tuple(small(500), small(200), fc.integer({ min: 0, max: 40 })),
      cPadding: fc.tuple(small(3), small(7), small(5)),
      headsInner: fc.boolean(),
      seed: fc.integer(),
    });
    fc.assert(
      fc.property(
        shape,
        ({ batch, heads, rows, depth, cols, aStrides, bStrides, cPadding, headsInner, seed }) => {
          // C's rows never overlap: cols (+ padding) per row, rows of heads inside items, or items inside heads.
          const cs = cols + cPadding[0];
          const inner = rows * cs + cPadding[1];
          const cStrides: [number, number, number] = headsInner
            ? [heads * inner + cPadding[2], inner, cs]
            : [inner, batch * inner + cPadding[2], cs];
          const outSize = stridedSpan([batch, heads, rows, cols], [...cStrides, 1]);
          const geometry: ProductGeometry = {
            rows,
            depth,
            cols,
            batch,
            heads,
            aStrides,
            bStrides,
            cStrides,
            outShape: [outSize],
          };
          const rng = new Rng(`kernels/properties/strided/${seed}`);
          const a = values(rng, stridedSpan([batch, heads, rows, depth], aStrides), true);
          const b = values(rng, stridedSpan([batch, heads, depth, cols], [...bStrides, 1]), true);
          const expected = new Float32Array(outSize);
          const places = scalarProduct(a, b, expected, geometry);
          const [ta, tb] = [tf.tensor(a), tf.tensor(b)];
          const out = stridedProduct(ta, tb, geometry);
          const got = out.dataSync();
          tf.dispose([ta, tb, out]);
          expect(bits(got, places)).toEqual(bits(expected, places));
        },
      ),
      options(35),
    );
  });

  it('2-D products: random shapes past the blocks of k, with bias, ReLU, aᵀ read in place, NaN and Infinity', () => {
    const shape = fc.record({
      M: fc.integer({ min: 1, max: 13 }),
      K: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 60, max: 300 })),
      N: fc.integer({ min: 1, max: 21 }),
      withBias: fc.boolean(),
      relu: fc.boolean(),
      transposeA: fc.boolean(),
      seed: fc.integer(),
    });
    fc.assert(
      fc.property(shape, ({ M, K, N, withBias, relu, transposeA, seed }) => {
        const rng = new Rng(`kernels/properties/2d/${seed}`);
        const a = values(rng, M * K, true);
        const b = values(rng, K * N, true);
        const bias = withBias ? values(rng, N, true) : undefined;
        const geometry = matrixProductGeometry(M, K, N, { transposeA });
        const expected = new Float32Array(M * N);
        const places = scalarProduct(a, b, expected, geometry, {
          relu,
          ...(bias === undefined ? {} : { bias }),
        });
        const ta = tf.tensor2d(a, transposeA ? [K, M] : [M, K]);
        const tb = tf.tensor2d(b, [K, N]);
        const tbias = bias === undefined ? undefined : tf.tensor1d(bias);
        const out = product(ta, tb, { relu, transposeA, ...(tbias === undefined ? {} : { bias: tbias }) });
        const got = out.dataSync();
        tf.dispose([ta, tb, out, ...(tbias === undefined ? [] : [tbias])]);
        expect(bits(got, places)).toEqual(bits(expected, places));
      }),
      options(36),
    );
  });
});

describe("elementwise Add, Sub and Multiply: each output is tfjs's own kernel's, bit for bit", () => {
  const shapes = fc
    .record({
      lead: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 0, maxLength: 3 }),
      last: fc.integer({ min: 1, max: 19 }),
      // The other operand: the same shape, a scalar, a trailing block, the last dimension 1, or one tfjs alone broadcasts.
      form: fc.constantFrom('same', 'scalar', 'trailing', 'column', 'middle'),
      swap: fc.boolean(),
      op: fc.constantFrom('add', 'sub', 'mul'),
      seed: fc.integer(),
    })
    .map(({ lead, last, form, swap, op, seed }) => {
      const full = [...lead, last];
      const other =
        form === 'same'
          ? full
          : form === 'scalar'
            ? []
            : form === 'trailing'
              ? full.slice(1 + (seed & 1) * (full.length > 2 ? 1 : 0))
              : form === 'column'
                ? [...lead, 1]
                : full.map((d, i) => (i === full.length - 2 ? 1 : d));
      return { shapes: swap ? [other, full] : [full, other], op, seed };
    });

  it('random shapes and broadcasts, with NaN, ±Infinity, ±0 and subnormals', async () => {
    const cases = fc.sample(shapes, { seed: 17, numRuns: 200 });
    const run = (op: string, a: tf.Tensor, b: tf.Tensor) =>
      tf.tidy(() => (op === 'add' ? tf.add(a, b) : op === 'sub' ? tf.sub(a, b) : tf.mul(a, b)).dataSync());
    const inputs = cases.map(({ shapes: [sa, sb], seed }) => {
      const rng = new Rng(`kernels/binary/${seed}`);
      return [
        tf.tensor(
          values(
            rng,
            sa!.reduce((x, y) => x * y, 1),
            true,
          ),
          sa,
        ),
        tf.tensor(
          values(
            rng,
            sb!.reduce((x, y) => x * y, 1),
            true,
          ),
          sb,
        ),
      ] as const;
    });
    const ours = cases.map(({ op }, i) => run(op, ...inputs[i]!));
    uninstallKernels();
    const tfjs = cases.map(({ op }, i) => run(op, ...inputs[i]!));
    await installKernels();
    cases.forEach((_, i) => {
      const places = Array.from(tfjs[i]!, (_, k) => k);
      expect(bits(ours[i]!, places), JSON.stringify(cases[i])).toEqual(bits(tfjs[i]!, places));
    });
    tf.dispose(inputs.flat());
  });

  it('Concat: random shapes and axes, three inputs, one of them empty at times, as tfjs copies them', () => {
    const cases = fc.sample(
      fc.record({
        shape: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 4 }),
        axis: fc.nat(),
        widths: fc.tuple(
          fc.integer({ min: 0, max: 5 }),
          fc.integer({ min: 1, max: 5 }),
          fc.integer({ min: 0, max: 5 }),
        ),
        seed: fc.integer(),
      }),
      { seed: 23, numRuns: 150 },
    );
    const run = (inputs: readonly tf.Tensor[], axis: number) =>
      tf.tidy(() => tf.concat([...inputs], axis).dataSync());
    const made = cases.map(({ shape, axis, widths, seed }) => {
      const rng = new Rng(`kernels/concat/${seed}`);
      const at = axis % shape.length;
      return widths.map((width) => {
        const each = shape.map((d, i) => (i === at ? width : d));
        return tf.tensor(
          values(
            rng,
            each.reduce((x, y) => x * y, 1),
            true,
          ),
          each,
        );
      });
    });
    const ours = made.map((inputs, i) => run(inputs, cases[i]!.axis % cases[i]!.shape.length));
    uninstallKernels();
    const tfjs = made.map((inputs, i) => run(inputs, cases[i]!.axis % cases[i]!.shape.length));
    return installKernels().then(() => {
      ours.forEach((got, i) => {
        const places = Array.from(tfjs[i]!, (_, k) => k);
        expect(bits(got, places), JSON.stringify(cases[i])).toEqual(bits(tfjs[i]!, places));
      });
      tf.dispose(made.flat());
    });
  });

  it('takes the broadcasts of the layers, and leaves any other to tfjs', () => {
    expect(binaryLayout([6080, 64], [64], [6080, 64])).toEqual({
      outer: 6080,
      inner: 64,
      a: { perRow: 64, perElement: 1 },
      b: { perRow: 0, perElement: 1 },
    });
    expect(binaryLayout([64, 4, 95, 1], [64, 4, 95, 95], [64, 4, 95, 95])).toEqual({
      outer: 64 * 4 * 95,
      inner: 95,
      a: { perRow: 1, perElement: 0 },
      b: { perRow: 95, perElement: 1 },
    });
    expect(binaryLayout([64, 4, 95, 95], [95, 95], [64, 4, 95, 95])?.inner).toBe(95 * 95);
    expect(binaryLayout([], [7, 3], [7, 3])).toEqual({
      outer: 1,
      inner: 21,
      a: { perRow: 0, perElement: 0 },
      b: { perRow: 21, perElement: 1 },
    });
    expect(binaryLayout([3, 1, 5], [3, 4, 5], [3, 4, 5])).toBeUndefined();
    expect(binaryLayout([4, 1], [1, 5], [4, 5])).toEqual({
      outer: 4,
      inner: 5,
      a: { perRow: 1, perElement: 0 },
      b: { perRow: 0, perElement: 1 },
    });
    expect(binaryLayout([2, 3], [4, 1, 3], [4, 2, 3])).toBeUndefined();
  });

  it('reads a row broadcast, a column broadcast and a scalar as tfjs does: [N, C] against [C], [N, 1] and []', () => {
    const a = tf.tensor2d([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [2, 5]);
    expect(Array.from(tf.sub(a, tf.tensor1d([1, 1, 1, 1, 2])).dataSync())).toEqual([
      0, 1, 2, 3, 3, 5, 6, 7, 8, 8,
    ]);
    expect(Array.from(tf.mul(tf.tensor2d([2, -1], [2, 1]), a).dataSync())).toEqual([
      2, 4, 6, 8, 10, -6, -7, -8, -9, -10,
    ]);
    expect(Array.from(tf.add(tf.scalar(0.5), a).dataSync())).toEqual([
      1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5,
    ]);
  });
});

describe("row-wise kernels (LayerNorm, the head's log-probabilities, softmax gradients): tfjs's ops' bits", () => {
  /** layerNorm's output and its gradients for x, gain and bias under the upstream gradient dy, and the kernels it ran. */
  async function layerNormCase(x: tf.Tensor2D, gain: tf.Tensor1D, bias: tf.Tensor1D, dy: tf.Tensor2D) {
    const compute = () =>
      tf.tidy(() => {
        const loss = (a: tf.Tensor, g: tf.Tensor, b: tf.Tensor) =>
          tf.sum(tf.mul(layerNorm(a as tf.Tensor2D, g as tf.Tensor1D, b as tf.Tensor1D), dy));
        return [layerNorm(x, gain, bias), ...tf.grads(loss)([x, gain, bias])].map((t) => t.dataSync());
      });
    const names = (await tf.profile(compute)).kernelNames;
    return { outputs: compute(), names };
  }

  it("random rows and widths (the model's 64 among them), with NaN, ±Infinity, ±0 and subnormals", async () => {
    const cases = fc.sample(
      fc.record({
        rows: fc.integer({ min: 1, max: 40 }),
        width: fc.oneof(fc.constant(64), fc.integer({ min: 1, max: 70 })),
        specials: fc.boolean(),
        scale: fc.constantFrom(1, 1e-3, 1e4),
        seed: fc.integer(),
      }),
      { seed: 31, numRuns: 120 },
    );
    const inputs = cases.map(({ rows, width, specials, scale, seed }) => {
      const rng = new Rng(`kernels/layer-norm/${seed}`);
      const of = (n: number, s: number) => Float32Array.from(values(rng, n, specials), (v) => v * s);
      return [
        tf.tensor2d(of(rows * width, scale), [rows, width]),
        tf.tensor1d(of(width, 1)),
        tf.tensor1d(of(width, 0.1)),
        tf.tensor2d(of(rows * width, 1), [rows, width]),
      ] as const;
    });
    const ours: Awaited<ReturnType<typeof layerNormCase>>[] = [];
    for (const input of inputs) ours.push(await layerNormCase(...input));
    uninstallKernels();
    const tfjs: Awaited<ReturnType<typeof layerNormCase>>[] = [];
    for (const input of inputs) tfjs.push(await layerNormCase(...input));
    await installKernels();
    ours.forEach(({ outputs, names }, i) => {
      expect(names).toEqual(expect.arrayContaining(['TinyAgentLayerNorm', 'TinyAgentLayerNormGrad']));
      expect(names).not.toContain('Rsqrt');
      expect(tfjs[i]!.names).toContain('Rsqrt');
      expect(tfjs[i]!.names).not.toContain('TinyAgentLayerNorm');
      outputs.forEach((got, k) => {
        const places = Array.from(got, (_, p) => p);
        expect(bits(got, places), `${JSON.stringify(cases[i])} output ${k}`).toEqual(
          bits(tfjs[i]!.outputs[k]!, places),
        );
      });
    });
    tf.dispose(inputs.flat());
  });

  it("softmax's gradient p · (dy - sum(dy · p)) over random rows, with NaN, ±Infinity, ±0 and subnormals", async () => {
    const cases = fc.sample(
      fc.record({
        shape: fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 4 }),
        seed: fc.integer(),
      }),
      { seed: 37, numRuns: 100 },
    );
    const inputs = cases.map(({ shape, seed }) => {
      const rng = new Rng(`kernels/softmax-grad/${seed}`);
      const size = shape.reduce((a, b) => a * b, 1);
      return [tf.tensor(values(rng, size, true), shape), tf.tensor(values(rng, size, true), shape)] as const;
    });
    const ours = inputs.map(([p, dy]) =>
      tf.tidy(() => rowKernel('TinyAgentSoftmaxGrad', { p, dy })[0].dataSync()),
    );
    uninstallKernels();
    const tfjs = inputs.map(([p, dy]) =>
      tf.tidy(() => tf.mul(p, tf.sub(dy, tf.sum(tf.mul(dy, p), -1, true))).dataSync()),
    );
    await installKernels();
    ours.forEach((got, i) => {
      const places = Array.from(got, (_, k) => k);
      expect(bits(got, places), JSON.stringify(cases[i])).toEqual(bits(tfjs[i]!, places));
    });
    tf.dispose(inputs.flat());
  });

  it("the head's log-probability of the target alone and with the entropy, and their gradients, over random logits and targets", async () => {
    const cases = fc.sample(
      fc.record({
        rows: fc.integer({ min: 1, max: 40 }),
        vocab: fc.oneof(fc.constant(221), fc.integer({ min: 2, max: 70 })),
        scale: fc.constantFrom(1, 30),
        specials: fc.boolean(),
        outside: fc.boolean(),
        seed: fc.integer(),
      }),
      { seed: 41, numRuns: 80 },
    );
    // With `outside`, a target may be -1 or vocab: tfjs's oneHot row is then all zeros.
    const inputs = cases.map(({ rows, vocab, scale, specials, outside, seed }) => {
      const rng = new Rng(`kernels/pick-grad/${seed}`);
      return {
        logits: tf.tensor2d(
          Float32Array.from(values(rng, rows * vocab, specials), (v) => v * scale),
          [rows, vocab],
        ),
        targets: tf.tensor1d(
          Int32Array.from({ length: rows }, () => (outside ? rng.int(vocab + 2) - 1 : rng.int(vocab))),
          'int32',
        ),
        dPicked: tf.tensor1d(values(rng, rows, true)),
        dBoth: tf.tensor2d(values(rng, 2 * rows, true), [rows, 2]),
      };
    });
    const run = ({ logits, targets, dPicked, dBoth }: (typeof inputs)[number]) =>
      tf.tidy(() => {
        const picked = (z: tf.Tensor) => tf.sum(tf.mul(pickLogProbs(z as tf.Tensor2D, targets), dPicked));
        const both = (z: tf.Tensor) =>
          tf.sum(tf.mul(pickLogProbsWithEntropy(z as tf.Tensor2D, targets), dBoth));
        return [
          pickLogProbs(logits, targets).dataSync(),
          pickLogProbsWithEntropy(logits, targets).dataSync(),
          tf.grad(picked)(logits).dataSync(),
          tf.grad(both)(logits).dataSync(),
        ];
      });
    const kernelNames = (await tf.profile(() => run(inputs[0]!))).kernelNames;
    expect(kernelNames).toEqual(
      expect.arrayContaining([
        'TinyAgentRowShift',
        'TinyAgentPick',
        'TinyAgentPickEntropy',
        'TinyAgentPickGrad',
        'TinyAgentPickEntropyGrad',
      ]),
    );
    const ours = inputs.map(run);
    uninstallKernels();
    const tfjs = inputs.map(run);
    await installKernels();
    ours.forEach((grads, i) =>
      grads.forEach((got, k) => {
        const places = Array.from(got, (_, p) => p);
        expect(bits(got, places), `${JSON.stringify(cases[i])} output ${k}`).toEqual(
          bits(tfjs[i]![k]!, places),
        );
      }),
    );
    tf.dispose(inputs.flatMap(Object.values));
  });
});
