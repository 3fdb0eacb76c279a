/**
 * 17.5 The harness defines the number.
 *
 * Question: how far does a pass rate move when one field of the harness changes and the weights
 *   do not? The base agent (step 0) and the trained agent (step 80) under the training harness,
 *   the chapter's seven single-field changes and parameter renaming off, with task-level
 *   intervals (Figure 17.2); what the base agent does with more turns and edits (counted from its
 *   episodes); and greedy against sampled decoding task by task.
 * Command: npm run exp:17.5 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: with trained checkpoints, 18 evaluations of 32 episodes per held-out task (steps 0
 *   and 80 under each of the nine harnesses); a missing default run is trained first (`npm run
 *   train`, results/train.json).
 * Output: results/17.5.json, results/17.5.md, results/figures/17.2-pass-by-harness.svg.
 */
import type { HarnessInput } from '../gym/index.ts';
import { harnessNumbers } from '../analysis/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/17.5.ts';
import { ensureRun, evaluateOnCores, parseRunOptions, runOptions, type RunOptions } from './runs.ts';

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

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const episodes = smoke ? 4 : 32;
  const at = await ensureRun(run, { smoke, steps: STEPS });
  const cells = [];
  for (const step of STEPS)
    for (const { name, change } of HARNESSES)
      cells.push({
        step,
        harness: name,
        change,
        // One seed for every cell: each harness sees the same episodes (common random numbers).
        evaluation: await evaluateOnCores({ checkpoint: at(step), harness: change, episodes, seed }),
      });
  const numbers = harnessNumbers(cells, STEPS, new Rng(seed));
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
