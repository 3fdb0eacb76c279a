/**
 * Exercise 3. A Bayesian alternative to the task bootstrap.
 *
 * Question: task pass rates p_j ~ Beta(a, b) with a weak hyperprior on (a, b), counts c_j ~
 *   Binomial(n, p_j): on the 17.1 counts (32 episodes per held-out task, steps 0 and 80, the same
 *   evaluations as 17.1), how does the 95% credible interval of the population mean a / (a + b)
 *   compare with the task bootstrap's? And is it calibrated: its coverage of the population mean
 *   under the 17.3 setup (Beta(0.4, 0.3), 10 tasks, 32 episodes), beside the task bootstrap's?
 * Command: npm run ex:3 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: mostly the simulation on one core: 2,000 simulated evaluations, each a 4,000-draw
 *   posterior and a 2,000-replicate bootstrap; the two evaluations take seconds with trained
 *   checkpoints.
 * Quotes: results/coverage.json's measured coverage of the credible interval and the task
 *   bootstrap: the committed file, or in exp:all, test:repro and the rebaseline the one the batch
 *   wrote (`resultsToQuote`).
 * Output: results/ex-3.json, results/ex-3.md, results/figures/ex-3-intervals.svg.
 */
import { bayesianNumbers, CREDIBLE_INTERVAL_METHOD, TASK_BOOTSTRAP_METHOD } from '../analysis/index.ts';
import { DEFAULT_REPLICATES } from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/ex-3.ts';
import { resultsToQuote } from './common.ts';
import { ensureRun, evaluateOnCores, parseRunOptions, runOptions, type RunOptions } from './runs.ts';
import { coverageNote } from '../publish/coverageNotes.ts';

const STEPS = [0, 80];
const BETA = [0.4, 0.3] as const;
const TASKS = 10;

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir, batch } = runOptions(options);
  const episodes = smoke ? 4 : 32;
  const draws = smoke ? 2_000 : 20_000;
  const at = await ensureRun(run, { smoke, steps: STEPS });
  const agents = [];
  // The 17.1 evaluation: same checkpoint, episodes and seed, so the same counts.
  for (const step of STEPS)
    agents.push({ step, evaluation: await evaluateOnCores({ checkpoint: at(step), episodes, seed }) });
  const numbers = bayesianNumbers({
    agents,
    draws,
    benchmark: { tasks: TASKS, beta: BETA },
    simulation: {
      evals: smoke ? 20 : 2_000,
      episodes: 32,
      draws: smoke ? 500 : 4_000,
      reps: smoke ? 200 : DEFAULT_REPLICATES,
    },
    rng: new Rng(seed),
  });
  writeResults(outDir, {
    section: 'ex-3',
    title: 'A Bayesian alternative to the task bootstrap',
    seed,
    smoke,
    config: { run, episodes, draws, steps: STEPS, beta: BETA, tasks: TASKS },
    numbers,
    echo: isMain(import.meta.url),
    ...(await report(numbers, {
      coverage: coverageNote(
        [CREDIBLE_INTERVAL_METHOD, TASK_BOOTSTRAP_METHOD],
        resultsToQuote('coverage', batch),
      ),
    })),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('ex:3', () => main(parseRunOptions(process.argv.slice(2))));
