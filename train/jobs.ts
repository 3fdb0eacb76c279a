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
  const refLogProbs = job.refLogProbs !== undefined ? tf.tensor2d(job.refLogProbs, [batchSize, length - 1]) : undefined;
  const inputs = { ids, targetMask, oldPerTokenLogps, advantages, ...(refLogProbs !== undefined ? { refLogProbs } : {}) };
  return grpoLoss(model, inputs, job);
}

/** Splits a job by rows: [0, cut) and [cut, B). Both halves keep the batch's padded length. */
export function splitJob(job: LossJob, cut: number): [LossJob, LossJob] {
  const { batchSize, length } = job.batch;
  const part = (from: number, to: number): LossJob => {
    const rows = to - from;
    const batch: PaddedBatch = {
      ids: job.batch.ids.slice(from * length, to * length),
      targetMask: job.batch.targetMask.slice(from * (length - 1), to * (length - 1)),
      oldPerTokenLogps: job.batch.oldPerTokenLogps.slice(from * (length - 1), to * (length - 1)),
      batchSize: rows,
      length,
    };
    return {
      kind: job.kind, batch, clipEpsilon: job.clipEpsilon, klCoef: job.klCoef, ...(job.entropyCoef !== undefined ? { entropyCoef: job.entropyCoef } : {}),
      ...(job.advantages !== undefined ? { advantages: job.advantages.slice(from, to) } : {}),
      ...(job.refLogProbs !== undefined ? { refLogProbs: job.refLogProbs.slice(from * (length - 1), to * (length - 1)) } : {}),
    };
  };
  if (cut <= 0 || cut >= batchSize) throw new RangeError(`splitJob: cut ${cut} outside (0, ${batchSize})`);
  return [part(0, cut), part(cut, batchSize)];
}

/** Loss and gradients of a job as plain arrays, in the model's variable order (worker side). */
export function jobGradients(model: PolicyModel, job: LossJob): { loss: number; grads: Float32Array[] } {
  return tf.tidy(() => {
    const variables = model.variables();
    const { value, grads } = tf.variableGrads(() => jobLoss(model, job), variables);
    return { loss: value.dataSync()[0]!, grads: variables.map((variable) => Float32Array.from(grads[variable.name]!.dataSync() as Float32Array)) };
  });
}
