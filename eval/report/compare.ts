import type { TaskOutcomes } from '../io/outcomes.ts';
import type { ResultRow } from '../io/resultFile.ts';
import { DEFAULT_REPLICATES } from '../bootstrap.ts';
import {
  differences,
  meanDifference,
  pairedBootstrapDiff,
  pairedStandardError,
  pearsonCorrelation,
  unpairedStandardError,
} from '../paired.ts';
import { passAtK } from '../passAtK.ts';
import type { RandomSource } from '../random.ts';
import { orNull } from '../validate.ts';
import { allAlike, mean, sampleStandardDeviation, sampleVariance } from '../describe.ts';
import { requiredUnits } from '../power.ts';
import { harnessDifferences } from './harness.ts';
import { FEW_TASKS } from './metrics.ts';
import { StatisticsError } from '../../lib/errors.ts';
import { getOrAdd } from '../../lib/collections.ts';

/** The checkpoint a result file's provenance header records (`tinyagent eval --out` writes it), if any. */
function recordedCheckpoint(header: Record<string, unknown> | undefined) {
  const provenance = header?.['provenance'] as { checkpoint?: unknown } | null | undefined;
  const { checksum, step, path } = (provenance?.checkpoint ?? {}) as Record<string, unknown>;
  if (typeof checksum !== 'string' || checksum === '') return undefined;
  return {
    checksum,
    step: typeof step === 'number' ? step : null,
    path: typeof path === 'string' ? path : null,
  };
}

/**
 * Paired tasks like these that a comparison needs to detect the difference it measured, |B - A|,
 * at two-sided `alpha` with `power` (`requiredUnits`, sigma the SD `sd` of the per-task
 * differences, null below 2 tasks), as `tinyagent power --sd SD --delta D` answers; `tasks` null
 * where `why` says it does not exist.
 */
export function tasksNeeded(
  ratesA: readonly number[],
  ratesB: readonly number[],
  { alpha = 0.05, power = 0.8 }: { alpha?: number; power?: number } = {},
) {
  const perTask = differences(ratesA, ratesB);
  const delta = Math.abs(mean(perTask));
  const sd = perTask.length >= 2 ? sampleStandardDeviation(perTask) : null;
  const none = (why: string) => ({ tasks: null, why, sd, delta, alpha, power });
  if (sd === null) return none('1 task: the SD of the per-task differences needs 2');
  if (delta === 0) return none('B - A is 0: there is no difference to detect');
  if (sd === 0) return none('every task differs by the same amount: the SD of the differences is 0');
  const tasks = orNull(() => requiredUnits({ sigma: sd, delta, alpha, power, design: 'paired' }).units);
  return tasks === null ? none('more than 2^53 - 1 tasks') : { tasks, why: null, sd, delta, alpha, power };
}

/** The sentence on `tasksNeeded` beside a comparison, with the `tinyagent power` line for another difference. */
export function tasksNeededLine({
  tasksNeeded: needed,
  commonTasks,
}: Pick<ComparisonReport, 'tasksNeeded' | 'commonTasks'>): string {
  const head = `tasks to detect a difference of ${needed.delta.toFixed(3)} (paired, two-sided alpha ${needed.alpha}, power ${needed.power})`;
  if (needed.tasks === null || needed.sd === null) return `${head}: n/a (${needed.why ?? 'undefined'})`;
  const sd = needed.sd.toPrecision(3);
  return `${head}: ${needed.tasks} like these, ${commonTasks === 1 ? 'from 1' : `from the ${commonTasks}`} compared here (SD of the per-task differences ${sd}; tinyagent power --sd ${sd} --delta D for another difference)`;
}

/** The warning for two result files of one checkpoint: their difference is not one between agents. */
function sameCheckpointWarning(
  checkpoint: NonNullable<ReturnType<typeof recordedCheckpoint>> | null,
  harnessesDiffer: boolean,
): string | undefined {
  if (checkpoint === null) return undefined;
  const which = `${checkpoint.step === null ? '' : `step ${checkpoint.step}, `}checksum ${checkpoint.checksum.slice(0, 12)}`;
  return harnessesDiffer
    ? `A and B evaluate one checkpoint (${which}) under different harnesses: B - A is the harness's effect, not a difference between agents`
    : `A and B are two evaluations of one checkpoint (${which}) under one harness: B - A is evaluation noise (other episodes or sampling), not a difference between agents`;
}

