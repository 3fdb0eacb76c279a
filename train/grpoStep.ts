import * as tf from '@tensorflow/tfjs';
import type { Harness, Task } from '../gym/index.ts';
import { rollout, type Agent, type EpisodeRecord, type EpisodeSpec } from '../agent/index.ts';
import type { Rng } from '../lib/rng.ts';
import { batchTensors, padBatch } from './batch.ts';
import { groupAdvantages, grpoLoss, meanKl } from './grpo.ts';
import type { RLConfig } from './config.ts';

export interface StepStats {
  meanReward: number;
  zeroAdvantageGroups: number;
  loss: number;
  kl: number;
  firstEditEntropy: number;
  rolloutSeconds: number;
  updateSeconds: number;
}

/** Shannon entropy (nats) of the empirical distribution of the first edit op (no edit counts as its own outcome). */
export function firstEditEntropy(records: readonly EpisodeRecord[]): number {
  const counts = new Map<string, number>();
  for (const record of records) counts.set(record.firstEditOp ?? '(none)', (counts.get(record.firstEditOp ?? '(none)') ?? 0) + 1);
  let entropy = 0;
  for (const count of counts.values()) {
    const p = count / records.length;
    entropy -= p * Math.log(p);
  }
  return entropy;
}

/**
 * One GRPO step: a group of `groupSize` episodes per training task at the harness temperature,
 * group-relative advantages, then `updateEpochs` Adam steps on the clipped loss over the policy's
 * own tokens. Returns what the run log records.
 */
export function grpoStep(agent: Agent, optimizer: tf.Optimizer, config: RLConfig, harness: Harness, trainTasks: readonly Task[], rng: Rng, reference?: Agent): StepStats {
  const rolloutStart = performance.now();
  const specs: EpisodeSpec[] = [];
  for (const task of trainTasks) {
    for (let g = 0; g < config.groupSize; g += 1) {
      const stream = rng.fork(`${task.name}/${g}`);
      specs.push({ task: task.name, envSeed: stream.uint32(), rng: stream });
    }
  }
  const records = rollout(agent, harness, trainTasks, specs, { temperature: config.temperature });
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
  // Groups with zero advantage carry no policy gradient (and no KL when klCoef is 0): skip them.
  const useful = records.map((_, i) => i).filter((i) => advantages[i] !== 0 || config.klCoef > 0);
  if (useful.length > 0) {
    const batch = padBatch(useful.map((i) => records[i]!), agent.tokenizer.padId);
    for (let epoch = 0; epoch < config.updateEpochs; epoch += 1) {
      const stats = tf.tidy(() => {
        const tensors = batchTensors(batch);
        const advantageTensor = tf.tensor1d(useful.map((i) => advantages[i]!));
        const refLogProbs = reference !== undefined && config.klCoef > 0 ? reference.model.tokenLogProbs(tensors.ids) : undefined;
        const inputs = { ...tensors, advantages: advantageTensor, ...(refLogProbs !== undefined ? { refLogProbs } : {}) };
        const cost = optimizer.minimize(() => grpoLoss(agent.model, inputs, config), true, agent.model.variables());
        const klValue = refLogProbs !== undefined ? meanKl(agent.model.tokenLogProbs(tensors.ids), refLogProbs, tensors.targetMask) : 0;
        return { loss: cost!.dataSync()[0]!, kl: klValue };
      });
      loss = stats.loss;
      kl = stats.kl;
    }
  }
  return {
    meanReward: rewards.reduce((sum, r) => sum + r, 0) / rewards.length,
    zeroAdvantageGroups: zeroGroups / (advantages.length / config.groupSize),
    loss,
    kl,
    firstEditEntropy: firstEditEntropy(records),
    rolloutSeconds,
    updateSeconds: (performance.now() - updateStart) / 1000,
  };
}
