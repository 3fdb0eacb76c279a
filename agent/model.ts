import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../lib/rng.ts';
import {
  add,
  cachedSelfAttention,
  causalSelfAttention,
  dense,
  embed,
  gatherRows,
  inPlaceCachedAttention,
  layerNorm,
  pickLogProbs,
  pickLogProbsWithEntropy,
  pickRows,
  placeRows,
  reshape,
  type KeysValues,
} from './layers.ts';
import { productsInstalled } from './kernels/index.ts';

/**
 * Chunks at least this wide use the depthwise attention form in a session on wasm (measured on
 * tfjs's kernels). In place on our kernel the two forms cost the same, but the width still
 * decides how the values product adds (in order, or in blocks of 48), so the numbers keep it.
 */
const SESSION_DEPTHWISE_MIN_WIDTH = 4;

/**
 * The policy network: a small causal transformer, GPT-2 style (Radford et al. 2019; nanoGPT's
 * model.py): learned token and absolute position embeddings, nLayers pre-LayerNorm blocks
 * (x += attn(ln1(x)); x += mlp(ln2(x))), a final LayerNorm and a separate (untied) output head
 * with a bias. The MLP uses ReLU rather than GELU: ReLU fuses into the matMul kernel on wasm and
 * tfjs has no GELU op. Dropout is left out (RL fine-tuning of a 158k model does not need it, and
 * it would make sampling and training disagree).
 */
export interface ModelConfig {
  vocabSize: number;
  contextLength: number;
  dModel: number;
  nHeads: number;
  nLayers: number;
  dFF: number;
}

/** The chapter's target size: about 158,000 parameters (GYM.md section 6). */
export const TARGET_PARAMETERS = 158_000;

/**
 * Exact parameter count:
 *   V*d (tokens) + ctx*d (positions)
 *   + L * (2d ln1 + 3d^2+3d qkv + d^2+d proj + 2d ln2 + d*f+f fc1 + f*d+d fc2)
 *   + 2d (final LayerNorm) + d*V + V (head).
 */
export function countParameters(cfg: ModelConfig): number {
  const { vocabSize: v, contextLength: ctx, dModel: d, nLayers: layers, dFF: f } = cfg;
  const perLayer = 2 * d + (3 * d * d + 3 * d) + (d * d + d) + 2 * d + (d * f + f) + (f * d + d);
  return v * d + ctx * d + layers * perLayer + 2 * d + d * v + v;
}

/**
 * contextLength 128, dModel 64, 4 heads, 2 layers, and the multiple of 8 for dFF that brings the
 * parameter count closest to 158,000 for this vocabulary (e.g. vocab 250 -> dFF 320, 157,050).
 */
export function defaultModelConfig(vocabSize: number): ModelConfig {
  if (!Number.isInteger(vocabSize) || vocabSize < 2)
    throw new RangeError(`defaultModelConfig: vocabSize must be an integer >= 2, got ${vocabSize}`);
  const base = { vocabSize, contextLength: 128, dModel: 64, nHeads: 4, nLayers: 2 };
  let best = { ...base, dFF: 8 };
  for (let dFF = 8; dFF <= 8192; dFF += 8) {
    const candidate = { ...base, dFF };
    if (
      Math.abs(countParameters(candidate) - TARGET_PARAMETERS) <
      Math.abs(countParameters(best) - TARGET_PARAMETERS)
    )
      best = candidate;
  }
  return best;
}

