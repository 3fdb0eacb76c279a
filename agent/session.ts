import * as tf from '@tensorflow/tfjs';
import { outputLogits, transformerBlock, type ModelWeights } from './blocks.ts';
import { productsInstalled } from './kernels/index.ts';
import {
  add,
  cachedSelfAttention,
  gatherRows,
  inPlaceCachedAttention,
  pickRows,
  reshape,
  type KeysValues,
} from './layers.ts';
import type { ModelConfig } from './modelConfig.ts';

/** What a session reads of its model (a `PolicyModel`): its config and weights. */
export interface SessionModel {
  readonly config: ModelConfig;
  parts(): ModelWeights;
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
  private readonly model: SessionModel;
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
   * Attention on our strided kernel (`inPlaceCachedAttention`), keys cached transposed,
   * [B, H, dh, S]; else in plain tfjs (`cachedSelfAttention`). Decided once per session.
   */
  private readonly inPlace: boolean;

  constructor(model: SessionModel, batchSize: number) {
    if (!Number.isInteger(batchSize) || batchSize < 1)
      throw new RangeError(`startSession: batchSize must be a positive integer, got ${batchSize}`);
    this.model = model;
    this.batchSize = batchSize;
    this.fed = new Array<number>(batchSize).fill(0);
    this.valid = Array.from({ length: batchSize }, () => []);
    this.lastLogits = new Float32Array(batchSize * model.config.vocabSize);
    this.computed = Array.from({ length: batchSize }, (_, b) => b);
    this.retired = new Array<boolean>(batchSize).fill(false);
    this.inPlace = productsInstalled();
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
          const flat = reshape(cached, [rows, heads * slots * size]);
          return reshape(gatherRows(flat, index), [index.length, heads, slots, size]);
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
    // Laid out [B, 1, C, S+C].
    const total = this.slots + width;
    const mask = new Float32Array(batch * width * total);
    rows.forEach((b, p) => {
      const chunk = chunks[b] as readonly number[];
      const rowValid = this.valid[b] as boolean[];
      for (let j = 0; j < width; j++) {
        const base = (p * width + j) * total;
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
      const maskTensor = tf.tensor4d(mask, [batch, 1, width, total]);
      let x = add(gatherRows(weights.wte, ids), gatherRows(weights.wpe, positions)); // [B*C, d]
      const cache: KeysValues[] = [];
      const lastLayer = weights.blocks.length - 1;
      weights.blocks.forEach((block, layer) => {
        x = transformerBlock(
          x,
          block,
          (normed, rows) => {
            const attend = this.inPlace ? inPlaceCachedAttention : cachedSelfAttention;
            const options = { batch, heads: nHeads, mask: maskTensor, past: past[layer] };
            const attended = attend(normed, block.wqkv, block.bqkv, options);
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

  dispose(): void {
    this.disposeCache();
    this.disposed = true;
  }
}
