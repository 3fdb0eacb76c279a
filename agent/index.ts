/** The agent: tokenizer, transformer policy, backend choice, checkpoints, batched rollouts. */
export { activeBackend, initBackend, BACKEND_PREFERENCES, type BackendPreference } from './backend.ts';
export { buildTokenizer, tokenizerFromWords, type Tokenizer } from './tokenizer.ts';
export {
  createModel, defaultModelConfig, countParameters, sampleToken, logSoftmaxAt, attentionModeFor,
  type ModelConfig, type ModelOptions, type AttentionMode, type PolicyModel, type Session,
} from './model.ts';
export { saveCheckpoint, loadCheckpoint, checkpointChecksum } from './checkpoint.ts';
export { rollout, rolloutShare, shareCut, type Agent, type EpisodeRecord } from './rollout.ts';
export { loadAgent, type LoadedAgent } from './load.ts';
export { getWeights, setWeights, modelFromWeights } from './weights.ts';
