/**
 * Seed studies (docs/STUDIES.md): a recipe over many seeds as independent, deterministic,
 * idempotent jobs. This index hands on what other folders read of a study; the study commands
 * (cli/commands/study/) import the module files themselves.
 */
export { CHAPTER_STEPS, measuredSplit, splitName, readPlan, type EvalJob, type Plan } from './plan.ts';
export { checkpointOf, jobState } from './job.ts';
export { type EvalOutput } from './output.ts';
export { evaluationOf, finishedStudy, loadResults, taskRates, type StudyResults } from './results.ts';
export { compareSeedScores, sharedSeeds, type StudyComparison } from './compare.ts';
