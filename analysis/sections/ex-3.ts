/**
 * The numbers of exercise 3 (experiments/ex-3.ts): a hierarchical beta-binomial credible interval
 * of the population mean beside the task bootstrap, on measured counts and in simulation.
 */
import type { Evaluation } from '../../agent/index.ts';
import { DEFAULT_REPLICATES, betaBinomialMeanPosterior, taskBootstrapCI } from '../../eval/index.ts';
import type { Rng } from '../../lib/rng.ts';
import { shareSE } from '../book.ts';
import { countsOf } from '../counts.ts';
import { populationMean, simulateEval, type Benchmark } from './17.3.ts';

/** Coverage of the population mean by the posterior's credible interval and the task bootstrap, on simulated benchmarks. */
function calibration(
  benchmark: Benchmark,
  {
    evals,
    episodes,
    draws,
    reps,
    rng,
  }: { evals: number; episodes: number; draws: number; reps: number; rng: Rng },
) {
  const mean = populationMean(benchmark);
  const hits = { bayes: 0, bootstrap: 0 };
  const widths = { bayes: 0, bootstrap: 0 };
  for (let e = 0; e < evals; e++) {
    const successes = [...simulateEval(benchmark, episodes, rng).successes];
    const trials = successes.map(() => episodes);
    const bayes = betaBinomialMeanPosterior({ successes, trials, draws, rng });
    const bootstrap = taskBootstrapCI({ successes, trials }, { reps, rng });
    for (const [name, interval] of [
      ['bayes', bayes],
      ['bootstrap', bootstrap],
    ] as const) {
      if (interval.low <= mean && mean <= interval.high) hits[name] += 1;
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

/**
 * What exercise 3 reports (every draw from the stream `ex-3` of `rng`): each agent's task
 * bootstrap (stream `task/<step>`) and credible interval (`bayes/<step>`, `draws` posterior
 * draws) on its counts, and both intervals' coverage on benchmarks simulated from `benchmark`
 * (stream `calibration`).
 */
export function bayesianNumbers({
  agents,
  draws,
  benchmark,
  simulation,
  rng: parent,
}: {
  agents: ReadonlyArray<{ step: number; evaluation: Evaluation }>;
  draws: number;
  benchmark: Benchmark;
  simulation: { evals: number; episodes: number; draws: number; reps: number };
  rng: Rng;
}) {
  const rng = parent.fork('ex-3');
  return {
    agents: agents.map(({ step, evaluation }) => {
      const counts = countsOf(evaluation.perTask);
      const bootstrap = taskBootstrapCI(counts, { reps: DEFAULT_REPLICATES, rng: rng.fork(`task/${step}`) });
      const bayes = betaBinomialMeanPosterior({ ...counts, draws, rng: rng.fork(`bayes/${step}`) });
      return { step, passAt1: evaluation.passAt1, counts: counts.successes, bootstrap, bayes };
    }),
    calibration: calibration(benchmark, { ...simulation, rng: rng.fork('calibration') }),
    populationMean: populationMean(benchmark),
  };
}

export type NumbersEx3 = ReturnType<typeof bayesianNumbers>;
