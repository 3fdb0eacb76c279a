import * as tf from '@tensorflow/tfjs';
import type { PolicyModel } from '../agent/index.ts';
import { batchTensors, type PaddedBatch } from './batch.ts';
import { bcLoss, grpoLoss } from './grpo.ts';

/**
 * A loss over a padded batch, as plain data so that half of it can be sent to a worker thread:
 * behaviour cloning, or GRPO with per-sequence advantages (and reference log-probs for the KL).
 */
export interface LossJob {
  kind: 'bc' | 'grpo';
  batch: PaddedBatch;
  advantages?: Float32Array; // [B], grpo only
  refLogProbs?: Float32Array; // [B, T-1], only when klCoef > 0
  clipEpsilon: number;
  klCoef: number;
  entropyCoef?: number;
}

/** The job's scalar loss (a mean over its sequences). Call inside tf.tidy or variableGrads. */
export function jobLoss(model: PolicyModel, job: LossJob): tf.Scalar {
  const { ids, targetMask, oldPerTokenLogps } = batchTensors(job.batch);
  if (job.kind === 'bc') return bcLoss(model, ids, targetMask);
  const { batchSize, length } = job.batch;
  const advantages = tf.tensor1d(job.advantages ?? new Float32Array(batchSize));
  const refLogProbs =
    job.refLogProbs !== undefined ? tf.tensor2d(job.refLogProbs, [batchSize, length - 1]) : undefined;
  const inputs = {
    ids,
    targetMask,
    oldPerTokenLogps,
    advantages,
    ...(refLogProbs !== undefined ? { refLogProbs } : {}),
  };
  return grpoLoss(model, inputs, job);
}

/** Some rows of a job, trimmed to their own longest row, and their share of the whole job's rows. */
export interface JobPart {
  job: LossJob;
  /** rows of this part / rows of the whole job: the part's mean loss times this is its share of the job's mean. */
  weight: number;
}

/**
 * The job restricted to `rows` (indices into its batch, in that order), padded only to the
 * longest of them. Padding never reaches a loss (mask 0) and attention is causal, so a row's
 * terms do not depend on how far the batch around it is padded (up to float rounding).
 */
export function selectRows(job: LossJob, rows: readonly number[]): LossJob {
  const { batchSize, length: from } = job.batch;
  if (rows.length === 0) throw new RangeError('selectRows: no rows');
  for (const row of rows)
    if (!Number.isInteger(row) || row < 0 || row >= batchSize)
      throw new RangeError(`selectRows: row ${row} outside [0, ${batchSize})`);
  const length = Math.max(2, ...rows.map((row) => job.batch.lengths[row]!));
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
  const batch: PaddedBatch = {
    ids: pick(job.batch.ids, (n) => new Int32Array(n), length, from),
    targetMask: pick(job.batch.targetMask, (n) => new Float32Array(n), length - 1, from - 1),
    oldPerTokenLogps: pick(job.batch.oldPerTokenLogps, (n) => new Float32Array(n), length - 1, from - 1),
    lengths: Int32Array.from(rows, (row) => job.batch.lengths[row]!),
    batchSize: rows.length,
    length,
  };
  return {
    kind: job.kind,
    batch,
    clipEpsilon: job.clipEpsilon,
    klCoef: job.klCoef,
    ...(job.entropyCoef !== undefined ? { entropyCoef: job.entropyCoef } : {}),
    ...(job.advantages !== undefined
      ? { advantages: Float32Array.from(rows, (row) => job.advantages![row]!) }
      : {}),
    ...(job.refLogProbs !== undefined
      ? { refLogProbs: pick(job.refLogProbs, (n) => new Float32Array(n), length - 1, from - 1) }
      : {}),
  };
}

/**
 * How the cost of a forward and backward pass grows, in tokens, measured on wasm (bench/model.ts
 * shapes): a pass over R rows of T tokens costs about R * T * (1 + T / 220) (attention's share
 * grows with T), plus about 128 tokens' worth of fixed cost per pass (kernel dispatch and
 * allocation). These only decide how rows are grouped, which moves results by float rounding.
 */
const BUCKET_COST = { attentionTokens: 220, passTokens: 128 } as const;

function passCost(rows: number, length: number): number {
  return rows * length * (1 + length / BUCKET_COST.attentionTokens) + BUCKET_COST.passTokens;
}

/**
 * Splits rows sorted by length into contiguous buckets that minimise the summed `passCost`
 * (dynamic programming over the cut points). Returns the buckets, shortest rows first.
 */
export function lengthBuckets(sortedRows: readonly number[], lengths: ArrayLike<number>): number[][] {
  const n = sortedRows.length;
  if (n === 0) return [];
  const best = new Float64Array(n + 1).fill(Infinity);
  const cut = new Int32Array(n + 1);
  best[0] = 0;
  for (let end = 1; end <= n; end += 1) {
    const longest = Math.max(2, lengths[sortedRows[end - 1]!]!);
    for (let start = 0; start < end; start += 1) {
      const cost = best[start]! + passCost(end - start, longest);
      if (cost < best[end]!) {
        best[end] = cost;
        cut[end] = start;
      }
    }
  }
  const buckets: number[][] = [];
  for (let end = n; end > 0; end = cut[end]!) buckets.unshift(sortedRows.slice(cut[end]!, end));
  return buckets;
}

/**
 * The work of a job, planned for `shards` threads: rows are sorted by length (ties by index)
 * and dealt in turn to the shards, so each shard gets a like mix of lengths; each shard's rows
 * are then grouped into length buckets, each padded only to its own longest row, which removes
 * the work (not just the time) that padding to the batch's longest row costs. The weights of
 * all parts sum to 1, so the weighted sum of the parts' mean losses is the job's mean loss.
 * A fixed function of the job, so a run stays deterministic.
 */
export function planJob(job: LossJob, shards: number): JobPart[][] {
  if (!Number.isInteger(shards) || shards < 1)
    throw new RangeError(`planJob: shards must be a positive integer, got ${shards}`);
  const { batchSize, lengths } = job.batch;
  const sorted = Array.from({ length: batchSize }, (_, row) => row).sort(
    (a, b) => lengths[a]! - lengths[b]! || a - b,
  );
  return Array.from({ length: shards }, (_, shard) => {
    const mine = sorted.filter((_, rank) => rank % shards === shard);
    return lengthBuckets(mine, lengths).map((rows) => ({
      job: selectRows(job, rows),
      weight: rows.length / batchSize,
    }));
  });
}

/** The weighted sum of the parts' losses (the job's mean loss when the parts cover it). Call inside tf.tidy or variableGrads. */
export function partsLoss(model: PolicyModel, parts: readonly JobPart[]): tf.Scalar {
  if (parts.length === 0) return tf.scalar(0);
  return tf.addN(parts.map((part) => tf.mul(jobLoss(model, part.job), part.weight))) as tf.Scalar;
}

/** Loss and gradients of the parts' weighted loss as plain arrays, in the model's variable order (worker side). */
export function partsGradients(
  model: PolicyModel,
  parts: readonly JobPart[],
): { loss: number; grads: Float32Array[] } {
  return tf.tidy(() => {
    const variables = model.variables();
    const { value, grads } = tf.variableGrads(() => partsLoss(model, parts), variables);
    return {
      loss: value.dataSync()[0]!,
      grads: variables.map((variable) => Float32Array.from(grads[variable.name]!.dataSync() as Float32Array)),
    };
  });
}
