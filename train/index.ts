/**
 * Training: behaviour cloning (the RL base agent), GRPO, and the frozen snapshots every experiment
 * loads. One GRPO update, file by file: run.ts (the loop) -> grpo.ts (`grpoStep`) -> compute.ts
 * (one thread or two, length buckets, the optimizer step) -> losses.ts (the losses), with
 * worker.ts as the second thread.
 */
export {
  configDifferences,
  defaultRLConfig,
  parseRLConfig,
  RLConfigSchema,
  SMOKE_CONFIG,
  TrainSchema,
  trainShape,
  type RLConfig,
} from './config.ts';
export {
  trainSnapshots,
  evalPass,
  splitTasks,
  measuresDevSplit,
  snapshotDir,
  trainingModelConfig,
  type TrainSummary,
} from './run.ts';
export { grpoStep, firstEditEntropy, type StepStats } from './grpo.ts';
export { demoTranscripts, bcStep } from './bc.ts';
export {
  oneThread,
  twoThreads,
  playOnTwoCores,
  optimizerStep,
  planJob,
  lengthBuckets,
  selectRows,
  type Compute,
  type StepResult,
} from './compute.ts';
export {
  groupAdvantages,
  grpoLoss,
  grpoTerms,
  clippedTokens,
  bcLoss,
  meanKl,
  maskedSequenceMean,
  padBatch,
  batchTensors,
  jobLoss,
  partsLoss,
  partsGradients,
  type PaddedBatch,
  type LossJob,
  type BcJob,
  type GrpoJob,
  type JobPart,
  type PartsGradients,
} from './losses.ts';
export { DataParallelWorker } from './worker.ts';
export { adam, type Optimizer } from './optimizer.ts';
export {
  trainSeeds,
  seedTable,
  seedRunDir,
  type SeedCheckpoint,
  type SeedResult,
  type SeedsOptions,
} from './seeds.ts';
export { checkRunFolder, checkRunSnapshots, snapshotMismatch, foreignSnapshotError } from './runFolder.ts';
