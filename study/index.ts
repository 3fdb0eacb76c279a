/**
 * Seed studies: a recipe over many seeds as independent, deterministic, idempotent jobs
 * (plan.ts: the plan and job ids; job.ts: one job, run alone and written atomically; leases.ts: the
 * lease a job is claimed with; output.ts: a job's output verified; runner.ts and worker.ts: every
 * pending job on this machine, in long-lived worker processes; scheduler.ts: Slurm arrays and a
 * Kubernetes Indexed Job; results.ts, compare.ts: what the outputs say; publish/studyReport.ts
 * writes a study's report). docs/STUDIES.md.
 *
 * This index hands on only what other folders read of a study: its plan, a job's state, the
 * results and the comparison of seeds. The study commands (cli/commands/study/), which plan, run,
 * claim and schedule jobs, import the module files themselves, as do the tests.
 */
export { CHAPTER_STEPS, measuredSplit, splitName, readPlan, type EvalJob, type Plan } from './plan.ts';
export { checkpointOf, jobState } from './job.ts';
export { type EvalOutput } from './output.ts';
export { evaluationOf, finishedStudy, loadResults, taskRates, type StudyResults } from './results.ts';
export { compareSeedScores, sharedSeeds, type StudyComparison } from './compare.ts';
