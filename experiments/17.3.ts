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
 * Runtime: about 15 s on two cores (smoke: under a second).
 * Output: results/17.3.json, results/17.3.md, results/figures/17.1-coverage-vs-episodes.svg.
 */
import {
  betaBinomialPmf,
  binomialPmf,
  convolvePmf,
  DEFAULT_REPLICATES,
  episodeBootstrapCI,
  intervalCoverage,
  percentileCoverage,
  sampleBeta,
  sampleBinomial,
  taskBootstrapCI,
  taskBootstrapDistribution,
  waldInterval,
  wilsonInterval,
} from '../eval/index.ts';
import { progressBar } from '../lib/progress.ts';
import { Rng } from '../lib/rng.ts';
import { compareWithBook, compareWithRange, shareSE } from '../publish/book.ts';
import { isMain, runScript } from '../lib/script.ts';
import { parseStatisticsOptions } from './common.ts';
import { ROOT } from '../lib/paths.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/17.3.ts';

const WALD_WILSON_PASS_RATES = [0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.97];
const EPISODES = 40;
const TASKS = 10;
const BETA = [0.4, 0.3] as const; // U-shaped task pass rates, as on agent benchmarks
const POPULATION_MEAN = BETA[0] / (BETA[0] + BETA[1]);
const BOOK = {
  episodeCoversPopulation: 0.38,
  episodeCoversTasks: 0.998,
  taskCoversPopulation: 0.93,
  wilson: [0.93, 0.97] as const,
  waldEdge: 0.7,
};

/** One simulated benchmark: task rates from Beta(0.4, 0.3), c_j ~ Binomial(n, p_j). */
function simulateEval(episodesPerTask: number, rng: Rng): { successes: Int32Array; tasksMean: number } {
  const successes = new Int32Array(TASKS);
  let sum = 0;
  for (let j = 0; j < TASKS; j++) {
    const p = sampleBeta(BETA[0], BETA[1], rng);
    sum += p;
    successes[j] = sampleBinomial(episodesPerTask, p, rng);
  }
  return { successes, tasksMean: sum / TASKS };
}

/** Coverage of the population mean by episode- and task-level bootstrap intervals at n episodes per task. */
function unitCoverage(episodesPerTask: number, evals: number, reps: number, rng: Rng) {
  let episodeCoversPopulation = 0;
  let episodeCoversTasks = 0;
  let taskCoversPopulation = 0;
  for (let e = 0; e < evals; e++) {
    const { successes, tasksMean } = simulateEval(episodesPerTask, rng);
    const counts = { successes, trials: episodesPerTask };
    const episode = episodeBootstrapCI(counts, { reps, rng });
    const task = taskBootstrapCI(counts, { reps, rng });
    if (episode.low <= POPULATION_MEAN && POPULATION_MEAN <= episode.high) episodeCoversPopulation++;
    if (episode.low <= tasksMean && tasksMean <= episode.high) episodeCoversTasks++;
    if (task.low <= POPULATION_MEAN && POPULATION_MEAN <= task.high) taskCoversPopulation++;
  }
  return {
    episodeCoversPopulation: episodeCoversPopulation / evals,
    episodeCoversTasks: episodeCoversTasks / evals,
    taskCoversPopulation: taskCoversPopulation / evals,
  };
}

/**
 * Exact episode-level coverage of the population mean: the pooled count S is a sum of TASKS
 * beta-binomials (their convolution), and given S the episode bootstrap distribution is
 * Binomial(M, S/M), whose `reps`-replicate percentile coverage percentileCoverage gives exactly.
 */
function exactEpisodeCoverage(episodesPerTask: number, reps: number): number {
  const one = betaBinomialPmf(episodesPerTask, BETA[0], BETA[1]);
  let pooled: Float64Array = Float64Array.of(1);
  for (let j = 0; j < TASKS; j++) pooled = convolvePmf(one, pooled);
  const episodes = TASKS * episodesPerTask;
  let coverage = 0;
  for (let s = 0; s <= episodes; s++)
    coverage +=
      (pooled[s] as number) *
      percentileCoverage(binomialPmf(episodes, s / episodes), episodes, POPULATION_MEAN, { reps });
  return coverage;
}

/**
 * A large simulation without bootstrap noise: each simulated benchmark is scored by the exact
 * probability that its `reps`-replicate interval covers, so only the benchmarks are simulated.
 */
function referenceCoverage(episodesPerTask: number, evals: number, reps: number, rng: Rng) {
  const episodes = TASKS * episodesPerTask;
  const episodeDistributions = new Map<number, Float64Array>();
  const tasks = new Float64Array(evals);
  const own = new Float64Array(evals);
  for (let e = 0; e < evals; e++) {
    const { successes, tasksMean } = simulateEval(episodesPerTask, rng);
    const total = successes.reduce((a, b) => a + b, 0);
    if (!episodeDistributions.has(total))
      episodeDistributions.set(total, binomialPmf(episodes, total / episodes));
    own[e] = percentileCoverage(episodeDistributions.get(total) as Float64Array, episodes, tasksMean, {
      reps,
    });
    tasks[e] = percentileCoverage(
      taskBootstrapDistribution(successes, episodesPerTask),
      episodes,
      POPULATION_MEAN,
      { reps },
    );
  }
  const summary = (values: Float64Array) => {
    const mean = values.reduce((a, b) => a + b, 0) / evals;
    const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (evals - 1);
    return { coverage: mean, se: Math.sqrt(variance / evals) };
  };
  return { episodeCoversTasks: summary(own), taskCoversPopulation: summary(tasks) };
}

