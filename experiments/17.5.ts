/**
 * 17.5 The harness defines the number.
 *
 * Question: how far does a pass rate move when one field of the harness changes and the weights
 *   do not? The base agent (step 0) and the trained agent (step 80) under the training harness,
 *   the chapter's seven single-field changes and parameter renaming off, with task-level
 *   intervals (Figure 17.2); what the base agent does with more turns and edits (counted from its
 *   episodes); and greedy against sampled decoding task by task.
 * Command: npm run exp:17.5 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: about 30 s with trained checkpoints.
 * Output: results/17.5.json, results/17.5.md, results/figures/17.2-pass-by-harness.svg.
 */
import { firstEditCounts, REPAIR_OP_FOR, type HarnessInput } from '../gym/index.ts';
import { taskBootstrapCI } from '../eval/index.ts';
import type { Evaluation } from '../agent/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report, type Numbers } from '../publish/sections/17.5.ts';
import {
  countsOf,
  ensureRun,
  evaluateOnCores,
  parseRunOptions,
  runOptions,
  type RunOptions,
} from './runs.ts';

/** The training harness, the chapter's seven single-field changes, and one of ours (parameter renaming). */
const HARNESSES: Array<{ name: string; change: HarnessInput }> = [
  { name: 'training harness', change: {} },
  { name: 'temperature 1.3', change: { temperature: 1.3 } },
  { name: 'temperature 0.7', change: { temperature: 0.7 } },
  { name: 'greedy', change: { temperature: 0 } },
  { name: '3 turns', change: { maxTurns: 3 } },
  { name: '10 turns', change: { maxTurns: 10 } },
  { name: 'unlimited edits', change: { maxEdits: null } },
  // The chapter's renaming is the function name's; the parameters' renaming is a field of ours, its own row.
  { name: 'renaming off', change: { randomizeNames: false } },
  { name: 'parameter renaming off', change: { renameParams: false } },
];
const STEPS = [0, 80] as const;

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

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const episodes = smoke ? 4 : 32;
  const at = await ensureRun(run, { smoke, steps: STEPS });
  const rows: Array<Omit<Numbers['rows'][number], 'move'> & { perTask: Evaluation['perTask'] }> = [];
  const evaluations = new Map<string, Evaluation>();
  for (const step of STEPS) {
    for (const { name, change } of HARNESSES) {
      // One seed for every cell: each harness sees the same episodes (common random numbers).
      const evaluation = await evaluateOnCores({ checkpoint: at(step), harness: change, episodes, seed });
      evaluations.set(`${step}/${name}`, evaluation);
      const interval = taskBootstrapCI(countsOf(evaluation.perTask), {
        rng: new Rng(seed).fork(`17.5/${step}/${name}`),
      });
      rows.push({
        step,
        harness: name,
        change,
        passAt1: evaluation.passAt1,
        low: interval.low,
        high: interval.high,
        harnessHash: evaluation.provenance.harnessHash,
        perTask: evaluation.perTask,
      });
    }
  }
  const base = (step: number) =>
    rows.find((row) => row.step === step && row.harness === 'training harness')!.passAt1;
  const moves = rows.map((row) => ({ ...row, move: row.passAt1 - base(row.step) }));
  // What temperature changes in the trained agent's play: its first edit, and broken actions.
  const heat = ['training harness', 'temperature 1.3'].map((harness) => {
    const records = evaluations.get(`80/${harness}`)!.records;
    return {
      harness,
      rightFirstEdit:
        records.filter((record) => record.firstEditOp === REPAIR_OP_FOR[record.type]).length / records.length,
      malformed: records.filter((record) => record.malformed > 0).length / records.length,
    };
  });
  // Why a 3-turn budget costs what it costs: only episodes that submit within 3 turns can pass it.
  const withinThree = STEPS.map((step) => {
    const records = evaluations.get(`${step}/training harness`)!.records;
    return {
      step,
      successesWithinThreeTurns:
        records.filter((record) => record.success && record.turns <= 3).length / records.length,
    };
  });
  // Whether an agent can use more turns or edits at all: with one seed for every harness, an episode
  // plays the same until it tries a second edit (refused under the training harness) or runs out of
  // its 6 turns; the episodes whose outcome moved are counted directly.
  const budgetUse = STEPS.map((step) => {
    const records = evaluations.get(`${step}/training harness`)!.records;
    const changed = (harness: string) => {
      const other = evaluations.get(`${step}/${harness}`)!.records;
      return records.filter((record, i) => record.success !== other[i]!.success).length;
    };
    return {
      step,
      episodes: records.length,
      triedSecondEdit: records.filter((record) => record.editsRefused > 0).length,
      reachedThirdTurn: records.filter((record) => record.turns >= 3).length,
      ranOutOfTurns: records.filter((record) => !record.submitted).length,
      mostTurns: Math.max(...records.map((record) => record.turns)),
      mostTurnsWithTen: Math.max(
        ...evaluations.get(`${step}/10 turns`)!.records.map((record) => record.turns),
      ),
      outcomeChangedByTenTurns: changed('10 turns'),
      outcomeChangedByUnlimitedEdits: changed('unlimited edits'),
    };
  });
  const greedy = STEPS.map((step) => ({
    step,
    sampled: evaluations.get(`${step}/training harness`)!.perTask,
    greedy: evaluations.get(`${step}/greedy`)!.perTask,
    splits: greedySplits(evaluations.get(`${step}/greedy`)!),
  }));

  const numbers = {
    rows: moves.map(({ perTask: _perTask, ...row }) => row),
    greedy,
    withinThree,
    heat,
    budgetUse,
  };
  writeResults(outDir, {
    section: '17.5',
    title: 'The harness defines the number',
    seed,
    smoke,
    config: { run, episodes, harnesses: HARNESSES },
    numbers,
    echo: isMain(import.meta.url),
    ...(await report(numbers, { episodes, harnesses: HARNESSES, steps: STEPS })),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('exp:17.5', () => main(parseRunOptions(process.argv.slice(2))));
