import * as tf from '@tensorflow/tfjs';
import { episodeSpecs, firstEditCounts, type EpisodeSpec, type Harness, type Task } from '../gym/index.ts';
import { rollout, type Agent, type EpisodeRecord } from '../agent/index.ts';
import type { Rng } from '../lib/rng.ts';
import { batchTensors, padBatch } from './batch.ts';
import { groupAdvantages, meanKl } from './grpo.ts';
import type { LossJob } from './jobs.ts';
import { optimizerStep, planStep } from './optimize.ts';
import type { DataParallelWorker } from './dataParallel.ts';
import type { RLConfig } from './config.ts';

export interface StepStats {
  meanReward: number;
  zeroAdvantageGroups: number;
  loss: number;
  kl: number;
  gradNorm: number;
  firstEditEntropy: number;
  rolloutSeconds: number;
  updateSeconds: number;
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

/** Plays the specs on one thread, or split with the data-parallel worker. Records in spec order. */
export function rolloutOnCores(
  agent: Agent,
  harness: Harness,
  tasks: readonly Task[],
  specs: readonly EpisodeSpec[],
  worker?: DataParallelWorker,
): Promise<EpisodeRecord[]> {
  return worker !== undefined
    ? worker.rollout(agent, harness, tasks, specs)
    : Promise.resolve(rollout(agent, harness, tasks, specs));
}

/**
 * One GRPO step: a group of `groupSize` episodes per training task at the harness temperature,
 * group-relative advantages, then `updateEpochs` clipped Adam steps on the clipped loss over the
 * policy's own tokens (groups whose rewards are all equal carry no gradient and are left out).
 */
export async function grpoStep(
  agent: Agent,
  optimizer: tf.Optimizer,
  config: RLConfig,
  harness: Harness,
  trainTasks: readonly Task[],
  rng: Rng,
  { reference, worker }: { reference?: Agent | undefined; worker?: DataParallelWorker | undefined } = {},
): Promise<StepStats> {
  const rolloutStart = performance.now();
  const records = await rolloutOnCores(
    agent,
    harness,
    trainTasks,
    episodeSpecs(trainTasks, config.groupSize, rng),
    worker,
  );
  const rolloutSeconds = (performance.now() - rolloutStart) / 1000;

  const rewards = records.map((record) => record.reward);
  const advantages = groupAdvantages(rewards, config.groupSize, { scaleRewards: config.scaleRewards });
  let zeroGroups = 0;
  for (let start = 0; start < advantages.length; start += config.groupSize) {
    if (advantages.slice(start, start + config.groupSize).every((a) => a === 0)) zeroGroups += 1;
  }

  const updateStart = performance.now();
  let loss = 0;
  let kl = 0;
  let gradNorm = 0;
  const useful = records.map((_, i) => i).filter((i) => advantages[i] !== 0 || config.klCoef > 0);
  if (useful.length > 0) {
    const batch = padBatch(
      useful.map((i) => records[i]!),
      agent.tokenizer.padId,
    );
    const refLogProbs =
      reference !== undefined && config.klCoef > 0
        ? tf.tidy(() => reference.model.tokenLogProbs(batchTensors(batch).ids).dataSync() as Float32Array)
        : undefined;
    const job: LossJob = {
      kind: 'grpo',
      batch,
      advantages: Float32Array.from(useful.map((i) => advantages[i]!)),
      clipEpsilon: config.clipEpsilon,
      klCoef: config.klCoef,
      entropyCoef: config.entropyCoef,
      ...(refLogProbs !== undefined ? { refLogProbs } : {}),
    };
    // Every epoch passes over the same rows in the same buckets: planned once.
    const plan = planStep(job, worker);
    for (let epoch = 0; epoch < config.updateEpochs; epoch += 1) {
      ({ loss, gradNorm } = await optimizerStep(agent, optimizer, job, {
        maxGradNorm: config.maxGradNorm,
        worker,
        plan,
      }));
    }
    if (refLogProbs !== undefined) {
      kl = tf.tidy(() => {
        const tensors = batchTensors(batch);
        const ref = tf.tensor2d(refLogProbs, [batch.batchSize, batch.length - 1]);
        return meanKl(agent.model.tokenLogProbs(tensors.ids), ref, tensors.targetMask);
      });
    }
  }
  return {
    meanReward: rewards.reduce((sum, r) => sum + r, 0) / rewards.length,
    zeroAdvantageGroups: zeroGroups / (advantages.length / config.groupSize),
    loss,
    kl,
    gradNorm,
    firstEditEntropy: firstEditEntropy(records),
    rolloutSeconds,
    updateSeconds: (performance.now() - updateStart) / 1000,
  };
}