/** Variable names and shapes in their fixed order (the checkpoint order). */
export function variableSpecs(cfg: ModelConfig): Array<{ name: string; shape: number[] }> {
  const { vocabSize: v, contextLength: ctx, dModel: d, nLayers, dFF: f } = cfg;
  const specs: Array<{ name: string; shape: number[] }> = [
    { name: 'wte', shape: [v, d] },
    { name: 'wpe', shape: [ctx, d] },
  ];
  for (let layer = 0; layer < nLayers; layer++) {
    const p = `h${layer}`;
    specs.push(
      { name: `${p}.ln1.gain`, shape: [d] },
      { name: `${p}.ln1.bias`, shape: [d] },
      { name: `${p}.attn.wqkv`, shape: [d, 3 * d] },
      { name: `${p}.attn.bqkv`, shape: [3 * d] },
      { name: `${p}.attn.wo`, shape: [d, d] },
      { name: `${p}.attn.bo`, shape: [d] },
      { name: `${p}.ln2.gain`, shape: [d] },
      { name: `${p}.ln2.bias`, shape: [d] },
      { name: `${p}.mlp.w1`, shape: [d, f] },
      { name: `${p}.mlp.b1`, shape: [f] },
      { name: `${p}.mlp.w2`, shape: [f, d] },
      { name: `${p}.mlp.b2`, shape: [d] },
    );
  }
  specs.push(
    { name: 'lnf.gain', shape: [d] },
    { name: 'lnf.bias', shape: [d] },
    { name: 'head.w', shape: [d, v] },
    { name: 'head.b', shape: [v] },
  );
  return specs;
}

function validateConfig(cfg: ModelConfig): void {
  for (const key of ['vocabSize', 'contextLength', 'dModel', 'nHeads', 'nLayers', 'dFF'] as const) {
    if (!Number.isInteger(cfg[key]) || cfg[key] < 1)
      throw new RangeError(`ModelConfig.${key} must be a positive integer, got ${cfg[key]}`);
  }
  if (cfg.dModel % cfg.nHeads !== 0)
    throw new RangeError(`ModelConfig: dModel ${cfg.dModel} is not divisible by nHeads ${cfg.nHeads}`);
}

let modelCounter = 0;

/** One block's weights, by role. */
interface BlockWeights {
  ln1Gain: tf.Tensor1D;
  ln1Bias: tf.Tensor1D;
  wqkv: tf.Tensor2D;
  bqkv: tf.Tensor1D;
  wo: tf.Tensor2D;
  bo: tf.Tensor1D;
  ln2Gain: tf.Tensor1D;
  ln2Bias: tf.Tensor1D;
  w1: tf.Tensor2D;
  b1: tf.Tensor1D;
  w2: tf.Tensor2D;
  b2: tf.Tensor1D;
}

/** The model's weights by role: rank-typed views of its variables. */
interface ModelWeights {
  wte: tf.Tensor2D;
  wpe: tf.Tensor2D;
  blocks: readonly BlockWeights[];
  lnfGain: tf.Tensor1D;
  lnfBias: tf.Tensor1D;
  headW: tf.Tensor2D;
  headB: tf.Tensor1D;
}

/**
 * One pre-LayerNorm block on rows x [N, d]: x += attend(ln1(x)) · Wo + bo, then
 * x += relu(ln2(x) · W1 + b1) · W2 + b2. `attend` is self-attention with its input projection,
 * ln1(x) [N, d] -> [N, d]: the one part that differs between the full-sequence forward
 * (`causalSelfAttention`, with gradients) and a session's incremental one
 * (`cachedSelfAttention`, over the key/value cache).
 *
 * With `rows`, the block's output is wanted at those rows only (the last block, whose output
 * feeds nothing but the head): `attend` gives its output at those rows ([R, d]; every row's key
 * and value are still read), and the rest of the block runs on them alone. Every step after
 * attention is row-wise, so those rows get the same values, and the same gradients.
 */
function transformerBlock(
  x: tf.Tensor2D,
  w: BlockWeights,
  attend: (normed: tf.Tensor2D, rows: ArrayLike<number> | undefined) => tf.Tensor2D,
  rows?: ArrayLike<number>,
): tf.Tensor2D {
  const heads = attend(layerNorm(x, w.ln1Gain, w.ln1Bias), rows);
  const attended = add(rows === undefined ? x : pickRows(x, rows), dense(heads, w.wo, w.bo));
  const hidden = dense(layerNorm(attended, w.ln2Gain, w.ln2Bias), w.w1, w.b1, { relu: true }); // [N, f]
  return add(attended, dense(hidden, w.w2, w.b2));
}

