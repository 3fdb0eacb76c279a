/**
 * The report of 17.3 (experiments/17.3.ts): Wald against Wilson, which unit to resample, and
 * Figure 17.1, each simulated coverage beside its reference and the book.
 */
import { shareSE, zScore, type CoverageConfig, type Numbers173 as Numbers } from '../../analysis/index.ts';
import { lineChartSvg, type Figure } from '../figures.ts';
import { blocks, count, pct, section, table, withSE, type Report } from '../markdown.ts';

/** What the prose needs of the experiment's config, and the population mean of its Beta task rates. */
type Context = CoverageConfig & { populationMean: number };

/** (ours - reference) in standard errors of both. */
const zOf = (ours: number, se: number, reference: number, referenceSE = 0) =>
  (ours - reference) / Math.sqrt(se ** 2 + referenceSE ** 2);

function coverageFigure(figure: Numbers['figure']): Promise<Figure> {
  return lineChartSvg({
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
}

function waldWilsonSection({ waldWilson, verdicts }: Numbers, { waldWilson: config }: Context): string {
  const outside = verdicts.wilson.filter((verdict) => verdict.outside);
  const justOutside = verdicts.wilson.filter((verdict) => verdict.outsideExact);
  const exactAt = (ps: ReadonlyArray<{ p: number }>) =>
    ps.map(({ p }) => pct(waldWilson.find((row) => row.p === p)!.wilsonExact)).join(', ');
  return section(
    `Wald vs Wilson coverage, n = ${config.episodes} episodes, ${count(config.evals)} simulated evals per p`,
    `Ours ± its Monte Carlo SE; "exact" sums the Binomial(${config.episodes}, p) pmf over the counts whose interval covers p.`,
    table(waldWilson, {
      p: (row) => row.p,
      'Wald (ours)': (row) => withSE(row.wald, row.waldSE),
      'Wald exact': (row) => pct(row.waldExact),
      'no failure or no success (ours / exact)': (row) => `${pct(row.allAlike)} / ${pct(row.allAlikeExact)}`,
      'Wilson (ours)': (row) => withSE(row.wilson, row.wilsonSE),
      'Wilson exact': (row) => pct(row.wilsonExact),
      book: (row) =>
        row.p === 0.03 || row.p === 0.97
          ? 'Wald ~0.70 (about 30% of evaluations see no failure, or no success); Wilson 0.93-0.97'
          : 'Wilson 0.93-0.97',
      'book vs exact': (_, i) => `Wilson ${verdicts.wilson[i]?.text}`,
    }),
    outside.length === 0
      ? justOutside.length > 0
        ? `Wilson's exact coverage lies in the book's 0.93 to 0.97 at every p at the book's two decimals; read exactly, it is just below at p = ${justOutside.map(({ p }) => p).join(', ')} (${exactAt(justOutside)}).`
        : "Wilson's exact coverage lies in the book's 0.93 to 0.97 at every p."
      : `The book's "Wilson 0.93-0.97" does not hold at p = ${outside.map(({ p }) => p).join(', ')}: the exact coverage there is ${exactAt(outside)}.`,
  );
}

/** The three coverages of the unit section, each with the reference it is compared with. */
function unitRows(unit: Numbers['unit'], { unit: config, populationMean }: Context) {
  const { largeSimulation } = unit;
  const population = `population mean ${pct(populationMean)}`;
  return [
    {
      key: 'episodeCoversPopulation',
      interval: 'episode-level',
      covers: population,
      reference: { coverage: unit.exact.episodeCoversPopulation, se: 0 },
      exact: true,
    },
    {
      key: 'episodeCoversTasks',
      interval: 'episode-level',
      covers: `the ${config.tasks} tasks' own mean`,
      reference: largeSimulation.episodeCoversTasks,
      exact: false,
    },
    {
      key: 'taskCoversPopulation',
      interval: 'task-level',
      covers: population,
      reference: largeSimulation.taskCoversPopulation,
      exact: false,
    },
  ] as const;
}

function unitNotes({ unit, book, verdicts }: Numbers, rows: ReturnType<typeof unitRows>): string {
  const oursOff = zOf(
    unit.episodeCoversPopulation,
    unit.se.episodeCoversPopulation,
    unit.exact.episodeCoversPopulation,
  );
  const thisRun =
    Math.abs(oursOff) > 2
      ? ` This run's episode-level ${pct(unit.episodeCoversPopulation)} lies ${Math.abs(oursOff).toFixed(1)} SE ${oursOff < 0 ? 'below' : 'above'} the exact value; the exact value, not this run, is the figure to quote.`
      : '';
  const bookOutside =
    rows
      .filter(({ key }) => verdicts[key].outside)
      .map(
        ({ key }) =>
          `The book's ${book[key]} lies outside 2 SE of the reference (${verdicts[key].text.replace(/^outside: /, '')}).`,
      )
      .join(' ') || "The book's figures lie within 2 SE of the references.";
  return `With unlimited bootstrap replicates the exact episode-level coverage is ${pct(unit.exact.episodeCoversPopulationUnlimitedReps)}.${thisRun} ${bookOutside}`;
}

function unitSection(numbers: Numbers, context: Context) {
  const { unit, book, verdicts } = numbers;
  const { unit: config, reference } = context;
  const rows = unitRows(unit, context);
  return section(
    `Which unit to resample: ${config.tasks} tasks ~ Beta(${config.beta.join(', ')}), ${config.episodesPerTask} episodes each, ${config.evals} evals, ${config.reps} bootstrap reps`,
    `Ours ± its Monte Carlo SE. Reference: row 1 exact (the pooled count is a sum of beta-binomials; given it, the ${config.reps}-replicate percentile interval's coverage is exact); rows 2 and 3 a large simulation of ${count(reference.evals)} benchmarks, each scored by its exact ${config.reps}-replicate bootstrap coverage (± its SE). "ours vs reference" and "book vs reference" are in standard errors of a ${config.evals}-eval run.`,
    table(rows, {
      interval: (row) => row.interval,
      covers: (row) => row.covers,
      ours: (row) => withSE(unit[row.key], unit.se[row.key]),
      reference: ({ reference, exact }) =>
        exact
          ? `${pct(reference.coverage)} (exact)`
          : withSE(reference.coverage, reference.se, { digits: 4 }),
      'ours vs reference': (row) =>
        zScore(zOf(unit[row.key], unit.se[row.key], row.reference.coverage, row.reference.se)),
      book: (row) => book[row.key],
      'book vs reference': (row) => verdicts[row.key].text,
    }),
    unitNotes(numbers, rows),
  );
}

function figureSection({ figure }: Numbers, { figure: config }: Context): string {
  const shown = figure.filter(({ episodesPerTask }) => [1, 2, 4, 8, 16, 32, 64].includes(episodesPerTask));
  return section(
    `Figure 17.1: coverage vs episodes per task (${config.evals} evals per point, ${config.reps} reps; MC SE about ${pct(shareSE(0.5, config.evals))} at most)`,
    table(shown, {
      n: (point) => point.episodesPerTask,
      'episode-level (ours)': (point) => pct(point.episodeLevel),
      'episode-level (exact)': (point) => pct(point.episodeLevelExact),
      'task-level (ours)': (point) => pct(point.taskLevel),
    }),
    `Book: at n = 1 the two coincide; episode-level coverage falls below 0.3 as n grows, task-level stays near its N = 10 percentile-bootstrap level. Exact episode-level coverage first falls below 0.3 at n = ${figure.find(({ episodeLevelExact }) => episodeLevelExact < 0.3)?.episodesPerTask ?? 'none of the n shown'}.`,
  );
}

export async function report(numbers: Numbers, context: Context): Promise<Report> {
  return {
    markdown: blocks(
      waldWilsonSection(numbers, context),
      unitSection(numbers, context),
      figureSection(numbers, context),
    ),
    figures: { '17.1-coverage-vs-episodes.svg': await coverageFigure(numbers.figure) },
  };
}
