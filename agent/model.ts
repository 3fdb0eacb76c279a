import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../lib/rng.ts';
import { outputLogits, transformerBlock, type ModelWeights } from './blocks.ts';
import {
  add,
  causalSelfAttention,
  embed,
  pickLogProbs,
  pickLogProbsWithEntropy,
  placeRows,
  reshape,
} from './layers.ts';
import { sizeOf, validateConfig, variableSpecs, type ModelConfig } from './modelConfig.ts';
import { Session } from './session.ts';

export {
  countParameters,
  defaultModelConfig,
  TARGET_PARAMETERS,
  sizeOf,
  variableSpecs,
  type ModelConfig,
} from './modelConfig.ts';
export { Session } from './session.ts';

let modelCounter = 0;

/** Which positions of [B, T-1] a caller reads: where `only` is nonzero (every one without it). */
export interface PositionsOption {
  only?: ArrayLike<number>;
}

/** Indices of the nonzero entries of a mask, in order. */
function positionsWhere(mask: ArrayLike<number>): Int32Array {
  const rows: number[] = [];
  for (let i = 0; i < mask.length; i++) if (mask[i] !== 0) rows.push(i);
  return Int32Array.from(rows);
}

export class PolicyModel {
  readonly config: ModelConfig;
  private readonly vars: tf.Variable[];
  private readonly names: string[];
  private readonly weights: ModelWeights;

  /** Use `createModel`; this takes ready values in `variableSpecs` order. */
  constructor(cfg: ModelConfig, values: Float32Array[]) {
    validateConfig(cfg);
    this.config = { ...cfg };
    const specs = variableSpecs(cfg);
    if (values.length !== specs.length)
      throw new Error(`PolicyModel: expected ${specs.length} weight arrays, got ${values.length}`);
    const id = modelCounter++;
    this.vars = specs.map((spec, i) => {
      const value = values[i];
      const size = sizeOf(spec.shape);
      if (value?.length !== size)
        throw new Error(`PolicyModel: ${spec.name} needs ${size} values, got ${value?.length}`);
      // tidy releases the initial tensor; the variable keeps the data.
      return tf.tidy(() =>
        tf.variable(tf.tensor(value, spec.shape, 'float32'), true, `tinyagent${id}/${spec.name}`),
      );
    });
    this.names = specs.map((spec) => spec.name);
    // Each variable under its role in `ModelWeights`, checked for the rank the role needs.
    const named = (name: string, rank: 1 | 2): tf.Tensor => {
      const v = this.vars[this.names.indexOf(name)];
      if (v?.rank !== rank) throw new Error(`PolicyModel: no variable '${name}' of rank ${rank}`);
      return v;
    };
    const vector = (name: string) => named(name, 1) as tf.Tensor1D;
    const matrix = (name: string) => named(name, 2) as tf.Tensor2D;
    this.weights = {
      wte: matrix('wte'),
      wpe: matrix('wpe'),
      blocks: Array.from({ length: cfg.nLayers }, (_, layer) => {
        const h = `h${layer}.`;
        return {
          ln1Gain: vector(`${h}ln1.gain`),
          ln1Bias: vector(`${h}ln1.bias`),
          wqkv: matrix(`${h}attn.wqkv`),
          bqkv: vector(`${h}attn.bqkv`),
          wo: matrix(`${h}attn.wo`),
          bo: vector(`${h}attn.bo`),
          ln2Gain: vector(`${h}ln2.gain`),
          ln2Bias: vector(`${h}ln2.bias`),
          w1: matrix(`${h}mlp.w1`),
          b1: vector(`${h}mlp.b1`),
          w2: matrix(`${h}mlp.w2`),
          b2: vector(`${h}mlp.b2`),
        };
      }),
      lnfGain: vector('lnf.gain'),
      lnfBias: vector('lnf.bias'),
      headW: matrix('head.w'),
      headB: vector('head.b'),
    };
  }

  /** The trainable variables, in the fixed checkpoint order. */
  variables(): tf.Variable[] {
    return [...this.vars];
  }

  /** Stable names of `variables()`, same order ('wte', 'wpe', 'h0.ln1.gain', ...). */
  variableNames(): string[] {
    return [...this.names];
  }

  parameterCount(): number {
    return this.vars.reduce((total, v) => total + v.size, 0);
  }

  dispose(): void {
    for (const v of this.vars) v.dispose();
  }

