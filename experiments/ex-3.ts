/**
 * Exercise 3. A Bayesian alternative to the task bootstrap.
 *
 * Question: task pass rates p_j ~ Beta(a, b) with a weak hyperprior on (a, b), counts c_j ~
 *   Binomial(n, p_j): on the 17.1 counts (32 episodes per held-out task, steps 0 and 80, the same
 *   evaluations as 17.1), how does the 95% credible interval of the population mean a / (a + b)
 *   compare with the task bootstrap's? And is it calibrated: its coverage of the population mean
 *   under the 17.3 setup (Beta(0.4, 0.3), 10 tasks, 32 episodes), beside the task bootstrap's?
 * Command: npm run ex:3 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: measured 270 s at a load average of 17 (62 s of CPU): 2,000 simulated evaluations, each
 *   a 4,000-draw posterior and a 2,000-replicate bootstrap; the two evaluations take seconds with
 *   trained checkpoints.
 * Output: results/ex-3.json, results/ex-3.md, results/figures/ex-3-intervals.svg.
 */
import {
  betaBinomialMeanPosterior,
  DEFAULT_REPLICATES,
  sampleBeta,
  sampleBinomial,
  taskBootstrapCI,
} from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { shareSE } from '../publish/book.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/ex-3.ts';
import {
  countsOf,
  ensureRun,
  evaluateOnCores,
  parseRunOptions,
  runOptions,
  type RunOptions,
} from './runs.ts';
import { coverageNote, CREDIBLE_INTERVAL_METHOD, TASK_BOOTSTRAP_METHOD } from '../publish/coverageNotes.ts';

const STEPS = [0, 80];
const BETA = [0.4, 0.3] as const;
const POPULATION_MEAN = BETA[0] / (BETA[0] + BETA[1]);
const TASKS = 10;

/** Coverage of the population mean by the posterior's credible interval and the task bootstrap, on simulated benchmarks. */
function calibration({
  evals,
  episodes,
  draws,
  reps,
  rng,
}: {
  evals: number;
  episodes: number;
  draws: number;
  reps: number;
  rng: Rng;
}) {
  const hits = { bayes: 0, bootstrap: 0 };
  const widths = { bayes: 0, bootstrap: 0 };
  for (let e = 0; e < evals; e++) {
    const successes = Array.from({ length: TASKS }, () =>
      sampleBinomial(episodes, sampleBeta(BETA[0], BETA[1], rng), rng),
    );
    const trials = successes.map(() => episodes);
    const bayes = betaBinomialMeanPosterior({ successes, trials, draws, rng });
    const bootstrap = taskBootstrapCI({ successes, trials }, { reps, rng });
    for (const [name, interval] of [
      ['bayes', bayes],
      ['bootstrap', bootstrap],
    ] as const) {
      if (interval.low <= POPULATION_MEAN && POPULATION_MEAN <= interval.high) hits[name] += 1;
      widths[name] += (interval.high - interval.low) / evals;
    }
  }
  const coverage = (name: 'bayes' | 'bootstrap') => ({
    coverage: hits[name] / evals,
    se: shareSE(hits[name] / evals, evals),
    meanWidth: widths[name],
  });
  return { evals, bayes: coverage('bayes'), bootstrap: coverage('bootstrap') };
}

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const episodes = smoke ? 4 : 32;
  const draws = smoke ? 2_000 : 20_000;
  const rng = new Rng(seed).fork('ex-3');
  const at = await ensureRun(run, { smoke, steps: STEPS });
  const agents = [];
  for (const step of STEPS) {
    // The 17.1 evaluation: same checkpoint, episodes and seed, so the same counts.
    const evaluation = await evaluateOnCores({ checkpoint: at(step), episodes, seed });
    const counts = countsOf(evaluation.perTask);
    const bootstrap = taskBootstrapCI(counts, { rng: rng.fork(`task/${step}`) });
    const bayes = betaBinomialMeanPosterior({ ...counts, draws, rng: rng.fork(`bayes/${step}`) });
    agents.push({ step, passAt1: evaluation.passAt1, counts: counts.successes, bootstrap, bayes });
  }
  const simulation = calibration({
    evals: smoke ? 20 : 2_000,
    episodes: 32,
    draws: smoke ? 500 : 4_000,
    reps: smoke ? 200 : DEFAULT_REPLICATES,
    rng: rng.fork('calibration'),
  });
  const numbers = { agents, calibration: simulation, populationMean: POPULATION_MEAN };
  writeResults(outDir, {
    section: 'ex-3',
    title: 'A Bayesian alternative to the task bootstrap',
    seed,
    smoke,
    config: { run, episodes, draws, steps: STEPS, beta: BETA, tasks: TASKS },
    numbers,
    echo: isMain(import.meta.url),
    ...(await report(numbers, {
      coverage: coverageNote([CREDIBLE_INTERVAL_METHOD, TASK_BOOTSTRAP_METHOD]),
    })),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('ex:3', () => main(parseRunOptions(process.argv.slice(2))));
