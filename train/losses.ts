import * as tf from '@tensorflow/tfjs';
import type { PolicyModel, Transcript } from '../agent/index.ts';

/**
 * A right-padded batch, shifted for next-token prediction: `ids` [B, T]; `targetMask`,
 * `oldPerTokenLogps` [B, T-1] where column t refers to the token at t+1 (the one predicted from
 * positions 0..t). Observation and header tokens get mask 0, so no loss ever reaches them.
 */
export interface PaddedBatch {
  ids: Int32Array;
  targetMask: Float32Array;
  oldPerTokenLogps: Float32Array;
  /** Each row's own token count (at most `length`; the rest is padding). */
  lengths: Int32Array;
  batchSize: number;
  length: number;
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
 * Group-relative advantages (GRPO, Shao et al. 2024, "DeepSeekMath", eq. 3; TRL's
 * `GRPOTrainer`): A_i = (r_i - mean(r_group)) / (std(r_group) + 1e-4), with the unbiased
 * (n - 1) std as torch.std computes it. `scaleRewards: false` keeps only the mean-centring
 * (Dr. GRPO's variant). A group whose rewards are all equal gets advantage 0 everywhere.
 * Throws when the rewards do not split into whole groups.
 *
 * @example groupAdvantages([1, 0, 0, 0], 4, { scaleRewards: false }) // [0.75, -0.25, -0.25, -0.25]
 */
export function groupAdvantages(
  rewards: readonly number[],
  groupSize: number,
  { scaleRewards }: { scaleRewards: boolean },
): number[] {
  if (groupSize < 1 || rewards.length % groupSize !== 0)
    throw new RangeError(
      `groupAdvantages: ${rewards.length} rewards do not split into groups of ${groupSize}`,
    );
  const advantages: number[] = [];
  for (let start = 0; start < rewards.length; start += groupSize) {
    const group = rewards.slice(start, start + groupSize);
    const mean = group.reduce((sum, r) => sum + r, 0) / groupSize;
    const variance = groupSize > 1 ? group.reduce((sum, r) => sum + (r - mean) ** 2, 0) / (groupSize - 1) : 0;
    const scale = scaleRewards ? Math.sqrt(variance) + 1e-4 : 1;
    for (const r of group) advantages.push((r - mean) / scale);
  }
  return advantages;
}

export interface GrpoInputs {
  ids: tf.Tensor2D; // [B, T] token ids
  targetMask: tf.Tensor2D; // [B, T-1] 1 on the policy's own tokens
  oldPerTokenLogps: tf.Tensor2D; // [B, T-1] log-probs when sampled
  advantages: tf.Tensor1D; // [B]
  refLogProbs?: tf.Tensor2D; // [B, T-1] reference policy, only when klCoef > 0
}

export interface GrpoOptions {
  clipEpsilon: number;
  klCoef: number;
  entropyCoef?: number;
}

/**
 * The clipped policy-gradient loss of GRPO, named as in TRL:
 *   ratio = exp(perTokenLogps - oldPerTokenLogps)
 *   perTokenLoss = -min(ratio * A, clip(ratio, 1 - eps, 1 + eps) * A) + beta * KL_k3
 *   KL_k3 = exp(ref - logp) - (ref - logp) - 1   (Schulman's k3 estimator, always >= 0)
 *   optionally - entropyCoef * H[pi(. | context)] at each action token (PPO's entropy bonus)
 *   loss = mean over sequences of the masked mean over the policy's tokens.
 * Only action tokens carry loss: observation tokens are masked out (targetMask 0).
 */
export function grpoLoss(model: PolicyModel, inputs: GrpoInputs, options: GrpoOptions): tf.Scalar {
  return tf.tidy(() => grpoTerms(model, inputs, options).loss);
}

/** `grpoLoss`, and for the log the count of the policy's tokens the clip binds on (`clippedTokens`). */
export function grpoTerms(
  model: PolicyModel,
  inputs: GrpoInputs,
  { clipEpsilon, klCoef, entropyCoef = 0 }: GrpoOptions,
): { loss: tf.Scalar; clippedTokens: tf.Scalar } {
  return tf.tidy(() => {
    // Only the policy's tokens carry loss, so the model computes its outputs there alone (`only`).
    const only = { only: inputs.targetMask.dataSync() };
    const stats = entropyCoef > 0 ? model.tokenStats(inputs.ids, only) : undefined;
    const perTokenLogps = stats?.logProbs ?? model.tokenLogProbs(inputs.ids, only); // [B, T-1]
    const ratio = tf.exp(tf.sub(perTokenLogps, inputs.oldPerTokenLogps));
    const advantages = tf.expandDims(inputs.advantages, 1); // [B, 1]
    const unclipped = tf.mul(ratio, advantages);
    const clipped = tf.mul(tf.clipByValue(ratio, 1 - clipEpsilon, 1 + clipEpsilon), advantages);
    let perTokenLoss: tf.Tensor = tf.neg(tf.minimum(unclipped, clipped));
    if (klCoef > 0 && inputs.refLogProbs !== undefined) {
      perTokenLoss = tf.add(perTokenLoss, tf.mul(perTokenKl(perTokenLogps, inputs.refLogProbs), klCoef));
    }
    // Entropy bonus (PPO's c2 * S[pi], Schulman et al. 2017, eq. 9): keeps every edit op in play
    // so that a type whose op the policy has stopped sampling can still be rediscovered.
    if (stats !== undefined) perTokenLoss = tf.sub(perTokenLoss, tf.mul(stats.entropy, entropyCoef));
    return {
      loss: maskedSequenceMean(perTokenLoss as tf.Tensor2D, inputs.targetMask),
      clippedTokens: clippedTokens(
        ratio as tf.Tensor2D,
        advantages as tf.Tensor2D,
        inputs.targetMask,
        clipEpsilon,
      ),
    };
  });
}

/**
 * How many of the policy's tokens the clip binds on: ratio > 1 + eps where A > 0, or
 * ratio < 1 - eps where A < 0. There `min(ratio * A, clip(ratio) * A)` takes the clipped term,
 * so the token carries no policy gradient. TRL's `is_region_clipped` (`GRPOTrainer._compute_loss`);
 * over the policy's tokens it is TRL's `clip_ratio/region_mean`, our `losses/clipRatio`.
 *
 * @example ratios [1.5, 0.5] under A = +1, and again under A = -1: 1.5 binds the first, 0.5 the second: 2
 */
export function clippedTokens(
  ratio: tf.Tensor2D, // [B, T-1]
  advantages: tf.Tensor2D, // [B, 1]
  targetMask: tf.Tensor2D, // [B, T-1]
  clipEpsilon: number,
): tf.Scalar {
  return tf.tidy(() => {
    const high = tf.logicalAnd(tf.greater(ratio, 1 + clipEpsilon), tf.greater(advantages, 0));
    const low = tf.logicalAnd(tf.less(ratio, 1 - clipEpsilon), tf.less(advantages, 0));
    return tf.sum(tf.mul(tf.cast(tf.logicalOr(high, low), 'float32'), targetMask)) as tf.Scalar;
  });
}

/** Behaviour-cloning loss: the negative log-likelihood of the demonstrator's action tokens. */
export function bcLoss(model: PolicyModel, ids: tf.Tensor2D, targetMask: tf.Tensor2D): tf.Scalar {
  return tf.tidy(() =>
    tf.neg(maskedSequenceMean(model.tokenLogProbs(ids, { only: targetMask.dataSync() }), targetMask)),
  );
}

/** Mean k3 KL (policy vs reference) over the policy's tokens, for the log. */
export function meanKl(
  perTokenLogps: tf.Tensor2D,
  refLogProbs: tf.Tensor2D,
  targetMask: tf.Tensor2D,
): number {
  return tf.tidy(() => maskedSequenceMean(perTokenKl(perTokenLogps, refLogProbs), targetMask).dataSync()[0]!);
}

/** Schulman's k3 estimator of KL(policy || reference) per token: exp(d) - d - 1, d = ref - logp (>= 0). */
function perTokenKl(perTokenLogps: tf.Tensor2D, refLogProbs: tf.Tensor2D): tf.Tensor2D {
  const delta = tf.sub(refLogProbs, perTokenLogps);
  return tf.sub(tf.sub(tf.exp(delta), delta), 1) as tf.Tensor2D;
}

/**
 * A loss over a padded batch, as plain data so that half of it can be sent to a worker thread:
 * behaviour cloning (no clip, no advantages), or GRPO with per-sequence advantages (and
 * reference log-probs for the KL).
 */
export type LossJob = BcJob | GrpoJob;

export interface BcJob {
  kind: 'bc';
  batch: PaddedBatch;
}

export interface GrpoJob extends GrpoOptions {
  kind: 'grpo';
  batch: PaddedBatch;
  advantages: Float32Array; // [B]
  refLogProbs?: Float32Array; // [B, T-1], only when klCoef > 0
}

/** The job's scalar loss (a mean over its sequences). Call inside tf.tidy or variableGrads. */
export function jobLoss(model: PolicyModel, job: LossJob): tf.Scalar {
  return jobTerms(model, job).loss;
}

/** The job's loss and the count of tokens its clip binds on (none for behaviour cloning). */
function jobTerms(model: PolicyModel, job: LossJob): { loss: tf.Scalar; clippedTokens?: tf.Scalar } {
  const { ids, targetMask, oldPerTokenLogps } = batchTensors(job.batch);
  if (job.kind === 'bc') return { loss: bcLoss(model, ids, targetMask) };
  const { batchSize, length } = job.batch;
  const refLogProbs =
    job.refLogProbs !== undefined ? tf.tensor2d(job.refLogProbs, [batchSize, length - 1]) : undefined;
  const inputs = {
    ids,
    targetMask,
    oldPerTokenLogps,
    advantages: tf.tensor1d(job.advantages),
    ...(refLogProbs !== undefined ? { refLogProbs } : {}),
  };
  return grpoTerms(model, inputs, job);
}

/** Some rows of a job, trimmed to their own longest row, and their share of the whole job's rows. */
export interface JobPart {
  job: LossJob;
  /** rows of this part / rows of the whole job: the part's mean loss times this is its share of the job's mean. */
  weight: number;
}

/** The weighted sum of the parts' losses (the job's mean loss when the parts cover it). Call inside tf.tidy or variableGrads. */
export function partsLoss(model: PolicyModel, parts: readonly JobPart[]): tf.Scalar {
  return partsTerms(model, parts).loss;
}

function partsTerms(
  model: PolicyModel,
  parts: readonly JobPart[],
): { loss: tf.Scalar; clippedTokens: number } {
  if (parts.length === 0) return { loss: tf.scalar(0), clippedTokens: 0 };
  const terms = parts.map((part) => jobTerms(model, part.job));
  const loss = tf.addN(terms.map((term, i) => tf.mul(term.loss, parts[i]!.weight))) as tf.Scalar;
  const clippedTokens = terms.reduce((sum, term) => sum + (term.clippedTokens?.dataSync()[0] ?? 0), 0);
  return { loss, clippedTokens };
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
    const terms = partsTerms(model, parts);
    clippedTokens = terms.clippedTokens;
    return terms.loss;
  }, model.variables());
  const loss = value.dataSync()[0]!;
  value.dispose();
  const policyTokens = parts.reduce(
    (sum, part) => sum + part.job.batch.targetMask.reduce((a, m) => a + m, 0),
    0,
  );
  return { loss, grads, clippedTokens, policyTokens };
}
