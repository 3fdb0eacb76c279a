/**
 * The gym's surface for other folders: tasks, edit ops, sandbox, harness config, the env
 * (`makeEnv`), the episode loop, the scripted policies and the canary. Other folders import from
 * here only, and it hands on only what they use; the tests import module files too.
 */
export { BUG_TYPES, EDIT_OPS, REPAIR_OP_FOR, type BugType, type EditOp, type Task } from './types.ts';
export { makeTasks, devTasks, trainingMinusDev, splitOptions, findTask, HELD_OUT_VARIANTS } from './tasks.ts';
export { runTests, clearSandboxCache, sandboxWork, SANDBOX_LIMITS } from './sandbox.ts';
export { MARKERS, TOOLS, type Tool } from './words.ts';
export { vocabularyWords, wordsOnlyIn } from './vocab.ts';
export {
  between,
  integer,
  harnessShape,
  HarnessSchema,
  parseHarness,
  pickHarness,
  trainingHarness,
  plainEnv,
  harnessHash,
  type Harness,
  type HarnessInput,
} from './config.ts';
export { makeEnv, type StepResult } from './env.ts';
export {
  episodeSpecs,
  playEpisodes,
  countsByTask,
  firstEditCounts,
  inChunks,
  samplingStream,
  type EpisodeSpec,
  type EpisodeResult,
  type EpisodePolicy,
  type PolicyTurn,
  type TaskCount,
} from './episodes.ts';
export { SCRIPTED_POLICIES, playScripted, type ScriptedPolicy } from './policies.ts';
export { runCanary, canaryRowOk } from './canary.ts';
