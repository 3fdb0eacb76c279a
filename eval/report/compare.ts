import type { TaskOutcomes } from '../io/outcomes.ts';
import { pairedBootstrapDiff } from '../pairedBootstrap.ts';
import { meanDifference, pairedStandardError, pearsonCorrelation, unpairedStandardError } from '../paired.ts';
import { passAtK } from '../passAtK.ts';
import type { RandomSource } from '../randomSource.ts';
import { mean } from '../describe.ts';
import { harnessDifferences, type HarnessDifference } from './harness.ts';

export interface ComparisonReport {
  harnessDifferences: HarnessDifference[];
  onlyInA: string[];
  onlyInB: string[];
  commonTasks: number;
  k: number;
  /** Mean per-task pass@k (pass@1 = mean accuracy) of each system on the common tasks. */
  a: number;
  b: number;
  /** b - a, with the paired-bootstrap interval over tasks. */
  difference: { estimate: number; low: number; high: number; level: number; reps: number };
  pairedSE: number;
  unpairedSE: number;
  correlation: number;
  /** Tasks that could not be scored at k (fewer than k samples on either side). */
  tooFewSamples: string[];
}

/**
 * Pairs two results by task id (never by position) and compares their per-task unbiased pass@k
 * (chapter 17.4): the paired difference with a paired-bootstrap interval, paired and unpaired
 * standard errors, and the per-task correlation that pairing exploits.
 */
export function compareResults(
  a: { tasks: readonly TaskOutcomes[]; harness?: Record<string, unknown> | undefined },
  b: { tasks: readonly TaskOutcomes[]; harness?: Record<string, unknown> | undefined },
  { k = 1, level = 0.95, reps = 2000, rng }: { k?: number; level?: number; reps?: number; rng: RandomSource },
): ComparisonReport {
  const byTaskB = new Map(b.tasks.map((task) => [task.task, task]));
  const namesA = new Set(a.tasks.map(({ task }) => task));
  const onlyInA = a.tasks.filter(({ task }) => !byTaskB.has(task)).map(({ task }) => task);
  const onlyInB = b.tasks.filter(({ task }) => !namesA.has(task)).map(({ task }) => task);
  const ratesA: number[] = [];
  const ratesB: number[] = [];
  const tooFewSamples: string[] = [];
  const score = (outcomes: Uint8Array) => passAtK(outcomes.length, outcomes.reduce((sum, value) => sum + value, 0), k);
  for (const taskA of a.tasks) {
    const taskB = byTaskB.get(taskA.task);
    if (taskB === undefined) continue;
    if (taskA.outcomes.length < k || taskB.outcomes.length < k) {
      tooFewSamples.push(taskA.task);
      continue;
    }
    ratesA.push(score(taskA.outcomes));
    ratesB.push(score(taskB.outcomes));
  }
  if (ratesA.length === 0) throw new RangeError('the two results share no task that can be scored (tasks are paired by id)');
  const interval = pairedBootstrapDiff(ratesA, ratesB, { reps, level, rng });
  return {
    harnessDifferences: harnessDifferences(a.harness, b.harness),
    onlyInA,
    onlyInB,
    commonTasks: ratesA.length,
    k,
    a: mean(ratesA),
    b: mean(ratesB),
    difference: { estimate: meanDifference(ratesA, ratesB), low: interval.low, high: interval.high, level, reps },
    pairedSE: pairedStandardError(ratesA, ratesB),
    unpairedSE: unpairedStandardError(ratesA, ratesB),
    correlation: pearsonCorrelation(ratesA, ratesB),
    tooFewSamples,
  };
}
