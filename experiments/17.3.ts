/**
 * 17.3 Confidence intervals.
 *
 * Question: how often do the usual intervals cover the truth? Wald vs Wilson for one task near
 *   the boundary; and for a benchmark of 10 tasks, does resampling episodes or resampling tasks
 *   cover the population pass rate? (Figure 17.1: coverage vs episodes per task.) Each simulated
 *   coverage comes with its Monte Carlo SE and a reference without simulation error (exact
 *   binomial sums; the exact 2000-replicate bootstrap coverage) or with a small one (a large
 *   simulation that scores each simulated benchmark by its exact bootstrap coverage).
 *   The chapter's last item (the 17.1 counts of the trained agent) needs a trained agent and
 *   is not part of this script.
 * Command: npm run exp:17.3 [-- --seed S --smoke --out DIR]   (node --import tsx experiments/17.3.ts)
 * Runtime: the simulations, on two cores: 20,000 evaluations per pass rate for Wald and Wilson;
 *   2,000 simulated benchmarks with 2,000-replicate bootstraps and 50,000 scored by their exact
 *   bootstrap coverage; for the figure 300 with 1,000 replicates at each of 1 to 64 episodes per
 *   task (smoke: far fewer, well under a second).
 * Output: results/17.3.json, results/17.3.md, results/figures/17.1-coverage-vs-episodes.svg.
 */
import { confidenceIntervalNumbers, populationMean, type CoverageConfig } from '../analysis/index.ts';
import { DEFAULT_REPLICATES } from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { parseStatisticsOptions } from './common.ts';
import { ROOT } from '../lib/paths.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/17.3.ts';

const WALD_WILSON_PASS_RATES = [0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.97];
const EPISODES = 40;
const TASKS = 10;
const BETA = [0.4, 0.3] as const; // U-shaped task pass rates, as on agent benchmarks
const BOOK = {
  episodeCoversPopulation: 0.38,
  episodeCoversTasks: 0.998,
  taskCoversPopulation: 0.93,
  wilson: [0.93, 0.97] as const,
  waldEdge: 0.7,
};

export async function main({ seed = 0, smoke = false, outDir = `${ROOT}results` } = {}) {
  const config = {
    waldWilson: { episodes: EPISODES, passRates: WALD_WILSON_PASS_RATES, evals: smoke ? 1_000 : 20_000 },
    unit: {
      tasks: TASKS,
      beta: BETA,
      episodesPerTask: 32,
      evals: smoke ? 60 : 2_000,
      reps: smoke ? 300 : DEFAULT_REPLICATES,
    },
    reference: { evals: smoke ? 300 : 50_000 },
    figure: {
      episodesPerTask: smoke ? [1, 4, 16, 64] : Array.from({ length: 64 }, (_, i) => i + 1),
      evals: smoke ? 40 : 300,
      reps: smoke ? 300 : 1_000,
    },
  } satisfies CoverageConfig;
  const numbers = confidenceIntervalNumbers(config, BOOK, new Rng(seed));
  writeResults(outDir, {
    section: '17.3',
    title: 'Confidence intervals',
    seed,
    smoke,
    config,
    numbers,
    echo: !smoke || isMain(import.meta.url),
    ...(await report(numbers, { ...config, populationMean: populationMean(config.unit) })),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('exp:17.3', () => main(parseStatisticsOptions()));
