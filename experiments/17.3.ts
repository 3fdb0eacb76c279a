/**
 * 17.3 Confidence intervals.
 *
 * Question: how often do the usual intervals cover the truth? Wald vs Wilson for one task near
 *   the boundary; and for a benchmark of 10 tasks, does resampling episodes or resampling tasks
 *   cover the population pass rate? (Figure 17.1: coverage vs episodes per task.)
 *   The chapter's last item (the 17.1 counts of the trained agent) needs a trained agent and
 *   is not part of this script.
 * Command: npm run exp:17.3   (node --import tsx experiments/17.3.ts)
 * Runtime: about 10 s on two cores (smoke: about a second).
 * Output: results/17.3.json, results/17.3.md, results/figures/17.1-coverage-vs-episodes.svg.
 */
import { episodeBootstrapCI, sampleBeta, sampleBinomial, taskBootstrapCI, waldInterval, wilsonInterval, type Interval } from '../eval/index.ts';
import { progressBar } from '../lib/progress.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, markdownTable, ROOT, writeResults } from './common.ts';
import { lineChartSvg } from './figures.ts';

const WALD_WILSON_PASS_RATES = [0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.97];
const EPISODES = 40;
const TASKS = 10;
const BETA = [0.4, 0.3] as const; // U-shaped task pass rates, as on agent benchmarks
const POPULATION_MEAN = BETA[0] / (BETA[0] + BETA[1]);

/** Exact coverage of an interval at p: sum of the Binomial(n, p) pmf over the c it covers. */
function exactCoverage(n: number, p: number, interval: (c: number, n: number) => Interval): number {
  let coverage = 0;
  let choose = 1;
  for (let c = 0; c <= n; c++) {
    if (c > 0) choose = (choose * (n - c + 1)) / c;
    const { low, high } = interval(c, n);
    if (low <= p && p <= high) coverage += choose * p ** c * (1 - p) ** (n - c);
  }
  return coverage;
}

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
  return { episodeCoversPopulation: episodeCoversPopulation / evals, episodeCoversTasks: episodeCoversTasks / evals, taskCoversPopulation: taskCoversPopulation / evals };
}

export async function main(opts: { seed?: number; smoke?: boolean; outDir?: string } = {}) {
  const { seed = 0, smoke = false, outDir = `${ROOT}results` } = opts;
  const config = {
    waldWilson: { episodes: EPISODES, passRates: WALD_WILSON_PASS_RATES, evals: smoke ? 1_000 : 20_000 },
    unit: { tasks: TASKS, beta: BETA, episodesPerTask: 32, evals: smoke ? 60 : 2_000, reps: smoke ? 300 : 2_000 },
    figure: { episodesPerTask: smoke ? [1, 4, 16, 64] : Array.from({ length: 64 }, (_, i) => i + 1), evals: smoke ? 40 : 300, reps: smoke ? 300 : 1_000 },
  };
  const rng = new Rng(seed);

  // Wald vs Wilson: simulated coverage (and the exact binomial coverage beside it).
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
    return { p, wald: wald / config.waldWilson.evals, wilson: wilson / config.waldWilson.evals, waldExact: exactCoverage(EPISODES, p, waldInterval), wilsonExact: exactCoverage(EPISODES, p, wilsonInterval) };
  });

  // Which unit to resample: 10 tasks x 32 episodes.
  const unit = unitCoverage(config.unit.episodesPerTask, config.unit.evals, config.unit.reps, rng.fork('unit'));

  // Figure 17.1: the same at n = 1..64 episodes per task.
  const bar = progressBar('17.3 figure', config.figure.episodesPerTask.length);
  const figure = config.figure.episodesPerTask.map((n, i) => {
    const point = unitCoverage(n, config.figure.evals, config.figure.reps, rng.fork(`figure/${n}`));
    bar.tick(i + 1, `n=${n}`);
    return { episodesPerTask: n, episodeLevel: point.episodeCoversPopulation, taskLevel: point.taskCoversPopulation };
  });
  bar.done();
  const svg = await lineChartSvg({
    title: 'Figure 17.1: coverage of nominal-95% bootstrap intervals',
    xTitle: 'episodes per task n',
    yTitle: 'coverage of the population pass rate',
    legendTitle: 'resampling unit',
    series: [
      { name: 'episode-level', points: figure.map(({ episodesPerTask, episodeLevel }) => ({ x: episodesPerTask, y: episodeLevel })) },
      { name: 'task-level', points: figure.map(({ episodesPerTask, taskLevel }) => ({ x: episodesPerTask, y: taskLevel })) },
    ],
    rules: [{ y: 0.95, label: 'nominal 0.95' }],
    yDomain: [0, 1],
  });

  const f3 = (value: number) => value.toFixed(3);
  const at = (n: number) => figure.find(({ episodesPerTask }) => episodesPerTask === n);
  const markdown = [
    `## Wald vs Wilson coverage, n = ${EPISODES} episodes, ${config.waldWilson.evals.toLocaleString('en-US')} simulated evals per p`,
    '',
    markdownTable(
      ['p', 'Wald (ours)', 'Wald exact', 'Wilson (ours)', 'Wilson exact', 'book'],
      waldWilson.map((row) => [row.p, f3(row.wald), f3(row.waldExact), f3(row.wilson), f3(row.wilsonExact), row.p === 0.03 || row.p === 0.97 ? 'Wald ~0.70; Wilson 0.93-0.97' : 'Wilson 0.93-0.97']),
    ),
    '',
    `## Which unit to resample: ${TASKS} tasks ~ Beta(${BETA.join(', ')}), 32 episodes each, ${config.unit.evals} evals, ${config.unit.reps} bootstrap reps`,
    '',
    markdownTable(
      ['interval', 'covers', 'ours', 'book'],
      [
        ['episode-level', `population mean ${f3(POPULATION_MEAN)}`, f3(unit.episodeCoversPopulation), '0.38'],
        ['episode-level', "the 10 tasks' own mean", f3(unit.episodeCoversTasks), '0.998'],
        ['task-level', `population mean ${f3(POPULATION_MEAN)}`, f3(unit.taskCoversPopulation), '0.93'],
      ],
    ),
    '',
    `## Figure 17.1: coverage vs episodes per task (${config.figure.evals} evals per point, ${config.figure.reps} reps)`,
    '',
    markdownTable(
      ['n', 'episode-level', 'task-level'],
      [1, 2, 4, 8, 16, 32, 64].flatMap((n) => (at(n) === undefined ? [] : [[n, f3(at(n)?.episodeLevel as number), f3(at(n)?.taskLevel as number)]])),
    ),
    '',
    'Book: at n = 1 the two coincide; episode-level coverage falls below 0.3 as n grows, task-level stays near its N = 10 percentile-bootstrap level.',
  ].join('\n');
  writeResults(outDir, { section: '17.3', title: 'Confidence intervals', seed, smoke, config, numbers: { waldWilson, unit, figure }, markdown, figures: { '17.1-coverage-vs-episodes.svg': svg } });
  if (!smoke || isMain(import.meta.url)) process.stdout.write(`${markdown}\n`);
  return { waldWilson, unit, figure };
}

if (isMain(import.meta.url)) await main();
