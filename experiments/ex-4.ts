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
 * Runtime: from scratch, mostly training the type-split runs that are missing (30 steps each; four
 *   of the five once 17.6 has trained its own); once they exist, seconds: ten evaluations of 32
 *   episodes per unseen task, their transcripts and the forward passes at the decisions.
 * Output: results/ex-4.json, results/ex-4.md, results/figures/ex-4-entropy-vs-drop.svg.
 */
import { checkpointOpProbabilitiesAtFirstEdit } from '../agent/index.ts';
import { BUG_TYPES, makeTasks } from '../gym/index.ts';
import { heldOutTypeNumbers } from '../analysis/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/ex-4.ts';
import { ensureTypeRun, evaluateOnCores, parseRunOptions, runOptions, type RunOptions } from './runs.ts';

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const episodes = smoke ? 2 : 32;
  // The smoke version trains one type-split run; the full one all five.
  const types = smoke ? BUG_TYPES.slice(1, 2) : BUG_TYPES;
  const measured = [];
  for (const type of types) {
    const { dir, at } = await ensureTypeRun(run, type, smoke);
    const unseen = makeTasks('all').filter((task) => task.type === type);
    // Each episode's transcript, and the policy's op probabilities at its first edit.
    const measure = async (step: number) => {
      const evaluation = await evaluateOnCores({
        checkpoint: at(step),
        tasks: unseen,
        episodes,
        seed,
        transcripts: true,
      });
      const decisions = await checkpointOpProbabilitiesAtFirstEdit(
        at(step),
        evaluation.records.map((record) => record.transcript ?? []),
        { temperature: evaluation.provenance.harness.temperature },
      );
      return { step, evaluation, decisions };
    };
    measured.push({ type, run: dir, tasks: unseen, base: await measure(0), trained: await measure(30) });
  }
  const numbers = heldOutTypeNumbers({ episodes, types: measured, rng: new Rng(seed) });
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