/** Next-token logits [N, V] from rows [N, d] out of the last block: the final LayerNorm, then the head. */
function outputLogits(x: tf.Tensor2D, weights: ModelWeights): tf.Tensor2D {
  return dense(layerNorm(x, weights.lnfGain, weights.lnfBias), weights.headW, weights.headB);
}

// Rank checks for the typed views of the variables (their ranks are fixed by `variableSpecs`).
function isVector(t: tf.Tensor): t is tf.Tensor1D {
  return t.rank === 1;
}

function isMatrix(t: tf.Tensor): t is tf.Tensor2D {
  return t.rank === 2;
}

/** Which positions of [B, T-1] a caller reads: where `only` is nonzero (every one without it). */
export interface PositionsOption {
  only?: ArrayLike<number>;
}

/** Indices of the nonzero entries of a mask, in order. */
function positionsWhere(mask: ArrayLike<number>): Int32Array {
  let count = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i] !== 0) count += 1;
  const rows = new Int32Array(count);
  for (let i = 0, j = 0; i < mask.length; i++) if (mask[i] !== 0) rows[j++] = i;
  return rows;
}

/** Per-position log-probabilities of the next token and entropies of the next-token distribution. */
export interface TokenStats {
  logProbs: tf.Tensor2D; // [B, T-1]
  entropy: tf.Tensor2D; // [B, T-1]
}

/**
 * How attention's batched products run: 'depthwise' (a depthwise-convolution form, the fast one
 * on wasm, whose matMul has a fast path for plain 2-D products only) or 'matmul' (batched
 * matMul, the fast one elsewhere). Both compute the same function up to float rounding.
 */
export type AttentionMode = 'depthwise' | 'matmul';

/** The faster attention mode on a backend ('wasm' -> 'depthwise', else 'matmul'). */
export function attentionModeFor(backend: string | undefined): AttentionMode {
  return backend === 'wasm' ? 'depthwise' : 'matmul';
}

/** Choices that change how the model computes, not what: fixed when the model is built. */
export interface ModelOptions {
  attention: AttentionMode;
}

export class PolicyModel {
  readonly config: ModelConfig;
  attentionMode: AttentionMode;
  private readonly vars: tf.Variable[];
  private readonly names: string[];
  private readonly byName: Map<string, tf.Variable>;
  private readonly weights: ModelWeights;

