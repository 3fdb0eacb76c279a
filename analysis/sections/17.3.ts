/**
 * The numbers of 17.3 (experiments/17.3.ts): how often the usual intervals cover the truth. Wald
 * against Wilson for one task near the boundary; episode- against task-level resampling for a
 * benchmark of tasks whose pass rates are drawn from a beta distribution; each simulated coverage
 * beside a reference without simulation error (exact binomial sums; the exact bootstrap
 * coverage) or with a small one (a large simulation scored by exact bootstrap coverage).
 */
import {
  betaBinomialPmf,
  binomialPmf,
  convolvePmf,
  episodeBootstrapCI,
  intervalCoverage,
  mean,
  percentileCoverage,
  sampleBeta,
  sampleBinomial,
  sampleVariance,
  taskBootstrapCI,
  taskBootstrapDistribution,
  waldInterval,
  wilsonInterval,
} from '../../eval/index.ts';
import { progressBar } from '../../lib/progress.ts';
import type { Rng } from '../../lib/rng.ts';
import { compareWithBook, compareWithRange, shareSE } from '../book.ts';
import { getOrAdd, recordOf } from '../../lib/collections.ts';

/** The simulated benchmark: `tasks` tasks whose pass rates are drawn from Beta(beta[0], beta[1]). */
export interface Benchmark {
  tasks: number;
  beta: readonly [number, number];
}

/** The mean of the benchmark's beta distribution: the population pass rate the intervals should cover. */
export const populationMean = ({ beta }: Benchmark) => beta[0] / (beta[0] + beta[1]);

/** The book's figures 17.3 is compared with. */
export interface BookCoverage {
  episodeCoversPopulation: number;
  episodeCoversTasks: number;
  taskCoversPopulation: number;
  /** The range the book gives Wilson's coverage. */
  wilson: readonly [number, number];
  waldEdge: number;
}

/** What the experiment sets: the simulations' sizes and the benchmark. */
export interface CoverageConfig {
  waldWilson: { episodes: number; passRates: readonly number[]; evals: number };
  unit: Benchmark & { episodesPerTask: number; evals: number; reps: number };
  reference: { evals: number };
  figure: { episodesPerTask: readonly number[]; evals: number; reps: number };
}

/** One simulated benchmark: task rates from the beta distribution, c_j ~ Binomial(n, p_j). */
export function simulateEval(
  { tasks, beta }: Benchmark,
  episodesPerTask: number,
  rng: Rng,
): { successes: Int32Array; tasksMean: number } {
  const successes = new Int32Array(tasks);
  let sum = 0;
  for (let j = 0; j < tasks; j++) {
    const p = sampleBeta(beta[0], beta[1], rng);
    sum += p;
    successes[j] = sampleBinomial(episodesPerTask, p, rng);
  }
  return { successes, tasksMean: sum / tasks };
}

const UNIT_FIGURES = ['episodeCoversPopulation', 'episodeCoversTasks', 'taskCoversPopulation'] as const;

/** A simulation's design: the benchmark, episodes per task, simulated evaluations, and bootstrap replicates. */
type Design = CoverageConfig['unit'];

/** Coverage of the population mean by episode- and task-level bootstrap intervals at n episodes per task. */
function unitCoverage(benchmark: Design, rng: Rng) {
  const { episodesPerTask, evals, reps } = benchmark;
  const mean = populationMean(benchmark);
  const covered = recordOf(UNIT_FIGURES, () => 0);
  const covers = ({ low, high }: { low: number; high: number }, truth: number) =>
    low <= truth && truth <= high;
  for (let e = 0; e < evals; e++) {
    const { successes, tasksMean } = simulateEval(benchmark, episodesPerTask, rng);
    const counts = { successes, trials: episodesPerTask };
    const episode = episodeBootstrapCI(counts, { reps, rng });
    const task = taskBootstrapCI(counts, { reps, rng });
    if (covers(episode, mean)) covered.episodeCoversPopulation++;
    if (covers(episode, tasksMean)) covered.episodeCoversTasks++;
    if (covers(task, mean)) covered.taskCoversPopulation++;
  }
  return recordOf(UNIT_FIGURES, (figure) => covered[figure] / evals);
}

/**
 * Exact episode-level coverage of the population mean: the pooled count S is a sum of `tasks`
 * beta-binomials (their convolution), and given S the episode bootstrap distribution is
 * Binomial(M, S/M), whose `reps`-replicate percentile coverage percentileCoverage gives exactly.
 */
function exactEpisodeCoverage(benchmark: Benchmark, episodesPerTask: number, reps: number): number {
  const { tasks, beta } = benchmark;
  const one = betaBinomialPmf(episodesPerTask, beta[0], beta[1]);
  let pooled: Float64Array = Float64Array.of(1);
  for (let j = 0; j < tasks; j++) pooled = convolvePmf(one, pooled);
  const episodes = tasks * episodesPerTask;
  let coverage = 0;
  for (let s = 0; s <= episodes; s++)
    coverage +=
      (pooled[s] as number) *
      percentileCoverage(binomialPmf(episodes, s / episodes), episodes, populationMean(benchmark), { reps });
  return coverage;
}

/**
 * A large simulation without bootstrap noise: each simulated benchmark is scored by the exact
 * probability that its `reps`-replicate interval covers, so only the benchmarks are simulated.
 */
