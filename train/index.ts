/** Training: behaviour cloning (the RL base agent), GRPO, and the frozen snapshots every experiment loads. */
export {
  configDifferences,
  defaultRLConfig,
  parseRLConfig,
  RLConfigSchema,
  TrainSchema,
  trainShape,
  type RLConfig,
} from './config.ts';
export { groupAdvantages, grpoLoss, bcLoss } from './grpo.ts';
export { padBatch, batchTensors, type PaddedBatch, type Transcript } from './batch.ts';
export { demoTranscripts, bcStep } from './bc.ts';
export { grpoStep, firstEditEntropy, type StepStats } from './grpoStep.ts';
export {
  trainSnapshots,
  evalPass,
  splitTasks,
  measuresDevSplit,
  snapshotDir,
  type TrainSummary,
} from './snapshots.ts';
export { rolloutOnCores } from './grpoStep.ts';
export { optimizerStep, applyClipped } from './optimize.ts';
export {
  jobLoss,
  planJob,
  partsLoss,
  lengthBuckets,
  selectRows,
  type JobPart,
  type LossJob,
} from './jobs.ts';
export { DataParallelWorker, playOnTwoCores } from './dataParallel.ts';
export { trainSeeds, seedTable, seedRunDir, type SeedResult, type SeedsOptions } from './seeds.ts';
export { checkRunFolder, checkRunSnapshots, snapshotMismatch, foreignSnapshotError } from './runFolder.ts';
