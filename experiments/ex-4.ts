/**
 * Exercise 4. A held-out-type experiment for every bug type.
 *
 * Question: 17.6 trained 30 steps without the `zero` type and found the trained agent below the
 *   base agent on it. Is that drop general? Five type-split runs of 30 steps, each leaving one
 *   bug type out (the `zero` one is 17.6's): pass@1 on the unseen type's six tasks at the base
 *   agent (step 0 of that run) and at step 30, with task-level intervals and a paired interval
 *   for the difference; and the entropy of the first edit on the unseen type at both, in bits,
 *   two ways: the policy's own, the entropy of its distribution over the six ops at the decision
 *   of each episode's first edit, averaged over a task's episodes and then over the tasks; and
 *   the entropy of the first edits it sampled, pooled over the type's episodes. A policy sure of
 *   a different op on each task has a low first and a high second; a guessing one, both high.
 *   As a table and a scatter figure (the policy's entropy).
 * Command: npm run ex:4 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: measured 642 s with four of the five type-split runs to train (30 steps each), 21 s
 *   once they exist (their transcripts and the forward passes at the decisions included).
 * Output: results/ex-4.json, results/ex-4.md, results/figures/ex-4-entropy-vs-drop.svg.
 */
import { checkpointOpProbabilitiesAtFirstEdit } from '../agent/index.ts';
import {
  BUG_TYPES,
  firstEditCounts,
  makeTasks,
  REPAIR_OP_FOR,
  type BugType,
  type EditOp,
} from '../gym/index.ts';
import { mean, pairedBootstrapDiff, shannonEntropy, taskBootstrapCI } from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/ex-4.ts';
import {
  countsOf,
  ensureRun,
  evaluateOnCores,
  parseRunOptions,
  runOptions,
  trainingSeedOf,
  typeRunDir,
  type RunOptions,
} from './runs.ts';

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

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const episodes = smoke ? 2 : 32;
  // The smoke version trains one type-split run; the full one all five.
  const types = smoke ? BUG_TYPES.slice(1, 2) : BUG_TYPES;
  const rng = new Rng(seed).fork('ex-4');
  const rows = [];
  for (const type of types) {
    const dir = typeRunDir(run, type, smoke);
    const at = await ensureRun(dir, {
      seed: trainingSeedOf(run),
      smoke,
      steps: [0, 30],
      overrides: { split: 'type', heldOutType: type, steps: 30 },
    });
    const unseen = makeTasks('all').filter((task) => task.type === type);
    const agents = [];
    for (const step of [0, 30]) {
      const evaluation = await evaluateOnCores({
        checkpoint: at(step),
        tasks: unseen,
        episodes,
        seed,
        transcripts: true,
      });
      const counts = countsOf(evaluation.perTask);
      const firstEdits = firstEditCounts(evaluation.records);
      const decisions = await checkpointOpProbabilitiesAtFirstEdit(
        at(step),
        evaluation.records.map((record) => record.transcript ?? []),
        { temperature: evaluation.provenance.harness.temperature },
      );
      const perTask = decisionsByTask(unseen, evaluation.records, decisions, type);
      const taskMeans = (key: 'entropy' | 'rightOp') =>
        meanOrNull(perTask.flatMap((row) => (row[key] === null ? [] : [row[key]])));
      agents.push({
        step,
        passAt1: evaluation.passAt1,
        interval: taskBootstrapCI(counts, { rng: rng.fork(`${type}/${step}`) }),
        rates: counts.successes.map((c, j) => c / (counts.trials[j] as number)),
        firstEdits,
        firstEditEntropy: shannonEntropy(firstEdits),
        firstEditRight: (firstEdits[REPAIR_OP_FOR[type]] ?? 0) / evaluation.records.length,
        decision: { entropy: taskMeans('entropy'), rightOp: taskMeans('rightOp'), perTask },
      });
    }
    const [base, trained] = agents as [(typeof agents)[0], (typeof agents)[0]];
    const difference = pairedBootstrapDiff(base.rates, trained.rates, {
      rng: rng.fork(`${type}/diff`),
    });
    rows.push({
      type,
      run: dir,
      base,
      trained,
      difference: { estimate: trained.passAt1 - base.passAt1, low: difference.low, high: difference.high },
      belowBase: difference.high < 0,
    });
  }
  const numbers = { episodes, rows };
  writeResults(outDir, {
    section: 'ex-4',
    title: 'A held-out-type experiment for every bug type',
    seed,
    smoke,
    config: { run, episodes, types, steps: 30 },
    numbers,
    echo: isMain(import.meta.url),
    ...(await report(numbers)),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('ex:4', () => main(parseRunOptions(process.argv.slice(2))));
