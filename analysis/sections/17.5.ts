/**
 * The numbers of 17.5 (experiments/17.5.ts): how far a pass rate moves when one field of the
 * harness changes and the weights do not; what an agent does with more turns and edits (counted
 * from its episodes); greedy against sampled decoding task by task.
 */
import type { Evaluation } from '../../agent/index.ts';
import { DEFAULT_REPLICATES, taskBootstrapCI } from '../../eval/index.ts';
import { firstEditCounts, REPAIR_OP_FOR, type HarnessInput } from '../../gym/index.ts';
import type { Rng } from '../../lib/rng.ts';
import { countsOf } from '../counts.ts';

/** One agent's evaluation under one harness (its name, and its change from the training harness). */
interface Cell<Step extends number> {
  step: Step;
  harness: string;
  change: HarnessInput;
  evaluation: Evaluation;
}

/** Cells of a greedy evaluation that are neither 0 nor n, and why: the prompt varied between the task's episodes. */
function greedySplits(greedy: Evaluation) {
  return greedy.perTask
    .filter((count) => count.successes > 0 && count.successes < count.episodes)
    .map((count) => {
      const own = greedy.records.filter((record) => record.task === count.name);
      return {
        task: count.name,
        successes: count.successes,
        episodes: count.episodes,
        shownNames: new Set(own.map((record) => record.shownName)).size,
        firstEdit: firstEditCounts(own),
      };
    });
}

/** Every cell's pass@1 with its task-level interval (stream `17.5/<step>/<harness>`), and its move from the same agent under the training harness. */
function harnessRows<Step extends number>(cells: ReadonlyArray<Cell<Step>>, rng: Rng) {
  const rows = cells.map(({ step, harness, change, evaluation }) => {
    const stream = rng.fork(`17.5/${step}/${harness}`);
    const interval = taskBootstrapCI(countsOf(evaluation.perTask), { reps: DEFAULT_REPLICATES, rng: stream });
    return {
      step,
      harness,
      change,
      passAt1: evaluation.passAt1,
      low: interval.low,
      high: interval.high,
      harnessHash: evaluation.provenance.harnessHash,
    };
  });
  const base = (step: number) =>
    rows.find((row) => row.step === step && row.harness === 'training harness')!.passAt1;
  return rows.map((row) => ({ ...row, move: row.passAt1 - base(row.step) }));
}

/**
 * Whether an agent can use more turns or edits at all: with one seed for every harness, an episode
 * plays the same until it tries a second edit (refused under the training harness) or runs out of
 * its 6 turns; the episodes whose outcome moved are counted directly.
 */
function budgetUse(step: number, records: (harness: string) => Evaluation['records']) {
  const own = records('training harness');
  const changed = (harness: string) => {
    const other = records(harness);
    return own.filter((record, i) => record.success !== other[i]!.success).length;
  };
  return {
    step,
    episodes: own.length,
    triedSecondEdit: own.filter((record) => record.editsRefused > 0).length,
    reachedThirdTurn: own.filter((record) => record.turns >= 3).length,
    ranOutOfTurns: own.filter((record) => !record.submitted).length,
    mostTurns: Math.max(...own.map((record) => record.turns)),
    mostTurnsWithTen: Math.max(...records('10 turns').map((record) => record.turns)),
    outcomeChangedByTenTurns: changed('10 turns'),
    outcomeChangedByUnlimitedEdits: changed('unlimited edits'),
  };
}

/**
 * What 17.5 reports: every cell's row; what temperature changes in the trained agent's play
 * (`heat`); each agent's successes within three turns, its use of more turns and edits, and its
 * greedy against its sampled counts. `steps`: the agents, the base agent's first.
 */
export function harnessNumbers<Step extends number>(
  cells: ReadonlyArray<Cell<Step>>,
  steps: readonly Step[],
  rng: Rng,
) {
  const evaluation = (step: number, harness: string) =>
    cells.find((cell) => cell.step === step && cell.harness === harness)!.evaluation;
  const heat = ['training harness', 'temperature 1.3'].map((harness) => {
    const records = evaluation(80, harness).records;
    return {
      harness,
      rightFirstEdit:
        records.filter((record) => record.firstEditOp === REPAIR_OP_FOR[record.type]).length / records.length,
      malformed: records.filter((record) => record.malformed > 0).length / records.length,
    };
  });
  // Why a 3-turn budget costs what it costs: only episodes that submit within 3 turns can pass it.
  const withinThree = steps.map((step) => {
    const records = evaluation(step, 'training harness').records;
    return {
      step,
      successesWithinThreeTurns:
        records.filter((record) => record.success && record.turns <= 3).length / records.length,
    };
  });
  return {
    rows: harnessRows(cells, rng),
    greedy: steps.map((step) => ({
      step,
      sampled: evaluation(step, 'training harness').perTask,
      greedy: evaluation(step, 'greedy').perTask,
      splits: greedySplits(evaluation(step, 'greedy')),
    })),
    withinThree,
    heat,
    budgetUse: steps.map((step) => budgetUse(step, (harness) => evaluation(step, harness).records)),
  };
}

export type Numbers175 = ReturnType<typeof harnessNumbers<0 | 80>>;
