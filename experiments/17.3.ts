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
 * Command: npm run exp:17.3   (node --import tsx experiments/17.3.ts)
 * Runtime: about 15 s on two cores (smoke: under a second).
 * Output: results/17.3.json, results/17.3.md, results/figures/17.1-coverage-vs-episodes.svg.
 */
import {
  betaBinomialPmf,
  binomialPmf,
  convolvePmf,
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
import {
  compareWithBook,
  compareWithRange,
  isMain,
  ROOT,
  runScript,
  shareSE,
  writeResults,
} from './common.ts';
import { markdownTable } from './report/markdown.ts';
import { lineChartSvg } from './figures.ts';

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
      reps: smoke ? 300 : 2_000,
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
    for (let e = 0; e < config.waldWilson.evals; e++) {
      const c = sampleBinomial(EPISODES, p, stream);
      const a = waldInterval(c, EPISODES);
      const b = wilsonInterval(c, EPISODES);
      if (a.low <= p && p <= a.high) wald++;
      if (b.low <= p && p <= b.high) wilson++;
    }
    const [waldShare, wilsonShare] = [wald / config.waldWilson.evals, wilson / config.waldWilson.evals];
    return {
      p,
      wald: waldShare,
      waldSE: shareSE(waldShare, config.waldWilson.evals),
      wilson: wilsonShare,
      wilsonSE: shareSE(wilsonShare, config.waldWilson.evals),
      waldExact: intervalCoverage(EPISODES, p, waldInterval),
      wilsonExact: intervalCoverage(EPISODES, p, wilsonInterval),
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
  const svg = await lineChartSvg({
    title: 'Figure 17.1: coverage of nominal-95% bootstrap intervals',
    xTitle: 'episodes per task n',
    yTitle: 'coverage of the population pass rate',
    legendTitle: 'resampling unit',
    series: [
      { name: 'episode-level', points: figure.map(({ episodesPerTask: x, episodeLevel: y }) => ({ x, y })) },
      {
        name: 'episode-level (exact)',
        points: figure.map(({ episodesPerTask: x, episodeLevelExact: y }) => ({ x, y })),
      },
      { name: 'task-level', points: figure.map(({ episodesPerTask: x, taskLevel: y }) => ({ x, y })) },
    ],
    rules: [{ y: 0.95, label: 'nominal 0.95' }],
    yDomain: [0, 1],
  });

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
  const f3 = (value: number) => value.toFixed(3);
  const withSE = (value: number, se: number, digits = 3) =>
    `${value.toFixed(digits)} ± ${se.toFixed(digits)}`;
  const zOf = (ours: number, se: number, ref: number, refSE = 0) =>
    (ours - ref) / Math.sqrt(se ** 2 + refSE ** 2);
  const zOurs = (...args: Parameters<typeof zOf>) => {
    const z = zOf(...args);
    return `${z > 0 ? '+' : ''}${z.toFixed(1)}`;
  };
  const oursOff = zOf(
    unit.episodeCoversPopulation,
    unit.se.episodeCoversPopulation,
    unit.exact.episodeCoversPopulation,
  );
  const at = (n: number) => figure.find(({ episodesPerTask: x }) => x === n);
  const wilsonOutside = verdicts.wilson.filter(({ outside }) => outside);
  const markdown = [
    `## Wald vs Wilson coverage, n = ${EPISODES} episodes, ${config.waldWilson.evals.toLocaleString('en-US')} simulated evals per p`,
    '',
    'Ours ± its Monte Carlo SE; "exact" sums the Binomial(40, p) pmf over the counts whose interval covers p.',
    '',
    markdownTable(
      ['p', 'Wald (ours)', 'Wald exact', 'Wilson (ours)', 'Wilson exact', 'book', 'book vs exact'],
      waldWilson.map((row, i) => [
        row.p,
        withSE(row.wald, row.waldSE),
        f3(row.waldExact),
        withSE(row.wilson, row.wilsonSE),
        f3(row.wilsonExact),
        row.p === 0.03 || row.p === 0.97 ? 'Wald ~0.70; Wilson 0.93-0.97' : 'Wilson 0.93-0.97',
        `Wilson ${verdicts.wilson[i]?.text}`,
      ]),
    ),
    '',
    wilsonOutside.length === 0
      ? "Wilson's exact coverage lies in the book's 0.93 to 0.97 at every p."
      : `The book's "Wilson 0.93-0.97" does not hold at p = ${wilsonOutside.map(({ p }) => p).join(', ')}: the exact coverage there is ${wilsonOutside.map(({ p }) => f3(waldWilson.find((row) => row.p === p)?.wilsonExact as number)).join(', ')}.`,
    '',
    `## Which unit to resample: ${TASKS} tasks ~ Beta(${BETA.join(', ')}), ${episodesPerTask} episodes each, ${evals} evals, ${reps} bootstrap reps`,
    '',
    `Ours ± its Monte Carlo SE. Reference: row 1 exact (the pooled count is a sum of beta-binomials; given it, the ${reps}-replicate percentile interval's coverage is exact); rows 2 and 3 a large simulation of ${config.reference.evals.toLocaleString('en-US')} benchmarks, each scored by its exact ${reps}-replicate bootstrap coverage (± its SE). "ours vs reference" and "book vs reference" are in standard errors of a ${evals}-eval run.`,
    '',
    markdownTable(
      ['interval', 'covers', 'ours', 'reference', 'ours vs reference', 'book', 'book vs reference'],
      [
        [
          'episode-level',
          `population mean ${f3(POPULATION_MEAN)}`,
          withSE(unit.episodeCoversPopulation, unit.se.episodeCoversPopulation),
          `${f3(unit.exact.episodeCoversPopulation)} (exact)`,
          zOurs(
            unit.episodeCoversPopulation,
            unit.se.episodeCoversPopulation,
            unit.exact.episodeCoversPopulation,
          ),
          BOOK.episodeCoversPopulation,
          verdicts.episodeCoversPopulation.text,
        ],
        [
          'episode-level',
          "the 10 tasks' own mean",
          withSE(unit.episodeCoversTasks, unit.se.episodeCoversTasks),
          withSE(reference.episodeCoversTasks.coverage, reference.episodeCoversTasks.se, 4),
          zOurs(
            unit.episodeCoversTasks,
            unit.se.episodeCoversTasks,
            reference.episodeCoversTasks.coverage,
            reference.episodeCoversTasks.se,
          ),
          BOOK.episodeCoversTasks,
          verdicts.episodeCoversTasks.text,
        ],
        [
          'task-level',
          `population mean ${f3(POPULATION_MEAN)}`,
          withSE(unit.taskCoversPopulation, unit.se.taskCoversPopulation),
          withSE(reference.taskCoversPopulation.coverage, reference.taskCoversPopulation.se, 4),
          zOurs(
            unit.taskCoversPopulation,
            unit.se.taskCoversPopulation,
            reference.taskCoversPopulation.coverage,
            reference.taskCoversPopulation.se,
          ),
          BOOK.taskCoversPopulation,
          verdicts.taskCoversPopulation.text,
        ],
      ],
    ),
    '',
    `With unlimited bootstrap replicates the exact episode-level coverage is ${f3(unit.exact.episodeCoversPopulationUnlimitedReps)}.${Math.abs(oursOff) > 2 ? ` This run's episode-level ${f3(unit.episodeCoversPopulation)} lies ${Math.abs(oursOff).toFixed(1)} SE ${oursOff < 0 ? 'below' : 'above'} the exact value; the exact value, not this run, is the figure to quote.` : ''} ${
      (['episodeCoversPopulation', 'episodeCoversTasks', 'taskCoversPopulation'] as const)
        .filter((key) => verdicts[key].outside)
        .map(
          (key) =>
            `The book's ${BOOK[key]} lies outside 2 SE of the reference (${verdicts[key].text.replace(/^outside: /, '')}).`,
        )
        .join(' ') || "The book's figures lie within 2 SE of the references."
    }`,
    '',
    `## Figure 17.1: coverage vs episodes per task (${config.figure.evals} evals per point, ${config.figure.reps} reps; MC SE about ${f3(shareSE(0.5, config.figure.evals))} at most)`,
    '',
    markdownTable(
      ['n', 'episode-level (ours)', 'episode-level (exact)', 'task-level (ours)'],
      [1, 2, 4, 8, 16, 32, 64].flatMap((n) => {
        const point = at(n);
        return point === undefined
          ? []
          : [[n, f3(point.episodeLevel), f3(point.episodeLevelExact), f3(point.taskLevel)]];
      }),
    ),
    '',
    `Book: at n = 1 the two coincide; episode-level coverage falls below 0.3 as n grows, task-level stays near its N = 10 percentile-bootstrap level. Exact episode-level coverage first falls below 0.3 at n = ${figure.find(({ episodeLevelExact }) => episodeLevelExact < 0.3)?.episodesPerTask ?? 'none of the n shown'}.`,
  ].join('\n');
  writeResults(outDir, {
    section: '17.3',
    title: 'Confidence intervals',
    seed,
    smoke,
    config,
    numbers: { waldWilson, unit, figure, book: BOOK, verdicts },
    markdown,
    figures: { '17.1-coverage-vs-episodes.svg': svg },
    echo: !smoke || isMain(import.meta.url),
  });
  return { waldWilson, unit, figure, verdicts };
}

if (isMain(import.meta.url)) await runScript('exp:17.3', () => main());