function referenceCoverage(benchmark: Design, rng: Rng) {
  const { episodesPerTask, evals, reps } = benchmark;
  const episodes = benchmark.tasks * episodesPerTask;
  const episodeDistributions = new Map<number, Float64Array>();
  const tasks = new Float64Array(evals);
  const own = new Float64Array(evals);
  for (let e = 0; e < evals; e++) {
    const { successes, tasksMean } = simulateEval(benchmark, episodesPerTask, rng);
    const total = successes.reduce((a, b) => a + b, 0);
    const distribution = getOrAdd(episodeDistributions, total, () => binomialPmf(episodes, total / episodes));
    own[e] = percentileCoverage(distribution, episodes, tasksMean, { reps });
    const taskDistribution = taskBootstrapDistribution(successes, episodesPerTask);
    tasks[e] = percentileCoverage(taskDistribution, episodes, populationMean(benchmark), { reps });
  }
  const summary = (values: Float64Array) => ({
    coverage: mean(values),
    se: Math.sqrt(sampleVariance(values) / evals),
  });
  return { episodeCoversTasks: summary(own), taskCoversPopulation: summary(tasks) };
}

/** Wald against Wilson at each pass rate: simulated coverage (stream `wald-wilson/p`), and the exact binomial coverage beside it. */
function waldWilsonRows({ episodes, passRates, evals }: CoverageConfig['waldWilson'], rng: Rng) {
  return passRates.map((p) => {
    const stream = rng.fork(`wald-wilson/${p}`);
    // allAlike: an evaluation that sees no failure (or no success) gets a Wald interval of width zero.
    let [wald, wilson, allAlike] = [0, 0, 0];
    for (let e = 0; e < evals; e++) {
      const c = sampleBinomial(episodes, p, stream);
      const a = waldInterval(c, episodes);
      const b = wilsonInterval(c, episodes);
      if (a.low <= p && p <= a.high) wald++;
      if (b.low <= p && p <= b.high) wilson++;
      if (c === 0 || c === episodes) allAlike++;
    }
    const pmf = binomialPmf(episodes, p);
    const [waldShare, wilsonShare] = [wald / evals, wilson / evals];
    return {
      p,
      wald: waldShare,
      waldSE: shareSE(waldShare, evals),
      wilson: wilsonShare,
      wilsonSE: shareSE(wilsonShare, evals),
      waldExact: intervalCoverage(episodes, p, waldInterval),
      wilsonExact: intervalCoverage(episodes, p, wilsonInterval),
      allAlike: allAlike / evals,
      allAlikeExact: (pmf[0] as number) + (pmf[episodes] as number),
    };
  });
}

/** Which unit to resample at the configured episodes per task: ours (stream `unit`), then the references (stream `reference`). */
function unitNumbers(config: CoverageConfig, rng: Rng) {
  const { episodesPerTask, evals, reps } = config.unit;
  const simulated = unitCoverage(config.unit, rng.fork('unit'));
  const reference = referenceCoverage(
    { ...config.unit, evals: config.reference.evals },
    rng.fork('reference'),
  );
  return {
    ...simulated,
    se: recordOf(UNIT_FIGURES, (figure) => shareSE(simulated[figure], evals)),
    exact: {
      episodeCoversPopulation: exactEpisodeCoverage(config.unit, episodesPerTask, reps),
      episodeCoversPopulationUnlimitedReps: exactEpisodeCoverage(config.unit, episodesPerTask, Infinity),
    },
    largeSimulation: { evals: config.reference.evals, ...reference },
  };
}

/** Figure 17.1: the same at each n episodes per task (stream `figure/n`), with the exact episode-level curve. */
function figurePoints({ unit: benchmark, figure: config }: CoverageConfig, rng: Rng) {
  const bar = progressBar('17.3 figure', config.episodesPerTask.length);
  const figure = config.episodesPerTask.map((n, i) => {
    const point = unitCoverage(
      { ...benchmark, episodesPerTask: n, evals: config.evals, reps: config.reps },
      rng.fork(`figure/${n}`),
    );
    bar.tick(i + 1, `n=${n}`);
    return {
      episodesPerTask: n,
      episodeLevel: point.episodeCoversPopulation,
      episodeLevelExact: exactEpisodeCoverage(benchmark, n, config.reps),
      taskLevel: point.taskCoversPopulation,
    };
  });
  bar.done();
  return figure;
}

/** Where each of the book's figures lies against its reference (`compareWithBook`, in SEs of a run of `evals`), and Wilson's exact coverage against the book's range. */
function bookVerdicts(
  unit: ReturnType<typeof unitNumbers>,
  waldWilson: ReturnType<typeof waldWilsonRows>,
  { book, evals }: { book: BookCoverage; evals: number },
) {
  const simulated = (figure: 'episodeCoversTasks' | 'taskCoversPopulation') =>
    compareWithBook({
      book: book[figure],
      reference: unit.largeSimulation[figure].coverage,
      referenceSE: unit.largeSimulation[figure].se,
      evals,
    });
  return {
    episodeCoversPopulation: compareWithBook({
      book: book.episodeCoversPopulation,
      reference: unit.exact.episodeCoversPopulation,
      evals,
    }),
    episodeCoversTasks: simulated('episodeCoversTasks'),
    taskCoversPopulation: simulated('taskCoversPopulation'),
    wilson: waldWilson.map(({ p, wilsonExact }) => ({
      p,
      ...compareWithRange({ value: wilsonExact, low: book.wilson[0], high: book.wilson[1] }),
    })),
  };
}

/** What 17.3 reports: Wald against Wilson, which unit to resample, Figure 17.1's points, the book's figures and where each lies. */
export function confidenceIntervalNumbers(config: CoverageConfig, book: BookCoverage, rng: Rng) {
  const waldWilson = waldWilsonRows(config.waldWilson, rng);
  const unit = unitNumbers(config, rng);
  const figure = figurePoints(config, rng);
  const verdicts = bookVerdicts(unit, waldWilson, { book, evals: config.unit.evals });
  return { waldWilson, unit, figure, book, verdicts };
}

export type Numbers173 = ReturnType<typeof confidenceIntervalNumbers>;
