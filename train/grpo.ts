import * as tf from '@tensorflow/tfjs';
import { episodeSpecs, firstEditCounts, type Harness, type Task } from '../gym/index.ts';
import type { Agent, EpisodeRecord } from '../agent/index.ts';
import type { Rng } from '../lib/rng.ts';
import { batchTensors, groupAdvantages, meanKl, padBatch, type GrpoJob, type PaddedBatch } from './losses.ts';
import { oneThread, optimizerStep, type Compute } from './compute.ts';
import type { Optimizer } from './optimizer.ts';
import type { RLConfig } from './config.ts';

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
 * group-relative advantages, then `updateEpochs` clipped Adam steps on the clipped loss over the
 * policy's own tokens (groups whose rewards are all equal carry no gradient and are left out).
 * `compute` says where the work runs (one thread by default, or `twoThreads`).
 */
export async function grpoStep(
  agent: Agent,
  optimizer: Optimizer,
  config: RLConfig,
  harness: Harness,
  trainTasks: readonly Task[],
  rng: Rng,
  { reference, compute = oneThread() }: { reference?: Agent | undefined; compute?: Compute } = {},
): Promise<StepStats> {
  // Rollout: the current policy plays every task groupSize times.
  const rolloutStart = performance.now();
  const specs = episodeSpecs(trainTasks, config.groupSize, rng);
  const records = await compute.rollout(agent, harness, trainTasks, specs);
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
    const job = grpoJob(
      useful.map((i) => records[i]!),
      useful.map((i) => advantages[i]!),
      config,
      { padId: agent.tokenizer.padId, reference },
    );
    for (let epoch = 0; epoch < config.updateEpochs; epoch += 1) {
      const step = await optimizerStep(agent, optimizer, job, { compute, maxGradNorm: config.maxGradNorm });
      ({ loss, gradNorm } = step);
      clippedTokens += step.clippedTokens;
      policyTokens += step.policyTokens;
    }
    if (job.refLogProbs !== undefined) kl = klToReference(agent, job.batch, job.refLogProbs);
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

/** The loss job of a step's rollouts: their transcripts, advantages, and the reference's log-probs when the KL is on. */
function grpoJob(
  records: readonly EpisodeRecord[],
  advantages: readonly number[],
  config: RLConfig,
  { padId, reference }: { padId: number; reference: Agent | undefined },
): GrpoJob {
  const batch = padBatch(records, padId);
  const refLogProbs =
    reference !== undefined && config.klCoef > 0
      ? tf.tidy(() => reference.model.tokenLogProbs(batchTensors(batch).ids).dataSync() as Float32Array)
      : undefined;
  return {
    kind: 'grpo',
    batch,
    advantages: Float32Array.from(advantages),
    clipEpsilon: config.clipEpsilon,
    klCoef: config.klCoef,
    entropyCoef: config.entropyCoef,
    ...(refLogProbs !== undefined ? { refLogProbs } : {}),
  };
}

/** Mean k3 KL of the updated policy to the reference over the batch's policy tokens. */
function klToReference(agent: Agent, batch: PaddedBatch, refLogProbs: Float32Array): number {
  return tf.tidy(() => {
    const tensors = batchTensors(batch);
    const ref = tf.tensor2d(refLogProbs, [batch.batchSize, batch.length - 1]);
    return meanKl(agent.model.tokenLogProbs(tensors.ids), ref, tensors.targetMask);
  });
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
