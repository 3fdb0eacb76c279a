/**
 * Seed studies: a recipe over many seeds as independent, deterministic, idempotent jobs
 * (plan.ts: the plan and job ids; job.ts: one job, claimed, written atomically, verified;
 * runner.ts and worker.ts: every pending job on this machine, in long-lived worker processes;
 * scheduler.ts: Slurm arrays and a Kubernetes Indexed Job; claims.ts, compare.ts: what the outputs say;
 * publish/studyReport.ts writes a study's report). docs/STUDIES.md.
 */
export {
  CHAPTER_STEPS,
  configHash,
  measuredSplit,
  splitName,
  parseSeeds,
  readPlan,
  writePlan,
  type Job,
  type Measure,
  type Plan,
} from './plan.ts';
export { DEFAULT_LEASE_TIMEOUT, LEASE_TIMEOUT_ENV, leaseTimeout, type Held } from './claim.ts';
export {
  describeMixedFingerprints,
  fingerprintGroups,
  jobFingerprint,
  jobState,
  outcomeLine,
  runJob,
  type EvalOutput,
  type JobState,
} from './job.ts';
export { BIN, runStudy, type StudyRunSummary } from './runner.ts';
export {
  SLURM_DEPENDENCIES,
  arrayList,
  k8sContainerArgs,
  submitSlurm,
  writeK8sManifests,
  writeSlurmScripts,
  type SlurmDependency,
} from './scheduler.ts';
export { diskError } from './disk.ts';
export { evaluationOf, finishedStudy, loadResults, taskRates, type StudyResults } from './results.ts';
export { compareSeedScores, compareStudies, formatComparison, sharedSeeds } from './compare.ts';