export async function main(opts: { seed?: number; smoke?: boolean; outDir?: string } = {}) {
  const { seed = 0, smoke = false, outDir = `${ROOT}results` } = opts;
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
  };
  const rng = new Rng(seed);

  // Wald vs Wilson: simulated coverage, and the exact binomial coverage beside it.
  const waldWilson = config.waldWilson.passRates.map((p) => {
    const stream = rng.fork(`wald-wilson/${p}`);
    let wald = 0;
    let wilson = 0;
    // An evaluation that sees no failure (or no success) gets a Wald interval of width zero.
    let allAlike = 0;
    for (let e = 0; e < config.waldWilson.evals; e++) {
      const c = sampleBinomial(EPISODES, p, stream);
      const a = waldInterval(c, EPISODES);
      const b = wilsonInterval(c, EPISODES);
      if (a.low <= p && p <= a.high) wald++;
      if (b.low <= p && p <= b.high) wilson++;
      if (c === 0 || c === EPISODES) allAlike++;
    }
    const pmf = binomialPmf(EPISODES, p);
    const [waldShare, wilsonShare] = [wald / config.waldWilson.evals, wilson / config.waldWilson.evals];
    return {
      p,
      wald: waldShare,
      waldSE: shareSE(waldShare, config.waldWilson.evals),
      wilson: wilsonShare,
      wilsonSE: shareSE(wilsonShare, config.waldWilson.evals),
      waldExact: intervalCoverage(EPISODES, p, waldInterval),
      wilsonExact: intervalCoverage(EPISODES, p, wilsonInterval),
      allAlike: allAlike / config.waldWilson.evals,
      allAlikeExact: (pmf[0] as number) + (pmf[EPISODES] as number),
    };
  });

  // Which unit to resample: 10 tasks x 32 episodes; ours, then the references.
  const { episodesPerTask, evals, reps } = config.unit;
  const simulated = unitCoverage(episodesPerTask, evals, reps, rng.fork('unit'));
  const reference = referenceCoverage(episodesPerTask, config.reference.evals, reps, rng.fork('reference'));
  const unit = {
    ...simulated,
    se: {
      episodeCoversPopulation: shareSE(simulated.episodeCoversPopulation, evals),
      episodeCoversTasks: shareSE(simulated.episodeCoversTasks, evals),
      taskCoversPopulation: shareSE(simulated.taskCoversPopulation, evals),
    },
    exact: {
      episodeCoversPopulation: exactEpisodeCoverage(episodesPerTask, reps),
      episodeCoversPopulationUnlimitedReps: exactEpisodeCoverage(episodesPerTask, Infinity),
    },
    largeSimulation: { evals: config.reference.evals, ...reference },
  };

  // Figure 17.1: the same at n = 1..64 episodes per task, with the exact episode-level curve.
  const bar = progressBar('17.3 figure', config.figure.episodesPerTask.length);
  const figure = config.figure.episodesPerTask.map((n, i) => {
    const point = unitCoverage(n, config.figure.evals, config.figure.reps, rng.fork(`figure/${n}`));
    bar.tick(i + 1, `n=${n}`);
    return {
      episodesPerTask: n,
      episodeLevel: point.episodeCoversPopulation,
      episodeLevelExact: exactEpisodeCoverage(n, config.figure.reps),
      taskLevel: point.taskCoversPopulation,
    };
  });
  bar.done();
  const verdicts = {
    episodeCoversPopulation: compareWithBook({
      book: BOOK.episodeCoversPopulation,
      reference: unit.exact.episodeCoversPopulation,
      evals,
    }),
    episodeCoversTasks: compareWithBook({
      book: BOOK.episodeCoversTasks,
      reference: reference.episodeCoversTasks.coverage,
      referenceSE: reference.episodeCoversTasks.se,
      evals,
    }),
    taskCoversPopulation: compareWithBook({
      book: BOOK.taskCoversPopulation,
      reference: reference.taskCoversPopulation.coverage,
      referenceSE: reference.taskCoversPopulation.se,
      evals,
    }),
    wilson: waldWilson.map(({ p, wilsonExact }) => ({
      p,
      ...compareWithRange({ value: wilsonExact, low: BOOK.wilson[0], high: BOOK.wilson[1] }),
    })),
  };
  const numbers = { waldWilson, unit, figure, book: BOOK, verdicts };
  writeResults(outDir, {
    section: '17.3',
    title: 'Confidence intervals',
    seed,
    smoke,
    config,
    numbers,
    echo: !smoke || isMain(import.meta.url),
    ...(await report(numbers, { ...config, populationMean: POPULATION_MEAN })),
  });
  return numbers;
}

if (isMain(import.meta.url))
  await runScript('exp:17.3', () => main(parseStatisticsOptions(process.argv.slice(2))));
