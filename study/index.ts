/**
 * Seed studies: a recipe over many seeds as independent, deterministic, idempotent jobs
 * (plan.ts: the plan and job ids; job.ts: one job, claimed and written atomically; output.ts: a
 * job's output verified;
 * runner.ts and worker.ts: every pending job on this machine, in long-lived worker processes;
 * scheduler.ts: Slurm arrays and a Kubernetes Indexed Job; claims.ts, compare.ts: what the outputs say;
 * publish/studyReport.ts writes a study's report). docs/STUDIES.md.
 */
export {
  CHAPTER_STEPS,
  SMOKE_RECIPE,
  STUDY_FORMAT,
  configHash,
  evalSeedOf,
  jobConfig,
  measureFor,
  measuredSplit,
  measuredTasks,
  splitName,
  parseSeeds,
  planJobs,
  readPlan,
  resolveRecipe,
  writePlan,
  type EvalJob,
  type Job,
  type Measure,
  type Plan,
  type StudyHeader,
  type TrainJob,
} from './plan.ts';
export {
  DEFAULT_LEASE_TIMEOUT,
  LEASE_TIMEOUT_ENV,
  claimJob,
  leaseAtOnce,
  readLease,
  watchLeases,
  type Claim,
  type Held,
  type Holder,
  type Lease,
} from './claim.ts';
export { jobState, outcomeLine, runJob, type JobOutcome, type JobState } from './job.ts';
export {
  describeMixedFingerprints,
  fingerprintGroups,
  jobFingerprint,
  type FingerprintGroup,
  jobDir,
  jobSeconds,
  outputProblem,
  readEvalOutput,
  type EvalOutput,
} from './output.ts';
export {
  BIN,
  jobCommand,
  jobLogPath,
  runStudy,
  slotsOf,
  type JobRun,
  type StudyRunSummary,
} from './runner.ts';
export {
  K8S_STUDY_PATH,
  RETRY_SLEEP_SECONDS,
  SLURM_DEPENDENCIES,
  arrayList,
  k8sContainerArgs,
  retryTries,
  slurmArrays,
  submitSlurm,
  writeK8sManifests,
  writeSlurmScripts,
  type K8sOptions,
  type SlurmArray,
  type SlurmDependency,
  type SlurmOptions,
  type SlurmScripts,
  type SubmittedArray,
} from './scheduler.ts';
export {
  evalKey,
  evaluationOf,
  finishedStudy,
  loadResults,
  taskRates,
  type StudyResults,
} from './results.ts';
export {
  compareSeedScores,
  compareStudies,
  formatComparison,
  sharedSeeds,
  type SeedComparison,
  type SeedsNeeded,
  type StudyComparison,
} from './compare.ts';
