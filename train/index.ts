/**
 * Training: behaviour cloning (the RL base agent), GRPO, and the frozen snapshots every experiment
 * loads. One GRPO update in two files: grpo.ts (`grpoStep` and `grpoLoss`) and gradients.ts (the
 * gradients of a job, in length buckets); run.ts (the loop) hands the step its play and its
 * optimizer step from compute.ts (one thread or two, dataParallel.ts the second).
 */
export {
  configDifferences,
  defaultRLConfig,
  parseRLConfig,
  RLConfigSchema,
  SMOKE_CONFIG,
  TrainSchema,
  trainShape,
  measuresDevSplit,
  splitTasks,
  type RLConfig,
} from './config.ts';
export { trainSnapshots, snapshotDir, trainingModelConfig, type TrainSummary } from './run.ts';
export { oneThread, optimizerStep, twoThreads, playOnTwoCores, type Compute } from './compute.ts';
export { padBatch } from './batch.ts';
export type { LossJob } from './gradients.ts';
export { adam } from './optimizer.ts';
export { trainSeeds, seedTable, seedRunDir, type SeedResult } from './seeds.ts';
export { checkRunFolder, checkRunSnapshots } from './runFolder.ts';
