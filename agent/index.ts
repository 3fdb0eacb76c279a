/**
 * The agent: tokenizer, transformer policy, backend choice, checkpoints, batched rollouts, and
 * playing episodes to evaluate it (`evaluate`, `probeCheckpoint`, the op probabilities at a first
 * edit). This index hands on only what other folders use; the tests and the benchmarks (bench/)
 * import the module files they measure.
 */
export {
  activeBackend,
  initBackend,
  productKernelProblem,
  recordedBackend,
  BACKEND_PREFERENCES,
  type BackendPreference,
} from './backend.ts';
export { buildTokenizer, tokenizerFromWords, type Tokenizer } from './tokenizer.ts';
export {
  createModel,
  defaultModelConfig,
  countParameters,
  type ModelConfig,
  type PolicyModel,
} from './model.ts';
export {
  saveCheckpoint,
  checkpointChecksum,
  manifestChecksum,
  CheckpointError,
  CHECKPOINT_FORMAT,
} from './checkpoint.ts';
export {
  rollout,
  rolloutShare,
  shareCut,
  type Agent,
  type EpisodeRecord,
  type Play,
  type Transcript,
  type TranscriptTurn,
} from './rollout.ts';
export { loadAgent } from './load.ts';
export { getWeights, setWeights, modelFromWeights, withRedrawnEmbeddings } from './weights.ts';
export {
  adamUpdate,
  productsInstalled,
  sumOfSquares,
  useOwnProducts,
  type AdamScalars,
} from './kernels/index.ts';
export { evaluate, type EvaluateOptions, type Evaluation } from './evaluate.ts';
export { probeCheckpoint } from './probe.ts';
export { checkpointOpProbabilitiesAtFirstEdit } from './decision.ts';
export {
  fingerprint,
  fingerprintDifferences,
  isFingerprint,
  packageVersion,
  FINGERPRINT_PARTS,
  type Fingerprint,
} from './fingerprint.ts';
