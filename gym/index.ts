/**
 * The gym's public surface: tasks, edit ops, sandbox, harness config, the env and the scripted
 * policies. Other folders import from here only.
 */
export {
  BUG_TYPES,
  REPAIR_OPS,
  GAMING_OP,
  EDIT_OPS,
  REPAIR_OP_FOR,
  type BugType,
  type RepairOp,
  type GamingOp,
  type EditOp,
  type TestCase,
  type Task,
  type Split,
} from './types.ts';
export {
  makeTasks,
  devTasks,
  trainingMinusDev,
  splitOptions,
  findTask,
  parseParams,
  parseName,
  NAME_POOL,
  HELD_OUT_VARIANTS,
  type MakeTasksOptions,
} from './tasks.ts';
export { applyOp, literalWord, type OpContext, type OpResult } from './ops.ts';
export {
  runTests,
  countPassed,
  deepEqual,
  clearSandboxCache,
  sandboxWork,
  SANDBOX_LIMITS,
  type SandboxLimits,
  type SandboxWork,
  type TestOutcome,
} from './sandbox.ts';
export { splitWords, specWords, renderWords, MARKERS, TOOLS, OBSERVATION_WORDS, type Tool } from './words.ts';
export { vocabularyWords } from './vocab.ts';
export {
  harnessShape,
  HarnessSchema,
  HARNESS_FIELDS,
  parseHarness,
  pickHarness,
  trainingHarness,
  plainEnv,
  harnessHash,
  type Harness,
  type HarnessInput,
} from './config.ts';
export {
  BugFixEnv,
  makeEnv,
  renameCandidates,
  type EpisodeInfo,
  type ToolCalls,
  type ResetOptions,
  type ResetResult,
  type StepResult,
  type MakeEnvOptions,
} from './env.ts';
export {
  episodeSpecs,
  episodeSuccess,
  playEpisodes,
  countsByTask,
  firstEditCounts,
  samplingStream,
  type EpisodeSpec,
  type EpisodeResult,
  type EpisodePolicy,
  type PolicyTurn,
  type TaskCount,
} from './episodes.ts';
export {
  SCRIPTED_POLICIES,
  scriptedActions,
  scriptedPolicy,
  playScripted,
  runScripted,
  type ScriptedPolicy,
  type ScriptedRun,
  type RunScriptedOptions,
} from './policies.ts';
export {
  runCanary,
  canaryRowOk,
  canaryHarness,
  expectedSuccess,
  CANARY_HARNESSES,
  type CanaryRow,
  type CanaryReport,
} from './canary.ts';