  /**
   * Rows [B*T, d] out of the last block (before the final LayerNorm) for int32 ids [B, T]
   * (T <= contextLength); with `rows` (indices into the B*T rows), those rows only, [R, d].
   */
  private hidden(ids: tf.Tensor2D, rows?: ArrayLike<number>): tf.Tensor2D {
    const [batch, length] = ids.shape;
    const { dModel: d, contextLength, nHeads } = this.config;
    if (length > contextLength)
      throw new RangeError(`PolicyModel: sequence length ${length} exceeds contextLength ${contextLength}`);
    const tokens = embed(reshape(tf.cast(ids, 'int32'), [-1]), this.weights.wte); // [B*T, d]
    const positions = tf.slice(this.weights.wpe, [0, 0], [length, d]); // [T, d]
    let x = reshape(add(reshape(tokens, [batch, length, d]), positions), [batch * length, d]);
    const last = this.weights.blocks.length - 1;
    this.weights.blocks.forEach((block, layer) => {
      x = transformerBlock(
        x,
        block,
        (normed, queries) =>
          causalSelfAttention(normed, block.wqkv, block.bqkv, {
            batch,
            length,
            heads: nHeads,
            queries,
          }),
        layer === last ? rows : undefined,
      );
    });
    return x;
  }

  /** Logits [B, T, V] at every position of int32 ids [B, T]. */
  logits(ids: tf.Tensor2D): tf.Tensor3D {
    return tf.tidy(() => {
      const [batch, length] = ids.shape;
      return reshape(outputLogits(this.hidden(ids), this.weights), [batch, length, this.config.vocabSize]);
    });
  }

  /**
   * out[b, t] = log p(ids[b, t+1] | ids[b, 0..t]) for int32 ids [B, T]; shape [B, T-1].
   * Differentiable with respect to `variables()`. With `only` (a [B, T-1] mask, such as a
   * loss's target mask), the values are computed where the mask is nonzero and are 0 elsewhere;
   * where computed they are the same bits as without it, and so are the gradients of anything
   * that reads them only there. Training's losses pass their masks: the last block after
   * attention and the head then run on those positions alone.
   */
  tokenLogProbs(ids: tf.Tensor2D, { only }: PositionsOption = {}): tf.Tensor2D {
    return tf.tidy(() => {
      const { logits, targets, shape, place } = this.nextTokenLogits(ids, only);
      return reshape(place(reshape(pickLogProbs(logits, targets), [-1, 1])), shape);
    });
  }

  /** `tokenLogProbs` plus the entropy [B, T-1] of each position's next-token distribution (`only` as there). */
  tokenStats(
    ids: tf.Tensor2D,
    { only }: PositionsOption = {},
  ): { logProbs: tf.Tensor2D; entropy: tf.Tensor2D } {
    return tf.tidy(() => {
      const { logits, targets, shape, place } = this.nextTokenLogits(ids, only);
      const [picked, entropy] = tf.split(place(pickLogProbsWithEntropy(logits, targets)), 2, 1);
      return { logProbs: reshape(picked!, shape), entropy: reshape(entropy!, shape) };
    });
  }

  /**
   * Logits [R, V] at positions 0..T-2 of int32 ids [B, T] (every one, R = B*(T-1), or those
   * where `only` is nonzero), their int32 next tokens [R], the output shape [B, T-1], and
   * `place`, which puts per-position rows [R, k] at their places in [B*(T-1), k] (zeros
   * elsewhere).
   */
  private nextTokenLogits(
    ids: tf.Tensor2D,
    only: ArrayLike<number> | undefined,
  ): {
    logits: tf.Tensor2D;
    targets: tf.Tensor1D;
    shape: [number, number];
    place: (perPosition: tf.Tensor2D) => tf.Tensor2D;
  } {
    const [batch, length] = ids.shape;
    if (length < 2) throw new RangeError(`tokenLogProbs: need at least 2 tokens per row, got ${length}`);
    const steps = length - 1;
    const positions = batch * steps;
    if (only !== undefined && only.length !== positions)
      throw new RangeError(
        `tokenLogProbs: only has ${only.length} entries for [${batch}, ${steps}] positions`,
      );
    const inputs = tf.slice(ids, [0, 0], [batch, steps]); // [B, T-1]
    const rows = only === undefined ? [] : positionsWhere(only);
    // Every position wanted (or none, where the full forward gives the same zero-weighted loss):
    // the whole forward.
    if (rows.length === 0 || rows.length === positions) {
      const targets = reshape(tf.slice(ids, [0, 1], [batch, steps]), [-1]); // [B*(T-1)]
      const logits = outputLogits(this.hidden(inputs), this.weights); // [B*(T-1), V]
      return { logits, targets: tf.cast(targets, 'int32'), shape: [batch, steps], place: (x) => x };
    }
    const idValues = ids.dataSync();
    const targets = tf.tensor1d(
      Int32Array.from(rows, (row) => idValues[Math.floor(row / steps) * length + (row % steps) + 1]!),
      'int32',
    );
    const logits = outputLogits(this.hidden(inputs, rows), this.weights); // [R, V]
    return { logits, targets, shape: [batch, steps], place: (x) => placeRows(x, rows, positions) };
  }

