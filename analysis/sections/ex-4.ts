/**
 * The numbers of exercise 4 (experiments/ex-4.ts): a held-out-type experiment for every bug type.
 * Per type, a run trained without it, at step 0 and at its last step on the type's tasks: pass@1
 * with its task-level interval, the first edits sampled, and the policy's own distribution at the
 * decision of its first edit; the change from step 0 with its paired interval.
 */
import type { Evaluation } from '../../agent/index.ts';
import {
  DEFAULT_REPLICATES,
  mean,
  pairedBootstrapDiff,
  shannonEntropy,
  taskBootstrapCI,
} from '../../eval/index.ts';
import { firstEditCounts, REPAIR_OP_FOR, type BugType, type EditOp } from '../../gym/index.ts';
import type { Rng } from '../../lib/rng.ts';
import { countsOf } from '../counts.ts';

/** A mean that is undefined (null) over nothing. */
const meanOrNull = (values: readonly number[]) => (values.length === 0 ? null : mean(values));

/**
 * Per task, the policy's entropy (bits) over the six ops at its first edit's decision and the
 * probability it gives the type's repair there, each averaged over the task's episodes that made
 * an edit (the ops' probabilities renormalised over the six; `shannonEntropy` normalises them).
 */
function decisionsByTask(
  tasks: readonly { name: string }[],
  records: readonly { task: string }[],
  decisions: ReadonlyArray<Record<EditOp, number> | null>,
  type: BugType,
) {
  return tasks.map(({ name }) => {
    const total = (decision: Record<EditOp, number>) => Object.values(decision).reduce((a, b) => a + b, 0);
    // An episode without an edit has no decision; nor has one whose six ops all got 0 (greedy on another word).
    const own = decisions.filter(
      (decision, i): decision is Record<EditOp, number> =>
        decision !== null && records[i]!.task === name && total(decision) > 0,
    );
    return {
      task: name,
      episodes: own.length,
      entropy: meanOrNull(own.map((decision) => shannonEntropy(decision)!)),
      rightOp: meanOrNull(own.map((decision) => decision[REPAIR_OP_FOR[type]] / total(decision))),
    };
  });
}

/** One checkpoint evaluated on its type's held-out tasks, with the policy's op probabilities at each episode's first edit (null: no edit). */
interface Measured {
  step: number;
  evaluation: Evaluation;
  decisions: ReadonlyArray<Record<EditOp, number> | null>;
}

/** One checkpoint's numbers (its interval from the stream `<type>/<step>`). */
function checkpointNumbers(
  { step, evaluation, decisions }: Measured,
  { type, tasks, rng }: { type: BugType; tasks: readonly { name: string }[]; rng: Rng },
) {
  const counts = countsOf(evaluation.perTask);
  const firstEdits = firstEditCounts(evaluation.records);
  const perTask = decisionsByTask(tasks, evaluation.records, decisions, type);
  const taskMeans = (key: 'entropy' | 'rightOp') =>
    meanOrNull(perTask.flatMap((row) => (row[key] === null ? [] : [row[key]])));
  return {
    step,
    passAt1: evaluation.passAt1,
    interval: taskBootstrapCI(counts, { reps: DEFAULT_REPLICATES, rng: rng.fork(`${type}/${step}`) }),
    rates: counts.successes.map((c, j) => c / (counts.trials[j] as number)),
    firstEdits,
    // Entropy (bits) of the first edits sampled, pooled over the type's episodes ('(none)' an outcome of its own).
    firstEditEntropy: shannonEntropy(firstEdits),
    firstEditRight: (firstEdits[REPAIR_OP_FOR[type]] ?? 0) / evaluation.records.length,
    // The policy's own distribution at the decision: per task, and the means over the tasks.
    decision: { entropy: taskMeans('entropy'), rightOp: taskMeans('rightOp'), perTask },
  };
}

/**
 * What exercise 4 reports (every draw from the stream `ex-4` of `rng`): per type, its run, both
 * checkpoints' numbers, and the trained checkpoint's change from the base one with its paired
 * bootstrap interval (stream `<type>/diff`); below base when the whole interval is below 0.
 */
export function heldOutTypeNumbers({
  episodes,
  types,
  rng: parent,
}: {
  episodes: number;
  types: ReadonlyArray<{
    type: BugType;
    run: string;
    tasks: readonly { name: string }[];
    base: Measured;
    trained: Measured;
  }>;
  rng: Rng;
}) {
  const rng = parent.fork('ex-4');
  const rows = types.map(({ type, run, tasks, ...measured }) => {
    const base = checkpointNumbers(measured.base, { type, tasks, rng });
    const trained = checkpointNumbers(measured.trained, { type, tasks, rng });
    const difference = pairedBootstrapDiff(base.rates, trained.rates, {
      reps: DEFAULT_REPLICATES,
      rng: rng.fork(`${type}/diff`),
    });
    return {
      type,
      run,
      base,
      trained,
      difference: { estimate: trained.passAt1 - base.passAt1, low: difference.low, high: difference.high },
      belowBase: difference.high < 0,
    };
  });
  return { episodes, rows };
}

export type NumbersEx4 = ReturnType<typeof heldOutTypeNumbers>;
