import * as tf from '@tensorflow/tfjs';
import type { PolicyModel } from '../agent/index.ts';
import { selectRows } from './batch.ts';
import { bcLoss, type BcJob } from './bc.ts';
import { grpoLoss, type GrpoJob } from './grpo.ts';

/**
 * The gradients of a job on this thread (./compute.ts runs them on one thread or two). A job is a loss over a padded batch, as plain
 * data so that part of it can be sent to a worker thread: behaviour cloning's (./bc.ts) or
 * GRPO's (./grpo.ts). Its rows are planned into length buckets (`planJob`), each bucket's loss
 * weighted by its share of the rows, so the weighted sum is the whole batch's mean loss.
 */
export type LossJob = BcJob | GrpoJob;

/** Some rows of a job, trimmed to their own longest row, and their share of the whole job's rows. */
export interface JobPart {
  job: LossJob;
  /** rows of this part / rows of the whole job: the part's mean loss times this is its share of the job's mean. */
  weight: number;
}

/** A share's parts, or undefined when the share has no rows (a batch smaller than the threads): such a share is left out of the sum, not added as zeros. */
export function nonEmpty(parts: readonly JobPart[] | undefined): readonly JobPart[] | undefined {
  return parts !== undefined && parts.length > 0 ? parts : undefined;
}

/** What one thread computes for an optimizer step: loss, gradients, and the clip's token counts for the log. */
export interface PartsGradients {
  loss: number;
  /** One tensor per model variable, by name; the caller disposes them. */
  grads: tf.NamedTensorMap;
  /** Policy tokens the clip binds on (`clippedTokens`), and all policy tokens: their ratio is `losses/clipRatio`. */
  clippedTokens: number;
  policyTokens: number;
}

/**
 * Loss and gradient of the parts' weighted loss, on this thread. The clip count is read inside
 * the forward pass: it is not on the loss's path, so the gradient is the loss's alone.
 */
export function partsGradients(model: PolicyModel, parts: readonly JobPart[]): PartsGradients {
  let clippedTokens = 0;
  const { value, grads } = tf.variableGrads(() => {
    if (parts.length === 0) return tf.scalar(0);
    // Each part's loss (a mean over its rows), and the tokens its clip binds on where it has one.
    const terms: Array<{ loss: tf.Scalar; clippedTokens?: tf.Scalar }> = parts.map(({ job }) =>
      job.kind === 'bc' ? bcLoss(model, job) : grpoLoss(model, job),
    );
    clippedTokens = terms.reduce((sum, term) => sum + (term.clippedTokens?.dataSync()[0] ?? 0), 0);
    return tf.addN(terms.map((term, i) => tf.mul(term.loss, parts[i]!.weight))) as tf.Scalar;
  }, model.variables());
  const loss = value.dataSync()[0]!;
  value.dispose();
  const policyTokens = parts.reduce(
    (sum, part) => sum + part.job.batch.targetMask.reduce((a, m) => a + m, 0),
    0,
  );
  return { loss, grads, clippedTokens, policyTokens };
}

/** The first share's gradients as plain arrays, in the model's variable order: what the worker thread sends back. */
export interface ShareGradients extends Omit<PartsGradients, 'grads'> {
  grads: Float32Array[];
}

/** `partsGradients` of the first share, copied out of its tensors (which are disposed). */
export function shareGradients(model: PolicyModel, parts: readonly JobPart[]): ShareGradients {
  const { grads, ...counts } = partsGradients(model, parts);
  const arrays = model
    .variables()
    .map((variable) => Float32Array.from(grads[variable.name]!.dataSync() as Float32Array));
  tf.dispose(Object.values(grads));
  return { ...counts, grads: arrays };
}

/**
 * The two shares' sum, the first share's gradient added to the second's, variable by variable:
 * one sum whether the first share was computed on the worker thread or on this one, so a job
 * planned for two threads (`planJob(job, 2)`) gives the same bits either way. Returns tensors the
 * caller disposes; `second`'s are disposed here when they were added to.
 */
export function addShares(
  model: PolicyModel,
  first: ShareGradients | undefined,
  second: PartsGradients | undefined,
): PartsGradients {
  if (first === undefined && second === undefined) throw new RangeError('addShares: no rows in either share');
  const grads: tf.NamedTensorMap = {};
  model.variables().forEach((variable, i) => {
    const mine = second?.grads[variable.name];
    grads[variable.name] =
      first === undefined
        ? mine!
        : tf.tidy(() => {
            const theirs = tf.tensor(first.grads[i]!, variable.shape);
            return mine === undefined ? theirs : tf.add(theirs, mine);
          });
    if (first !== undefined) mine?.dispose();
  });
  return {
    loss: (first?.loss ?? 0) + (second?.loss ?? 0),
    grads,
    clippedTokens: (first?.clippedTokens ?? 0) + (second?.clippedTokens ?? 0),
    policyTokens: (first?.policyTokens ?? 0) + (second?.policyTokens ?? 0),
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
 * A fixed function of the job (planning 160 rows takes well under a millisecond, so it is
 * planned anew for each optimizer step), so a run stays deterministic.
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
      job: { ...job, batch: selectRows(job.batch, rows) },
      weight: rows.length / batchSize,
    }));
  });
}
