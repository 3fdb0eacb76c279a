import * as tf from '@tensorflow/tfjs';
import { episodeSpecs, firstEditCounts, type Harness, type Task } from '../gym/index.ts';
import { rollout, type Agent, type EpisodeRecord, type Play, type PolicyModel } from '../agent/index.ts';
import type { Rng } from '../lib/rng.ts';
import { batchTensors, maskedSequenceMean, padBatch, selectRows, type PaddedBatch } from './batch.ts';
import type { RLConfig } from './config.ts';

export type GrpoOptions = Pick<RLConfig, 'clipEpsilon' | 'klCoef' | 'entropyCoef'>;

/** GRPO's loss over a padded batch (with its `advantages`, and `refLogProbs` when the KL is on), as plain data a worker thread can take. */
export interface GrpoJob {
  kind: 'grpo';
  batch: PaddedBatch;
  options: GrpoOptions;
}

/** One optimizer step's numbers for the log. */
export interface UpdateResult {
  loss: number;
  gradNorm: number;
  /** Policy tokens the clip bound on in this step's forward pass, and all policy tokens. */
  clippedTokens: number;
  policyTokens: number;
}

/** One optimizer step on a job's loss, wherever its gradients are computed (`optimizerStep` in ./compute.ts). */
export type Update = (job: GrpoJob) => Promise<UpdateResult>;

export interface StepStats {
  meanReward: number;
  zeroAdvantageGroups: number;
  loss: number;
  kl: number;
  gradNorm: number;
  /** Share of the policy's tokens the clip bound on, over the update epochs; null when nothing was updated. */
  clipRatio: number | null;
  firstEditEntropy: number;
  rolloutSeconds: number;
  updateSeconds: number;
}

/**
 * One GRPO step: a group of `groupSize` episodes per training task at the harness temperature,
 * group-relative advantages, then `updateEpochs` passes of optimizer steps (`update`) on `grpoLoss`
 * over the policy's own tokens, one per pass or, with `minibatchSize`, one per minibatch (groups
 * whose rewards are all equal carry no gradient and are left out).
 */
export async function grpoStep(
  agent: Agent,
  config: RLConfig,
  harness: Harness,
  trainTasks: readonly Task[],
  rng: Rng,
  { reference, play = rollout, update }: { reference?: Agent | undefined; play?: Play; update: Update },
): Promise<StepStats> {
  // Rollout: the current policy plays every task groupSize times.
  const rolloutStart = performance.now();
  const records = await play(agent, harness, trainTasks, episodeSpecs(trainTasks, config.groupSize, rng));
  const rolloutSeconds = (performance.now() - rolloutStart) / 1000;

  // Advantages, relative to each task's group.
  const rewards = records.map((record) => record.reward);
  const advantages = groupAdvantages(rewards, config.groupSize, { scaleRewards: config.scaleRewards });
  let zeroGroups = 0;
  for (let start = 0; start < advantages.length; start += config.groupSize) {
    if (advantages.slice(start, start + config.groupSize).every((a) => a === 0)) zeroGroups += 1;
  }

  // updateEpochs optimizer steps on the same rollouts (the clip binds from the second on).
  const updateStart = performance.now();
  let loss = 0;
  let kl = 0;
  let gradNorm = 0;
  let clippedTokens = 0;
  let policyTokens = 0;
  const useful = records.map((_, i) => i).filter((i) => advantages[i] !== 0 || config.klCoef > 0);
  if (useful.length > 0) {
    const batch = padBatch(
      useful.map((i) => records[i]!),
      agent.tokenizer.padId,
    );
    batch.advantages = Float32Array.from(useful, (i) => advantages[i]!);
    if (reference !== undefined && config.klCoef > 0)
      batch.refLogProbs = tf.tidy(
        () => reference.model.tokenLogProbs(batchTensors(batch).ids).dataSync() as Float32Array,
      );
    const { clipEpsilon, klCoef, entropyCoef } = config;
    const job: GrpoJob = { kind: 'grpo', batch, options: { clipEpsilon, klCoef, entropyCoef } };
    for (let epoch = 0; epoch < config.updateEpochs; epoch += 1) {
      for (const part of minibatches(job, config.minibatchSize, rng.fork(`minibatches/${epoch}`))) {
        const step = await update(part);
        ({ loss, gradNorm } = step);
        clippedTokens += step.clippedTokens;
        policyTokens += step.policyTokens;
      }
    }
    if (batch.refLogProbs !== undefined) kl = klToReference(agent.model, batch, batch.refLogProbs);
  }

  // Stats for the log.
  return {
    meanReward: rewards.reduce((sum, r) => sum + r, 0) / rewards.length,
    zeroAdvantageGroups: zeroGroups / (advantages.length / config.groupSize),
    loss,
    kl,
    gradNorm,
    clipRatio: policyTokens > 0 ? clippedTokens / policyTokens : null,
    firstEditEntropy: firstEditEntropy(records),
    rolloutSeconds,
    updateSeconds: (performance.now() - updateStart) / 1000,
  };
}

/**
 * The training tasks that GRPO step `step` (from 1) plays: all of them in their own order, or
 * with `tasksPerStep` the next ones of the run's task order, a sequence of passes over the tasks,
 * each a permutation drawn from `rng` (`task-order/pass-P`), so a step may end one pass and begin
 * the next and every task is played once per pass. A function of the step alone: a run resumed
 * at any segment, or run without segments, plays the same tasks.
 */
