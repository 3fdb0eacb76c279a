/** The agent: tokenizer, transformer policy, backend choice, checkpoints, batched rollouts, and playing episodes to evaluate it (`evaluate`, `probeCheckpoint`, the op probabilities at a first edit). */
export {
  activeBackend,
  initBackend,
  productKernelProblem,
  recordedBackend,
  BACKEND_PREFERENCES,
  BackendError,
  UnknownBackendError,
  type BackendPreference,
} from './backend.ts';
export { buildTokenizer, tokenizerFromWords, type Tokenizer } from './tokenizer.ts';
export {
  createModel,
  defaultModelConfig,
  countParameters,
  sampleToken,
  logSoftmaxAt,
  attentionModeFor,
  type ModelConfig,
  type ModelOptions,
  type AttentionMode,
  type PolicyModel,
  type Session,
} from './model.ts';
export {
  saveCheckpoint,
  loadCheckpoint,
  checkpointChecksum,
  manifestChecksum,
  CheckpointError,
  CHECKPOINT_FORMAT,
} from './checkpoint.ts';
export {
  rollout,
  rolloutShare,
  shareCut,
  transcriptTurns,
  type Agent,
  type EpisodeRecord,
  type Transcript,
  type TranscriptTurn,
} from './rollout.ts';
export { loadAgent, type LoadedAgent } from './load.ts';
export { getWeights, setWeights, modelFromWeights } from './weights.ts';
export {
  adamUpdate,
  productsInstalled,
  sumOfSquares,
  useOwnProducts,
  type AdamScalars,
} from './kernels/index.ts';
export {
  evaluate,
  projectVersion,
  type EvaluateOptions,
  type Evaluation,
  type EvaluatedEpisode,
  type Player,
  type Provenance,
} from './evaluate.ts';
export { probeCheckpoint, probeVariants, type ProbeRow } from './probe.ts';
export {
  checkpointOpProbabilitiesAtFirstEdit,
  firstEditPrefix,
  opProbabilitiesAtFirstEdit,
} from './decision.ts';
export {
  fingerprint,
  fingerprintDifferences,
  isFingerprint,
  packageVersion,
  sourcesSha256,
  FINGERPRINT_PARTS,
  SOURCE_FOLDERS,
  type Fingerprint,
} from './fingerprint.ts';
