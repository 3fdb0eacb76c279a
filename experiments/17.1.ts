/**
 * 17.1 What a pass rate estimates (and 17.3 on the measured counts).
 *
 * Question: what does the base agent (step 0) and the trained agent (step 80) pass on the
 *   held-out tasks, task by task, and what do they do first? Then, on those counts: how wide are
 *   the episode-level and the task-level intervals, how correlated are a task's episodes (the
 *   moment estimate of the intraclass correlation rho) and what is the design effect 1 + (n-1) rho?
 * Command: npm run exp:17.1 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: with trained checkpoints, two evaluations of 32 episodes per held-out task (steps 0
 *   and 80); training the default run first, when it is missing, takes what `npm run train`
 *   takes (README, results/train.json).
 * Quotes: results/coverage.json's measured coverage of the task and episode bootstraps: the
 *   committed file, or in exp:all, test:repro and the rebaseline the one the batch wrote
 *   (`resultsToQuote`).
 * Output: results/17.1.json, results/17.1.md.
 */
import { EPISODE_BOOTSTRAP_METHOD, passRateNumbers, TASK_BOOTSTRAP_METHOD } from '../analysis/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/17.1.ts';
import { resultsToQuote } from './common.ts';
import { ensureRun, evaluateOnCores, parseRunOptions, runOptions, type RunOptions } from './runs.ts';
import { coverageNote } from '../publish/coverageNotes.ts';

const STEPS = [0, 80] as const;

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir, batch } = runOptions(options);
  const episodes = smoke ? 4 : 32;
  const at = await ensureRun(run, { smoke, steps: STEPS });
  const agents = [];
  for (const step of STEPS)
    agents.push({ step, evaluation: await evaluateOnCores({ checkpoint: at(step), episodes, seed }) });
  const numbers = passRateNumbers(agents, new Rng(seed));
  writeResults(outDir, {
    section: '17.1',
    title: 'What a pass rate estimates',
    seed,
    smoke,
    config: { run, episodes, steps: STEPS },
    numbers,
    echo: isMain(import.meta.url),
    ...report(numbers, {
      episodes,
      coverage: coverageNote(
        [TASK_BOOTSTRAP_METHOD, EPISODE_BOOTSTRAP_METHOD],
        resultsToQuote('coverage', batch),
      ),
    }),
  });
  return { agents: numbers };
}

if (isMain(import.meta.url)) await runScript('exp:17.1', () => main(parseRunOptions(process.argv.slice(2))));