  /** Use `createModel`; this takes ready values in `variableSpecs` order. */
  constructor(cfg: ModelConfig, values: Float32Array[], { attention }: ModelOptions) {
    validateConfig(cfg);
    this.config = { ...cfg };
    const specs = variableSpecs(cfg);
    if (values.length !== specs.length)
      throw new Error(`PolicyModel: expected ${specs.length} weight arrays, got ${values.length}`);
    const id = modelCounter++;
    const named = specs.map((spec, i): [string, tf.Variable] => {
      const value = values[i];
      const size = spec.shape.reduce((a, b) => a * b, 1);
      if (value?.length !== size)
        throw new Error(`PolicyModel: ${spec.name} needs ${size} values, got ${value?.length}`);
      // tidy releases the initial tensor; the variable keeps the data.
      const variable = tf.tidy(() =>
        tf.variable(tf.tensor(value, spec.shape, 'float32'), true, `tinyagent${id}/${spec.name}`),
      );
      return [spec.name, variable];
    });
    this.names = named.map(([name]) => name);
    this.vars = named.map(([, variable]) => variable);
    this.byName = new Map(named);
    this.weights = {
      wte: this.matrix('wte'),
      wpe: this.matrix('wpe'),
      blocks: Array.from({ length: cfg.nLayers }, (_, layer) => {
        const prefix = `h${layer}.`;
        return {
          ln1Gain: this.vector(`${prefix}ln1.gain`),
          ln1Bias: this.vector(`${prefix}ln1.bias`),
          wqkv: this.matrix(`${prefix}attn.wqkv`),
          bqkv: this.vector(`${prefix}attn.bqkv`),
          wo: this.matrix(`${prefix}attn.wo`),
          bo: this.vector(`${prefix}attn.bo`),
          ln2Gain: this.vector(`${prefix}ln2.gain`),
          ln2Bias: this.vector(`${prefix}ln2.bias`),
          w1: this.matrix(`${prefix}mlp.w1`),
          b1: this.vector(`${prefix}mlp.b1`),
          w2: this.matrix(`${prefix}mlp.w2`),
          b2: this.vector(`${prefix}mlp.b2`),
        };
      }),
      lnfGain: this.vector('lnf.gain'),
      lnfBias: this.vector('lnf.bias'),
      headW: this.matrix('head.w'),
      headB: this.vector('head.b'),
    };
    this.attentionMode = attention;
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

  private get(name: string): tf.Variable {
    const v = this.byName.get(name);
    if (v === undefined) throw new Error(`PolicyModel: no variable '${name}'`);
    return v;
  }

  private vector(name: string): tf.Tensor1D {
    const v = this.get(name);
    if (!isVector(v)) throw new Error(`PolicyModel: variable '${name}' has rank ${v.rank}, not 1`);
    return v;
  }

  private matrix(name: string): tf.Tensor2D {
    const v = this.get(name);
    if (!isMatrix(v)) throw new Error(`PolicyModel: variable '${name}' has rank ${v.rank}, not 2`);
    return v;
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
            mode: this.attentionMode,
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
  tokenStats(ids: tf.Tensor2D, { only }: PositionsOption = {}): TokenStats {
    return tf.tidy(() => {
      const { logits, targets, shape, place } = this.nextTokenLogits(ids, only);
      const [picked, entropy] = tf.split(place(pickLogProbsWithEntropy(logits, targets)), 2, 1);
      // split into 2 gives 2
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

  /** A key/value-cached sampling session over `batchSize` rows. */
  startSession(batchSize: number): Session {
    return new Session(this, batchSize);
  }

  /** @internal the weights by role, for `Session`. */
  parts(): ModelWeights {
    return this.weights;
  }
}

/**
 * Builds a model with weights drawn from `rng`: every matrix ~ N(0, 0.02^2), except the two
 * residual projections per block (attn.wo, mlp.w2) at 0.02 / sqrt(2 * nLayers) (GPT-2);
 * biases 0, LayerNorm gains 1. Each variable draws from its own fork `rng.fork(name)`, so the
 * values do not depend on the order of creation.
 */
export function createModel(cfg: ModelConfig, rng: Rng, options: ModelOptions): PolicyModel {
  validateConfig(cfg);
  const values = variableSpecs(cfg).map(({ name, shape }) => {
    const size = shape.reduce((a, b) => a * b, 1);
    const value = new Float32Array(size);
    if (name.endsWith('.gain')) value.fill(1);
    else if (shape.length === 2) {
      const std =
        name.endsWith('attn.wo') || name.endsWith('mlp.w2') ? 0.02 / Math.sqrt(2 * cfg.nLayers) : 0.02;
      const stream = rng.fork(name);
      for (let i = 0; i < size; i++) value[i] = stream.normal() * std;
    }
    return value;
  });
  return new PolicyModel(cfg, values, options);
}

/**
 * Incremental decoding with a key/value cache for a batch of rows fed ragged chunks.
 *
 * Each feed appends a padded chunk of C = max chunk length slots to every row's cache. A
 * validity mask marks the padding slots, and the slot order gives causality: a query attends to
 * the valid slots of its own row at or before its own slot. Position embeddings use each row's
 * true position (its count of tokens fed). When padding makes up more than half of the slots the
 * cache is compacted (valid slots moved to the front of each row, order kept).
 *
 * A row that will not be fed again can be retired (`retire`): its cache rows are dropped at the
 * next feed once retired rows are an eighth of the rows computed, so that finished episodes stop
 * costing work. A row's numbers do not depend on which other rows share its batch (every kernel
 * here is row-wise), and the slot layout is decided from every row's count, retired or not, so
 * retiring changes no row's logits (tested bit for bit).
 */
export class Session {
  readonly batchSize: number;
  private readonly model: PolicyModel;
  private readonly fed: number[];
  /** valid[b][slot]: whether slot holds a real token of row b. */
  private valid: boolean[][];
  private slots = 0;
  /** Per layer, empty before the first feed; its batch axis holds the rows of `computed`, in that order. */
  private cache: KeysValues[] = [];
  /** The rows the cache holds (ascending); a retired row leaves it at the next feed that drops rows. */
  private computed: number[];
  private readonly retired: boolean[];
  private readonly lastLogits: Float32Array;
  private disposed = false;
  /**
   * Attention on our strided kernel (`inPlaceCachedAttention`, the same values): keys cached
   * transposed, [B, H, dh, S], and masks in the matMul form's layout. Decided once per session.
   */
  private readonly inPlace: boolean;

  constructor(model: PolicyModel, batchSize: number) {
    if (!Number.isInteger(batchSize) || batchSize < 1)
      throw new RangeError(`startSession: batchSize must be a positive integer, got ${batchSize}`);
    this.model = model;
    this.batchSize = batchSize;
    this.fed = new Array<number>(batchSize).fill(0);
    this.valid = Array.from({ length: batchSize }, () => []);
    this.lastLogits = new Float32Array(batchSize * model.config.vocabSize);
    this.computed = Array.from({ length: batchSize }, (_, b) => b);
    this.retired = new Array<boolean>(batchSize).fill(false);
    this.inPlace = model.attentionMode === 'depthwise' && productsInstalled();
  }

  /** Rows the next feed computes (diagnostic: retired rows leave once they are an eighth of them). */
  get computedRows(): number {
    return this.computed.length;
  }

  /**
   * Marks rows that will not be fed again (a finished episode): a later non-empty chunk for one
   * is an error. Their logits stay as they were.
   */
  retire(rows: readonly number[]): void {
    if (this.disposed) throw new Error('Session.retire: session was disposed');
    for (const row of rows) {
      if (!Number.isInteger(row) || row < 0 || row >= this.batchSize)
        throw new RangeError(`Session.retire: row ${row} out of range [0, ${this.batchSize})`);
      this.retired[row] = true;
    }
  }

  /** Drops retired rows from the cache once they are an eighth of the rows computed (row copies, `gatherRows`). */
  private dropRetired(): void {
    const kept = this.computed.filter((b) => !this.retired[b]);
    const leaving = this.computed.length - kept.length;
    if (leaving === 0 || leaving * 8 < this.computed.length) return;
    if (this.cache.length > 0) {
      const index = this.computed.flatMap((b, i) => (this.retired[b] ? [] : [i]));
      const keep = (cached: tf.Tensor4D): tf.Tensor4D =>
        tf.tidy(() => {
          const [rows, heads, slots, size] = cached.shape;
          return reshape(gatherRows(reshape(cached, [rows, heads * slots * size]), index), [
            index.length,
            heads,
            slots,
            size,
          ]);
        });
      const cache = this.cache.map(({ keys, values }) => ({ keys: keep(keys), values: keep(values) }));
      this.disposeCache();
      this.cache = cache;
    }
    for (const b of this.computed) if (this.retired[b]) this.valid[b] = [];
    this.computed = kept;
  }

  /** Cache slots per row, padding included (diagnostic: compaction keeps it near the longest row). */
  get slotCount(): number {
    return this.slots;
  }

  /** Tokens fed so far to row b. */
  tokensFed(row: number): number {
    const count = this.fed[row];
    if (count === undefined)
      throw new RangeError(`Session.tokensFed: row ${row} out of range [0, ${this.batchSize})`);
    return count;
  }

  /**
   * Appends chunks[b] to row b and returns logits [B*V] at each row's last fed token (rows with
   * an empty chunk keep their previous logits; rows never fed have zeros). The array is a copy.
   */
  feed(chunks: readonly (readonly number[])[]): Float32Array {
    if (this.disposed) throw new Error('Session.feed: session was disposed');
    const { vocabSize, contextLength, nHeads } = this.model.config;
    if (chunks.length !== this.batchSize)
      throw new RangeError(`Session.feed: expected ${this.batchSize} chunks, got ${chunks.length}`);
    let width = 0;
    chunks.forEach((chunk, b) => {
      if ((this.fed[b] as number) + chunk.length > contextLength) {
        throw new RangeError(
          `Session.feed: row ${b} would hold ${(this.fed[b] as number) + chunk.length} tokens, over contextLength ${contextLength}`,
        );
      }
      for (const id of chunk)
        if (!Number.isInteger(id) || id < 0 || id >= vocabSize)
          throw new RangeError(`Session.feed: token id ${id} in row ${b} is outside [0, ${vocabSize})`);
      if (chunk.length > 0 && this.retired[b] === true)
        throw new RangeError(`Session.feed: row ${b} was retired and cannot be fed`);
      width = Math.max(width, chunk.length);
    });
    if (width === 0) return this.snapshot();
    this.dropRetired();
    // The slot layout follows every row's count, retired rows' too, so retiring does not move it.
    if (this.slots >= 16 && this.slots + width > 2 * (Math.max(...this.fed) + width)) this.compact();

    const rows = this.computed;
    const batch = rows.length;
    const ids = new Int32Array(batch * width);
    const positions = new Int32Array(batch * width);
    const lastIndex: number[] = [];
    const lastRows: number[] = [];
    rows.forEach((b, p) => {
      const chunk = chunks[b] as readonly number[];
      chunk.forEach((id, j) => {
        ids[p * width + j] = id;
        positions[p * width + j] = (this.fed[b] as number) + j;
      });
      if (chunk.length > 0) {
        lastRows.push(b);
        lastIndex.push(p * width + chunk.length - 1);
      }
    });
    // Additive mask: 0 where the key slot is valid and not after the query slot, -1e9 elsewhere.
    // Laid out [B, 1, C, S+C] for the matMul form, [C, B, 1, S+C] for the depthwise form.
    const total = this.slots + width;
    const mode: AttentionMode =
      width >= SESSION_DEPTHWISE_MIN_WIDTH && this.model.attentionMode === 'depthwise'
        ? 'depthwise'
        : 'matmul';
    const maskLayout = this.inPlace ? 'matmul' : mode;
    const mask = new Float32Array(batch * width * total);
    rows.forEach((b, p) => {
      const chunk = chunks[b] as readonly number[];
      const rowValid = this.valid[b] as boolean[];
      for (let j = 0; j < width; j++) {
        const base = (maskLayout === 'depthwise' ? j * batch + p : p * width + j) * total;
        const querySlot = this.slots + j;
        for (let s = 0; s < total; s++) {
          const ok = s < this.slots ? rowValid[s] === true : s - this.slots < chunk.length;
          if (!ok || s > querySlot) mask[base + s] = -1e9;
        }
      }
    });

    const weights = this.model.parts();
    const past = this.cache;
    const result = tf.tidy(() => {
      const maskTensor =
        maskLayout === 'depthwise'
          ? tf.tensor4d(mask, [width, batch, 1, total])
          : tf.tensor4d(mask, [batch, 1, width, total]);
      let x = add(gatherRows(weights.wte, ids), gatherRows(weights.wpe, positions)); // [B*C, d]
      const cache: KeysValues[] = [];
      const lastLayer = weights.blocks.length - 1;
      weights.blocks.forEach((block, layer) => {
        x = transformerBlock(
          x,
          block,
          (normed, rows) => {
            const options = { batch, heads: nHeads, mask: maskTensor, past: past[layer] };
            const attended = this.inPlace
              ? inPlaceCachedAttention(normed, block.wqkv, block.bqkv, { ...options, form: mode })
              : cachedSelfAttention(normed, block.wqkv, block.bqkv, { ...options, mode });
            cache.push(attended.cache);
            return rows === undefined ? attended.out : pickRows(attended.out, rows);
          },
          // Only each row's last new position is read out of the last block (all of them when
          // every row was fed one token).
          layer === lastLayer && lastIndex.length < batch * width ? lastIndex : undefined,
        );
      });
      return { logits: outputLogits(x, weights), cache }; // [R, V]
    });
    tf.dispose(past.flatMap(({ keys, values }) => [keys, values]));
    this.cache = result.cache;
    const logits = result.logits.dataSync() as Float32Array;
    result.logits.dispose();
    lastRows.forEach((b, r) =>
      this.lastLogits.set(logits.subarray(r * vocabSize, (r + 1) * vocabSize), b * vocabSize),
    );
    for (const b of rows) {
      const chunk = chunks[b] as readonly number[];
      const rowValid = this.valid[b] as boolean[];
      for (let j = 0; j < width; j++) rowValid.push(j < chunk.length);
      this.fed[b] = (this.fed[b] as number) + chunk.length;
    }
    this.slots = total;
    return this.snapshot();
  }

  private snapshot(): Float32Array {
    return this.lastLogits.slice();
  }

  /** Moves each row's valid slots to the front (order kept), dropping the padding between them. */
  private compact(): void {
    const rows = this.computed;
    const batch = rows.length;
    const width = Math.max(...this.fed);
    const index = new Int32Array(batch * width);
    const valid: boolean[][] = this.valid.map(() => []);
    rows.forEach((b, p) => {
      const rowValid = this.valid[b] as boolean[];
      const kept: number[] = [];
      rowValid.forEach((ok, s) => {
        if (ok) kept.push(s);
      });
      for (let j = 0; j < width; j++) index[p * width + j] = p * this.slots + (kept[j] ?? 0);
      valid[b] = Array.from({ length: width }, (_, j) => j < kept.length);
    });
    const { nHeads, dModel } = this.model.config;
    const headSize = dModel / nHeads;
    // Cached [B, H, S, dh], or [B, H, dh, S] (`transposed`, the in-place form's keys).
    const gatherSlots = (cached: tf.Tensor4D, transposed = false) =>
      tf.tidy(() => {
        const bySlot = tf.transpose(cached, transposed ? [0, 3, 1, 2] : [0, 2, 1, 3]); // [b, s, h, e]
        const rows = reshape(bySlot, [batch * this.slots, dModel]); // [(b, s), (h, e)]
        const picked = gatherRows(rows, index); // [(b, s'), (h, e)]
        return tf.transpose(
          reshape(picked, [batch, width, nHeads, headSize]),
          transposed ? [0, 2, 3, 1] : [0, 2, 1, 3],
        );
      });
    const cache = this.cache.map(({ keys, values }) => ({
      keys: gatherSlots(keys, this.inPlace),
      values: gatherSlots(values),
    }));
    this.disposeCache();
    this.cache = cache;
    this.valid = valid;
    this.slots = width;
  }

  private disposeCache(): void {
    tf.dispose(this.cache.flatMap(({ keys, values }) => [keys, values]));
    this.cache = [];
  }

  /** Releases every tensor the session holds. */
  dispose(): void {
    this.disposeCache();
    this.disposed = true;
  }
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
  let best = 0;
  for (let i = 1; i < vocabSize; i++)
    if ((logits[offset + i] as number) > (logits[offset + best] as number)) best = i;
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
  let best = 0;
  for (let i = 1; i < vocabSize; i++)
    if ((logits[offset + i] as number) > (logits[offset + best] as number)) best = i;
  if (temperature === 0) return token === best ? 0 : -Infinity;
  const top = (logits[offset + best] as number) / temperature;
  let total = 0;
  for (let i = 0; i < vocabSize; i++) total += Math.exp((logits[offset + i] as number) / temperature - top);
  return (logits[offset + token] as number) / temperature - top - Math.log(total);
}

function rowOffset(logits: Float32Array, vocabSize: number, row: number): number {
  if (!Number.isInteger(row) || row < 0 || (row + 1) * vocabSize > logits.length) {
    throw new RangeError(`row ${row} outside logits of ${logits.length / vocabSize} rows of ${vocabSize}`);
  }
  return row * vocabSize;
}