/** The env seed recorded for each (task, sample) of the rows, by task, then sample (undefined when none). */
function envSeeds(rows: readonly ResultRow[], run: string | undefined): Map<string, Map<number, unknown>> {
  const seeds = new Map<string, Map<number, unknown>>();
  for (const row of rows) {
    if (run !== undefined && row.run !== run) continue;
    const samples = getOrAdd(seeds, row.task, () => new Map());
    const seed = row.extra?.envSeed;
    // the first row of a sample decides, unless it records no seed and a later turn does
    if (!samples.has(row.sample) || (samples.get(row.sample) === undefined && seed !== undefined))
      samples.set(row.sample, seed);
  }
  return seeds;
}

/**
 * Lines up the episodes of the compared tasks by (task, sample) and checks their env seeds:
 * 'common-random-numbers' when both record an env seed for every shared (task, sample) and all
 * agree, 'seeds-differ' when some recorded seeds differ, 'index-only' otherwise (paired by task
 * and sample index alone). Of the shared episodes: `matched` those whose seeds agree, `total`
 * all, `withSeeds` those with seeds on both sides; `differing` the first few that differ.
 */
function pairingOf(
  rowsA: readonly ResultRow[],
  rowsB: readonly ResultRow[],
  tasks: ReadonlySet<string>,
  run?: string,
) {
  const seedsA = envSeeds(rowsA, run);
  const seedsB = envSeeds(rowsB, run);
  let total = 0;
  let withSeeds = 0;
  let matched = 0;
  const differing: Array<{ task: string; sample: number; a: unknown; b: unknown }> = [];
  const recorded = (value: unknown) => typeof value === 'number' || typeof value === 'string';
  for (const [task, samplesA] of seedsA) {
    const samplesB = seedsB.get(task);
    if (samplesB === undefined || !tasks.has(task)) continue;
    for (const [sample, a] of samplesA) {
      if (!samplesB.has(sample)) continue;
      total++;
      const b = samplesB.get(sample);
      if (!recorded(a) || !recorded(b)) continue;
      withSeeds++;
      if (a === b) matched++;
      else if (differing.length < 5) differing.push({ task, sample, a, b });
    }
  }
  const kind =
    total > 0 && withSeeds === total && matched === total
      ? ('common-random-numbers' as const)
      : withSeeds > matched
        ? ('seeds-differ' as const)
        : ('index-only' as const);
  return { kind, matched, total, withSeeds, differing };
}
type Pairing = ReturnType<typeof pairingOf>;

/** One side of a comparison: its tasks and, where known, its harness, rows and header. */
interface Compared {
  tasks: readonly TaskOutcomes[];
  harness?: Record<string, unknown> | undefined;
  rows?: readonly ResultRow[];
  header?: Record<string, unknown> | undefined;
}

export function taskPassAtK(outcomes: Uint8Array, k: number): number {
  const successes = outcomes.reduce((sum, value) => sum + value, 0);
  return passAtK(outcomes.length, successes, k);
}

/** The tasks of `tasks` that `others` lacks, by id, in order. */
export function tasksMissingFrom(tasks: readonly TaskOutcomes[], others: readonly TaskOutcomes[]): string[] {
  const names = new Set(others.map(({ task }) => task));
  return tasks.filter(({ task }) => !names.has(task)).map(({ task }) => task);
}

/**
 * The per-task pass@k of A and B on the tasks both hold (paired by id, in A's order) with at
 * least k samples on each side, the ids of those tasks, and the shared tasks left out for fewer.
 * @throws StatisticsError when no shared task can be scored.
 */
function scoreCommonTasks(tasksA: readonly TaskOutcomes[], tasksB: readonly TaskOutcomes[], k: number) {
  const byTaskB = new Map(tasksB.map((task) => [task.task, task]));
  const ratesA: number[] = [];
  const ratesB: number[] = [];
  const scored = new Set<string>();
  const tooFewSamples: string[] = [];
  for (const taskA of tasksA) {
    const taskB = byTaskB.get(taskA.task);
    if (taskB === undefined) continue;
    if (taskA.outcomes.length < k || taskB.outcomes.length < k) {
      tooFewSamples.push(taskA.task);
      continue;
    }
    ratesA.push(taskPassAtK(taskA.outcomes, k));
    ratesB.push(taskPassAtK(taskB.outcomes, k));
    scored.add(taskA.task);
  }
  if (ratesA.length === 0 && tooFewSamples.length > 0) {
    const most = (tasks: readonly TaskOutcomes[]) =>
      tasks.reduce((largest, { outcomes }) => Math.max(largest, outcomes.length), 0);
    throw new StatisticsError(
      `k = ${k} is more than the samples per task (at most ${most(tasksA)} in A, ${most(tasksB)} in B): pass@${k} needs at least ${k} samples of a task in both files; choose a k up to the samples per task`,
    );
  }
  if (ratesA.length === 0)
    throw new StatisticsError('the two results share no task that can be scored (tasks are paired by id)');
  return { ratesA, ratesB, scored, tooFewSamples };
}

