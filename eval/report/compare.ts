import type { TaskOutcomes } from '../io/outcomes.ts';
import type { ResultRow } from '../io/resultFile.ts';
import { pairedBootstrapDiff } from '../pairedBootstrap.ts';
import { meanDifference, pairedStandardError, pearsonCorrelation, unpairedStandardError } from '../paired.ts';
import { passAtK } from '../passAtK.ts';
import type { RandomSource } from '../randomSource.ts';
import { mean, sampleVariance } from '../describe.ts';
import { harnessDifferences, type HarnessDifference } from './harness.ts';
import { FEW_TASKS } from './metrics.ts';

/**
 * How the two results' episodes line up: 'common-random-numbers' when both record an env seed
 * for every shared (task, sample) and all agree, 'seeds-differ' when some recorded seeds differ,
 * 'index-only' when seeds are absent (or recorded on only some episodes), so that episodes are
 * paired by task and sample index alone.
 */
export interface Pairing {
  kind: 'common-random-numbers' | 'seeds-differ' | 'index-only';
  /** Shared (task, sample) episodes whose env seeds agree. */
  matched: number;
  /** Shared (task, sample) episodes of the compared tasks. */
  total: number;
  /** Shared episodes with an env seed on both sides. */
  withSeeds: number;
  /** The first few that differ: task, sample and both seeds. */
  differing: Array<{ task: string; sample: number; a: unknown; b: unknown }>;
}

export interface ComparisonReport {
  harnessDifferences: HarnessDifference[];
  onlyInA: string[];
  onlyInB: string[];
  commonTasks: number;
  k: number;
  /** Mean per-task pass@k (pass@1 = mean accuracy) of each system on the common tasks. */
  a: number;
  b: number;
  /** b - a, with the paired-bootstrap interval over tasks (null below 2 tasks). */
  difference: { estimate: number; low: number | null; high: number | null; level: number; reps: number };
  /** null below 2 common tasks, where no standard error exists. */
  pairedSE: number | null;
  unpairedSE: number | null;
  /** null below 2 tasks or when either side has the same value on every task. */
  correlation: number | null;
  /** Tasks that could not be scored at k (fewer than k samples on either side). */
  tooFewSamples: string[];
  pairing: Pairing;
  warnings: string[];
}

/** The env seed recorded for each (task, sample) of the rows, by task, then sample (undefined when none). */
function envSeeds(rows: readonly ResultRow[], run: string | undefined): Map<string, Map<number, unknown>> {
  const seeds = new Map<string, Map<number, unknown>>();
  for (const row of rows) {
    if (run !== undefined && row.run !== run) continue;
    let samples = seeds.get(row.task);
    if (samples === undefined) seeds.set(row.task, (samples = new Map()));
    const seed = row.extra?.envSeed;
    // the first row of a sample decides, unless it records no seed and a later turn does
    if (!samples.has(row.sample) || (samples.get(row.sample) === undefined && seed !== undefined))
      samples.set(row.sample, seed);
  }
  return seeds;
}

/** Lines up the episodes of the compared tasks by (task, sample) and checks their env seeds. */
export function pairingOf(
  rowsA: readonly ResultRow[],
  rowsB: readonly ResultRow[],
  tasks: ReadonlySet<string>,
  run?: string,
): Pairing {
  const seedsA = envSeeds(rowsA, run);
  const seedsB = envSeeds(rowsB, run);
  let total = 0;
  let withSeeds = 0;
  let matched = 0;
  const differing: Pairing['differing'] = [];
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
      ? 'common-random-numbers'
      : withSeeds > matched
        ? 'seeds-differ'
        : 'index-only';
  return { kind, matched, total, withSeeds, differing };
}

/**
 * Pairs two results by task id (never by position) and compares their per-task unbiased pass@k
 * (chapter 17.4): the paired difference with a paired-bootstrap interval, paired and unpaired
 * standard errors, and the per-task correlation that pairing exploits. With the rows of both
 * files it also reports whether the paired episodes shared their env seeds (common random numbers).
 */
export function compareResults(
  a: {
    tasks: readonly TaskOutcomes[];
    harness?: Record<string, unknown> | undefined;
    rows?: readonly ResultRow[];
  },
  b: {
    tasks: readonly TaskOutcomes[];
    harness?: Record<string, unknown> | undefined;
    rows?: readonly ResultRow[];
  },
  {
    k = 1,
    level = 0.95,
    reps = 2000,
    rng,
    run,
  }: { k?: number; level?: number; reps?: number; rng: RandomSource; run?: string },
): ComparisonReport {
  const byTaskB = new Map(b.tasks.map((task) => [task.task, task]));
  const namesA = new Set(a.tasks.map(({ task }) => task));
  const onlyInA = a.tasks.filter(({ task }) => !byTaskB.has(task)).map(({ task }) => task);
  const onlyInB = b.tasks.filter(({ task }) => !namesA.has(task)).map(({ task }) => task);
  const ratesA: number[] = [];
  const ratesB: number[] = [];
  const scored = new Set<string>();
  const tooFewSamples: string[] = [];
  const score = (outcomes: Uint8Array) =>
    passAtK(
      outcomes.length,
      outcomes.reduce((sum, value) => sum + value, 0),
      k,
    );
  for (const taskA of a.tasks) {
    const taskB = byTaskB.get(taskA.task);
    if (taskB === undefined) continue;
    if (taskA.outcomes.length < k || taskB.outcomes.length < k) {
      tooFewSamples.push(taskA.task);
      continue;
    }
    ratesA.push(score(taskA.outcomes));
    ratesB.push(score(taskB.outcomes));
    scored.add(taskA.task);
  }
  if (ratesA.length === 0 && tooFewSamples.length > 0) {
    const most = (tasks: readonly TaskOutcomes[]) =>
      tasks.reduce((largest, { outcomes }) => Math.max(largest, outcomes.length), 0);
    throw new RangeError(
      `k = ${k} is more than the samples per task (at most ${most(a.tasks)} in A, ${most(b.tasks)} in B): pass@${k} needs at least ${k} samples of a task in both files; choose a k up to the samples per task`,
    );
  }
  if (ratesA.length === 0)
    throw new RangeError('the two results share no task that can be scored (tasks are paired by id)');
  const common = ratesA.length;
  const spread = common >= 2;
  const interval = spread
    ? pairedBootstrapDiff(ratesA, ratesB, { reps, level, rng })
    : { low: null, high: null };
  const varies = (values: number[]) => spread && sampleVariance(values) > 0;
  const warnings: string[] = [];
  if (!spread)
    warnings.push(
      '1 common task: a standard error and an interval do not exist (shown as n/a); compare on more tasks',
    );
  else if (common < FEW_TASKS)
    warnings.push(
      `only ${common} common tasks: intervals and standard errors from fewer than ${FEW_TASKS} tasks are unreliable`,
    );
  const pairing =
    a.rows !== undefined && b.rows !== undefined
      ? pairingOf(a.rows, b.rows, scored, run)
      : { kind: 'index-only' as const, matched: 0, total: 0, withSeeds: 0, differing: [] };
  if (pairing.kind === 'seeds-differ')
    warnings.push(
      `env seeds differ on ${pairing.withSeeds - pairing.matched} of ${pairing.withSeeds} paired episodes: those pairs did not share random numbers`,
    );
  return {
    harnessDifferences: harnessDifferences(a.harness, b.harness),
    onlyInA,
    onlyInB,
    commonTasks: common,
    k,
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
    tooFewSamples,
    pairing,
    warnings,
  };
}
