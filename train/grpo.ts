import * as tf from '@tensorflow/tfjs';
import type { PolicyModel } from '../agent/index.ts';
import { maskedSequenceMean } from './batch.ts';

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

/**
 * The clipped policy-gradient loss of GRPO, named as in TRL:
 *   ratio = exp(perTokenLogps - oldPerTokenLogps)
 *   perTokenLoss = -min(ratio * A, clip(ratio, 1 - eps, 1 + eps) * A) + beta * KL_k3
 *   KL_k3 = exp(ref - logp) - (ref - logp) - 1   (Schulman's k3 estimator, always >= 0)
 *   optionally - entropyCoef * H[pi(. | context)] at each action token (PPO's entropy bonus)
 *   loss = mean over sequences of the masked mean over the policy's tokens.
 * Only action tokens carry loss: observation tokens are masked out (targetMask 0).
 */
export function grpoLoss(
  model: PolicyModel,
  inputs: GrpoInputs,
  { clipEpsilon, klCoef, entropyCoef = 0 }: { clipEpsilon: number; klCoef: number; entropyCoef?: number },
): tf.Scalar {
  return tf.tidy(() => {
    const stats = entropyCoef > 0 ? model.tokenStats(inputs.ids) : undefined;
    const perTokenLogps = stats?.logProbs ?? model.tokenLogProbs(inputs.ids); // [B, T-1]
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
    return maskedSequenceMean(perTokenLoss as tf.Tensor2D, inputs.targetMask);
  });
}

/** Behaviour-cloning loss: the negative log-likelihood of the demonstrator's action tokens. */
export function bcLoss(model: PolicyModel, ids: tf.Tensor2D, targetMask: tf.Tensor2D): tf.Scalar {
  return tf.tidy(() => tf.neg(maskedSequenceMean(model.tokenLogProbs(ids), targetMask)));
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