/**
 * Each side's mean of the paired per-task rates, B - A with its paired-bootstrap interval, the
 * paired and unpaired SEs and the per-task correlation; all but the means null below 2 tasks, the
 * correlation also when either side has the same rate on every task, the interval also when every
 * task has the same difference (`alike`: resampled tasks have no spread).
 */
function pairedStatistics(
  ratesA: number[],
  ratesB: number[],
  { level, reps, rng }: { level: number; reps: number; rng: RandomSource },
) {
  const spread = ratesA.length >= 2;
  const alike = spread && allAlike(differences(ratesA, ratesB));
  const interval =
    spread && !alike ? pairedBootstrapDiff(ratesA, ratesB, { reps, level, rng }) : { low: null, high: null };
  const varies = (values: number[]) => spread && sampleVariance(values) > 0;
  return {
    alike,
    a: mean(ratesA),
    b: mean(ratesB),
    difference: {
      estimate: meanDifference(ratesA, ratesB),
      low: interval.low,
      high: interval.high,
      level,
      reps,
    },
    pairedSE: spread ? pairedStandardError(ratesA, ratesB) : null,
    unpairedSE: spread ? unpairedStandardError(ratesA, ratesB) : null,
    correlation: varies(ratesA) && varies(ratesB) ? pearsonCorrelation(ratesA, ratesB) : null,
  };
}

/**
 * A comparison's warnings: one checkpoint on both sides, too few common tasks, the same difference
 * on every task, env seeds that differ.
 */
function comparisonWarnings(
  { alike, estimate }: { alike: boolean; estimate: number },
  common: number,
  pairing: Pairing,
  checkpointWarning: string | undefined,
) {
  const warnings: string[] = checkpointWarning === undefined ? [] : [checkpointWarning];
  if (common < 2)
    warnings.push(
      '1 common task: a standard error and an interval do not exist (shown as n/a); compare on more tasks',
    );
  else if (alike)
    warnings.push(
      `every common task has the same difference, B - A = ${estimate >= 0 ? '+' : ''}${estimate.toFixed(3)}: resampled tasks have no spread, so the paired interval does not exist (shown as n/a), where a zero-width interval would claim certainty`,
    );
  if (common >= 2 && common < FEW_TASKS)
    warnings.push(
      `only ${common} common tasks: intervals and standard errors from fewer than ${FEW_TASKS} tasks are unreliable`,
    );
  if (pairing.kind === 'seeds-differ')
    warnings.push(
      `env seeds differ on ${pairing.withSeeds - pairing.matched} of ${pairing.withSeeds} paired episodes: those pairs did not share random numbers`,
    );
  return warnings;
}

/**
 * Pairs two results by task id (never by position) and compares their per-task unbiased pass@k
 * (chapter 17.4): the paired difference B - A with its interval, SEs and correlation
 * (`pairedStatistics`); with the rows of both files whether the paired episodes shared their env
 * seeds, and with their provenance whether both evaluate one checkpoint.
 */
export function compareResults(
  a: Compared,
  b: Compared,
  {
    k = 1,
    level = 0.95,
    reps = DEFAULT_REPLICATES,
    rng,
    run,
  }: { k?: number; level?: number; reps?: number; rng: RandomSource; run?: string },
) {
  const { ratesA, ratesB, scored, tooFewSamples } = scoreCommonTasks(a.tasks, b.tasks, k);
  const { alike, ...statistics } = pairedStatistics(ratesA, ratesB, { level, reps, rng });
  // without the rows of both, nothing is shared: index-only
  const pairing = pairingOf(a.rows ?? [], b.rows ?? [], scored, run);
  const harnessChanges = harnessDifferences(a.harness, b.harness);
  const [checkpointA, checkpointB] = [recordedCheckpoint(a.header), recordedCheckpoint(b.header)];
  const sameCheckpoint =
    checkpointA !== undefined && checkpointA.checksum === checkpointB?.checksum ? checkpointA : null;
  const checkpointWarning = sameCheckpointWarning(sameCheckpoint, harnessChanges.length > 0);
  return {
    harnessDifferences: harnessChanges,
    onlyInA: tasksMissingFrom(a.tasks, b.tasks),
    onlyInB: tasksMissingFrom(b.tasks, a.tasks),
    commonTasks: ratesA.length,
    k,
    ...statistics,
    tooFewSamples,
    pairing,
    sameCheckpoint,
    tasksNeeded: tasksNeeded(ratesA, ratesB),
    warnings: comparisonWarnings(
      { alike, estimate: statistics.difference.estimate },
      ratesA.length,
      pairing,
      checkpointWarning,
    ),
  };
}

export type ComparisonReport = ReturnType<typeof compareResults>;