  startSession(batchSize: number): Session {
    return new Session(this, batchSize);
  }

  /** @internal the weights by role, for `Session`. */
  parts(): ModelWeights {
    return this.weights;
  }
}

/** The standard deviation of createModel's normal draws of the matrices, the embedding table among them. */
export const INIT_STD = 0.02;

/**
 * Builds a model with weights drawn from `rng`: every matrix ~ N(0, 0.02^2), except the two
 * residual projections per block (attn.wo, mlp.w2) at 0.02 / sqrt(2 * nLayers) (GPT-2);
 * biases 0, LayerNorm gains 1. Each variable draws from its own fork `rng.fork(name)`, so the
 * values do not depend on the order of creation.
 */
export function createModel(cfg: ModelConfig, rng: Rng): PolicyModel {
  validateConfig(cfg);
  const values = variableSpecs(cfg).map(({ name, shape }) => {
    const size = sizeOf(shape);
    const value = new Float32Array(size);
    if (name.endsWith('.gain')) value.fill(1);
    else if (shape.length === 2) {
      const std =
        name.endsWith('attn.wo') || name.endsWith('mlp.w2')
          ? INIT_STD / Math.sqrt(2 * cfg.nLayers)
          : INIT_STD;
      const stream = rng.fork(name);
      for (let i = 0; i < size; i++) value[i] = stream.normal() * std;
    }
    return value;
  });
  return new PolicyModel(cfg, values);
}

/**
 * Draws a token from row `row` of logits [B*V] at `temperature`; temperature 0 is argmax with
 * ties going to the lowest id. Uses one `rng.next()` per call at temperature > 0.
 */
export function sampleToken(
  logits: Float32Array,
  vocabSize: number,
  row: number,
  temperature: number,
  rng: Rng,
): number {
  const offset = rowOffset(logits, vocabSize, row);
  if (!(temperature >= 0)) throw new RangeError(`sampleToken: temperature must be >= 0, got ${temperature}`);
  const best = argmax(logits, offset, vocabSize);
  if (temperature === 0) return best;
  const top = logits[offset + best] as number;
  let total = 0;
  const weights = new Float64Array(vocabSize);
  for (let i = 0; i < vocabSize; i++) {
    const w = Math.exp(((logits[offset + i] as number) - top) / temperature);
    weights[i] = w;
    total += w;
  }
  let u = rng.next() * total;
  for (let i = 0; i < vocabSize; i++) {
    u -= weights[i] as number;
    if (u < 0) return i;
  }
  return best; // only reachable through rounding at the very top of the range
}

/**
 * log softmax(logits[row] / temperature)[token], computed in float64. At temperature 0 the
 * sampling distribution is the argmax (ties to the lowest id): 0 for that token, -Infinity else.
 * `logits` holds rows of `vocabSize` values (a session's feed returns [B*V]).
 */
export function logSoftmaxAt(
  logits: Float32Array,
  vocabSize: number,
  row: number,
  temperature: number,
  token: number,
): number {
  const offset = rowOffset(logits, vocabSize, row);
  if (!Number.isInteger(token) || token < 0 || token >= vocabSize)
    throw new RangeError(`logSoftmaxAt: token ${token} outside [0, ${vocabSize})`);
  if (!(temperature >= 0)) throw new RangeError(`logSoftmaxAt: temperature must be >= 0, got ${temperature}`);
  const best = argmax(logits, offset, vocabSize);
  if (temperature === 0) return token === best ? 0 : -Infinity;
  const top = (logits[offset + best] as number) / temperature;
  let total = 0;
  for (let i = 0; i < vocabSize; i++) total += Math.exp((logits[offset + i] as number) / temperature - top);
  return (logits[offset + token] as number) / temperature - top - Math.log(total);
}

/** The first index of the largest of logits[offset .. offset + vocabSize), minus offset. */
function argmax(logits: Float32Array, offset: number, vocabSize: number): number {
  let best = 0;
  for (let i = 1; i < vocabSize; i++) if (logits[offset + i]! > logits[offset + best]!) best = i;
  return best;
}

function rowOffset(logits: Float32Array, vocabSize: number, row: number): number {
  if (!Number.isInteger(row) || row < 0 || (row + 1) * vocabSize > logits.length) {
    throw new RangeError(`row ${row} outside logits of ${logits.length / vocabSize} rows of ${vocabSize}`);
  }
  return row * vocabSize;
}