export function stepTasks(
  tasks: readonly Task[],
  tasksPerStep: number | undefined,
  rng: Rng,
  step: number,
): Task[] {
  if (tasksPerStep === undefined) return [...tasks];
  const passes = new Map<number, Task[]>();
  const pass = (index: number) => {
    if (!passes.has(index)) passes.set(index, rng.fork(`task-order/pass-${index}`).shuffled(tasks));
    return passes.get(index)!;
  };
  return Array.from({ length: tasksPerStep }, (_, i) => {
    const position = (step - 1) * tasksPerStep + i;
    return pass(Math.floor(position / tasks.length))[position % tasks.length]!;
  });
}

/**
 * An update epoch's jobs: the whole job, or with `minibatchSize` its rows in an order shuffled by
 * `rng`, cut into minibatches of that many (the last may be smaller), each padded to its own
 * longest row.
 */
function minibatches(job: GrpoJob, minibatchSize: number | undefined, rng: Rng): GrpoJob[] {
  if (minibatchSize === undefined) return [job];
  const order = rng.shuffled(Array.from({ length: job.batch.batchSize }, (_, row) => row));
  const parts: GrpoJob[] = [];
  for (let start = 0; start < order.length; start += minibatchSize)
    parts.push({ ...job, batch: selectRows(job.batch, order.slice(start, start + minibatchSize)) });
  return parts;
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

/**
 * The clipped policy-gradient loss of GRPO, named as in TRL:
 *   ratio = exp(perTokenLogps - oldPerTokenLogps)
 *   perTokenLoss = -min(ratio * A, clip(ratio, 1 - eps, 1 + eps) * A) + beta * KL_k3
 *   KL_k3 = exp(ref - logp) - (ref - logp) - 1   (Schulman's k3 estimator, always >= 0)
 *   optionally - entropyCoef * H[pi(. | context)] at each action token (PPO's entropy bonus)
 *   loss = mean over sequences of the masked mean over the policy's tokens.
 * Only action tokens carry loss: observation tokens are masked out (targetMask 0). Beside the
 * loss, for the log, the count of the policy's tokens the clip binds on (`clippedTokens`).
 * Call inside tf.tidy or tf.variableGrads.
 */
export function grpoLoss(
  model: PolicyModel,
  { batch, options }: GrpoJob,
): { loss: tf.Scalar; clippedTokens: tf.Scalar } {
  const { clipEpsilon, klCoef, entropyCoef } = options;
  const { ids, targetMask, oldPerTokenLogps } = batchTensors(batch);
  if (batch.advantages === undefined) throw new RangeError('grpoLoss: the batch has no advantages');
  const refLogProbs = batch.refLogProbs === undefined ? undefined : refTensor(batch, batch.refLogProbs);
  return tf.tidy(() => {
    // Only the policy's tokens carry loss, so the model computes its outputs there alone (`only`).
    const only = { only: targetMask.dataSync() };
    const stats = entropyCoef > 0 ? model.tokenStats(ids, only) : undefined;
    const perTokenLogps = stats?.logProbs ?? model.tokenLogProbs(ids, only); // [B, T-1]
    const ratio = tf.exp(tf.sub(perTokenLogps, oldPerTokenLogps));
    const advantages = tf.expandDims(tf.tensor1d(batch.advantages!), 1); // [B, 1]
    const unclipped = tf.mul(ratio, advantages);
    const clipped = tf.mul(tf.clipByValue(ratio, 1 - clipEpsilon, 1 + clipEpsilon), advantages);
    let perTokenLoss: tf.Tensor = tf.neg(tf.minimum(unclipped, clipped));
    if (klCoef > 0 && refLogProbs !== undefined) {
      perTokenLoss = tf.add(perTokenLoss, tf.mul(perTokenKl(perTokenLogps, refLogProbs), klCoef));
    }
    // Entropy bonus (PPO's c2 * S[pi], Schulman et al. 2017, eq. 9): keeps every edit op in play
    // so that a type whose op the policy has stopped sampling can still be rediscovered.
    if (stats !== undefined) perTokenLoss = tf.sub(perTokenLoss, tf.mul(stats.entropy, entropyCoef));
    return {
      loss: maskedSequenceMean(perTokenLoss as tf.Tensor2D, targetMask),
      clippedTokens: clippedTokens(ratio as tf.Tensor2D, advantages as tf.Tensor2D, targetMask, clipEpsilon),
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
function clippedTokens(
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

/** Schulman's k3 estimator of KL(policy || reference) per token: exp(d) - d - 1, d = ref - logp (>= 0). */
function perTokenKl(perTokenLogps: tf.Tensor2D, refLogProbs: tf.Tensor2D): tf.Tensor2D {
  const delta = tf.sub(refLogProbs, perTokenLogps);
  return tf.sub(tf.sub(tf.exp(delta), delta), 1) as tf.Tensor2D;
}

/** Mean k3 KL of the updated policy to the reference over the batch's policy tokens, for the log. */
function klToReference(model: PolicyModel, batch: PaddedBatch, refLogProbs: Float32Array): number {
  return tf.tidy(() => {
    const tensors = batchTensors(batch);
    const kl = perTokenKl(model.tokenLogProbs(tensors.ids), refTensor(batch, refLogProbs));
    return maskedSequenceMean(kl, tensors.targetMask).dataSync()[0]!;
  });
}

/** The reference's log-probabilities [B, T-1] of a batch's tokens. */
function refTensor(batch: PaddedBatch, refLogProbs: Float32Array): tf.Tensor2D {
  return tf.tensor2d(refLogProbs, [batch.batchSize, batch.length - 1]);
}

/** Shannon entropy (nats) of the empirical distribution of the first edit op (no edit counts as its own outcome). */
export function firstEditEntropy(records: readonly EpisodeRecord[]): number {
  let entropy = 0;
  for (const count of Object.values(firstEditCounts(records))) {
    const p = count / records.length;
    entropy -= p * Math.log(p);
  }
  return entropy;
}
