import * as tf from '@tensorflow/tfjs';
import type { Transcript } from '../agent/index.ts';

/**
 * A right-padded batch, shifted for next-token prediction: `ids` [B, T]; `targetMask`,
 * `oldPerTokenLogps` [B, T-1] where column t refers to the token at t+1 (the one predicted from
 * positions 0..t). Observation and header tokens get mask 0, so no loss ever reaches them. GRPO
 * adds a column per row (`advantages`) and, when its KL is on, the reference's log-probs.
 */
export interface PaddedBatch {
  ids: Int32Array;
  targetMask: Float32Array;
  oldPerTokenLogps: Float32Array;
  /** Each row's own token count (at most `length`; the rest is padding). */
  lengths: Int32Array;
  batchSize: number;
  length: number;
  /** [B] each row's advantage (GRPO). */
  advantages?: Float32Array;
  /** [B, T-1] the reference policy's log-probs (GRPO with its KL on). */
  refLogProbs?: Float32Array;
}

export function padBatch(transcripts: readonly Transcript[], padId: number): PaddedBatch {
  const batchSize = transcripts.length;
  const length = Math.max(2, ...transcripts.map((transcript) => transcript.tokens.length));
  const ids = new Int32Array(batchSize * length).fill(padId);
  const targetMask = new Float32Array(batchSize * (length - 1));
  const oldPerTokenLogps = new Float32Array(batchSize * (length - 1));
  const lengths = Int32Array.from(transcripts, (transcript) => transcript.tokens.length);
  transcripts.forEach((transcript, b) => {
    transcript.tokens.forEach((token, t) => {
      ids[b * length + t] = token;
      if (t === 0) return;
      targetMask[b * (length - 1) + t - 1] = transcript.actionMask[t] ?? 0;
      oldPerTokenLogps[b * (length - 1) + t - 1] = transcript.oldPerTokenLogps?.[t] ?? 0;
    });
  });
  return { ids, targetMask, oldPerTokenLogps, lengths, batchSize, length };
}

/** Tensors of a padded batch (caller disposes, or creates them inside tf.tidy). */
export function batchTensors(batch: PaddedBatch) {
  return {
    ids: tf.tensor2d(batch.ids, [batch.batchSize, batch.length], 'int32'),
    targetMask: tf.tensor2d(batch.targetMask, [batch.batchSize, batch.length - 1]),
    oldPerTokenLogps: tf.tensor2d(batch.oldPerTokenLogps, [batch.batchSize, batch.length - 1]),
  };
}

/**
 * Per-sequence masked mean, then the batch mean: sum_t(x * m) / max(sum_t m, 1), as in TRL's
 * GRPO loss (the denominator clamped to 1 so an all-masked row contributes 0, not NaN).
 */
export function maskedSequenceMean(values: tf.Tensor2D, mask: tf.Tensor2D): tf.Scalar {
  return tf.tidy(() => {
    const perSequence = tf.div(tf.sum(tf.mul(values, mask), 1), tf.maximum(tf.sum(mask, 1), 1));
    return tf.mean(perSequence) as tf.Scalar;
  });
}

/**
 * The batch restricted to `rows` (indices into it, in that order), padded only to the longest of
 * them. Padding never reaches a loss (mask 0) and attention is causal, so a row's terms do not
 * depend on how far the batch around it is padded (up to float rounding).
 */
export function selectRows(batch: PaddedBatch, rows: readonly number[]): PaddedBatch {
  const { batchSize, length: from } = batch;
  if (rows.length === 0) throw new RangeError('selectRows: no rows');
  for (const row of rows)
    if (!Number.isInteger(row) || row < 0 || row >= batchSize)
      throw new RangeError(`selectRows: row ${row} outside [0, ${batchSize})`);
  const length = Math.max(2, ...rows.map((row) => batch.lengths[row]!));
  const pick = <T extends Float32Array | Int32Array>(
    source: T,
    make: (size: number) => T,
    width: number,
    sourceWidth: number,
  ): T => {
    const out = make(rows.length * width);
    rows.forEach((row, i) =>
      out.set(source.subarray(row * sourceWidth, row * sourceWidth + width), i * width),
    );
    return out;
  };
  const tokens = (source: Float32Array) => pick(source, (n) => new Float32Array(n), length - 1, from - 1);
  return {
    ids: pick(batch.ids, (n) => new Int32Array(n), length, from),
    targetMask: tokens(batch.targetMask),
    oldPerTokenLogps: tokens(batch.oldPerTokenLogps),
    lengths: Int32Array.from(rows, (row) => batch.lengths[row]!),
    batchSize: rows.length,
    length,
    ...(batch.advantages !== undefined
      ? { advantages: Float32Array.from(rows, (row) => batch.advantages![row]!) }
      : {}),
    ...(batch.refLogProbs !== undefined ? { refLogProbs: tokens(batch.refLogProbs) } : {}),
  };
}
