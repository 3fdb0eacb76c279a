import { resolve } from 'node:path';
import {
  AGGREGATE_METRICS,
  AGGREGATE_REPS,
  probabilityOfImprovementInterval,
  rliableAggregates,
  type AggregateMetric,
  type Estimate,
} from '../../eval/index.ts';
import { writeResults } from '../../experiments/common.ts';
import { coverageClause, IMPROVEMENT_METHOD, IQM_METHOD } from '../../experiments/coverageNotes.ts';
import { bandPanelsSvg, intervalChartSvg } from '../../experiments/figures.ts';
import { Rng } from '../../lib/rng.ts';
import { boolFlag, intFlag, MAX_SEED, numberFlag, printJson, type Command } from '../args.ts';
import { outFlag } from '../resultsFile.ts';
import { readScoreFiles, type AlgorithmScores } from './aggregateScores.ts';

const TITLES: Record<AggregateMetric, string> = {
  iqm: 'IQM',
  mean: 'mean',
  median: 'median',
  optimalityGap: 'optimality gap',
};
const PRINTED: readonly AggregateMetric[] = ['iqm', 'mean', 'median', 'optimalityGap'];

/**
 * The performance profile's thresholds: 21 evenly spaced from the lower of 0 and the lowest
 * score to the higher of 1 and the highest, so scores normalised to [0, 1] get the seed study's
 * 0, 0.05, ..., 1.
 */
export function profileTaus(algorithms: readonly AlgorithmScores[]): number[] {
  // A loop, not Math.min(...scores): a large file's scores would overflow the call stack.
  let low = 0;
  let high = 1;
  for (const { scores } of algorithms)
    for (const row of scores)
      for (const score of row) {
        low = Math.min(low, score);
        high = Math.max(high, score);
      }
  return Array.from({ length: 21 }, (_, i) => low + ((high - low) * i) / 20);
}

/** The coverage rows of results/coverage.json that speak for these intervals, at the design they simulate. */
function coverageNote(): string {
  const found = [IQM_METHOD, IMPROVEMENT_METHOD].flatMap((method) => {
    const clause = coverageClause(method, '');
    return clause === undefined ? [] : [{ method, ...clause }];
  });
  const simulated =
    found.length === 0
      ? 'results/coverage.json is missing (npm run exp:coverage simulates them)'
      : found
          .map(({ method, design, coverage }) => `${method} at ${design}: ${coverage.toFixed(3)}`)
          .join('; ');
  return `Coverage of these nominal intervals was simulated only for the IQM and P(X > Y) at the seed study's design (${simulated}); no other design, and not the mean, median, optimality gap or profile bands, is simulated (docs/METRICS.md).`;
}

const interval = ({ estimate, low, high }: Estimate) =>
  `${estimate.toFixed(3)} [${low.toFixed(3)}, ${high.toFixed(3)}]`;

/** The table and the JSON of every algorithm's aggregates and every pair's probability of improvement. */
export function aggregateNumbers(
  algorithms: readonly AlgorithmScores[],
  { reps, seed, gamma }: { reps: number; seed: number; gamma: number },
) {
  const taus = profileTaus(algorithms);
  const rng = new Rng(seed);
  const perAlgorithm = algorithms.map(({ algorithm, path, runs, tasks, scores }) => {
    const { metrics, profile } = rliableAggregates(scores, {
      metrics: AGGREGATE_METRICS,
      taus,
      gamma,
      reps,
      rng: rng.fork(`aggregate/${algorithm}`),
    });
    return { algorithm, path, runs: runs.length, tasks: tasks.length, ...metrics, profile };
  });
  const improvements = algorithms.flatMap((earlier, i) =>
    algorithms.slice(i + 1).map((later) => ({
      x: later.algorithm,
      y: earlier.algorithm,
      ...probabilityOfImprovementInterval(later.scores, earlier.scores, {
        reps,
        rng: rng.fork(`improvement/${later.algorithm}>${earlier.algorithm}`),
      }),
    })),
  );
  return { reps, seed, gamma, level: 0.95, taus, algorithms: perAlgorithm, improvements };
}

type Numbers = ReturnType<typeof aggregateNumbers>;

function table(numbers: Numbers): string {
  const header = [
    'algorithm',
    'runs',
    ...PRINTED.map((m) => (m === 'optimalityGap' ? `optimality gap (gamma ${numbers.gamma})` : TITLES[m])),
  ];
  const rows = numbers.algorithms.map((row) => [
    row.algorithm,
    String(row.runs),
    ...PRINTED.map((m) => interval(row[m]!)),
  ]);
  const shown = [0, 5, 10, 15, 20].map((i) => numbers.taus[i]!);
  const profileHeader = ['algorithm', ...shown.map((tau) => `tau ${Number(tau.toFixed(3))}`)];
  const profileRows = numbers.algorithms.map((row) => [
    row.algorithm,
    ...[0, 5, 10, 15, 20].map((i) => interval(row.profile[i]!)),
  ]);
  const markdown = (head: string[], body: string[][]) =>
    [
      `| ${head.join(' | ')} |`,
      `| ${head.map(() => '---').join(' | ')} |`,
      ...body.map((r) => `| ${r.join(' | ')} |`),
    ].join('\n');
  const tasks = numbers.algorithms[0]!.tasks;
  return [
    `${numbers.algorithms.length} algorithm(s) x ${tasks} tasks; ${numbers.reps.toLocaleString('en-US')} stratified-bootstrap replicates (runs redrawn within each task), seed ${numbers.seed}, 95% percentile intervals.`,
    '',
    markdown(header, rows),
    '',
    'Performance profile (share of run x task scores above tau, with its band; every tau in --json and the figure):',
    '',
    markdown(profileHeader, profileRows),
    '',
    numbers.improvements.length === 0
      ? 'Probability of improvement: needs two algorithms.'
      : [
          'Probability of improvement (per task P(X > Y), ties 1/2, averaged over tasks):',
          '',
          markdown(
            ['pair', 'P(X > Y)'],
            numbers.improvements.map((pair) => [`P(${pair.x} > ${pair.y})`, interval(pair)]),
          ),
        ].join('\n'),
    '',
    coverageNote(),
  ].join('\n');
}

async function figures(numbers: Numbers) {
  const values = numbers.algorithms.flatMap((row) => PRINTED.flatMap((m) => [row[m]!.low, row[m]!.high]));
  const yDomain: [number, number] = [Math.min(0, ...values), Math.max(1, ...values)];
  const points = numbers.algorithms.flatMap((row) =>
    PRINTED.map((m) => ({ group: TITLES[m], series: row.algorithm, ...row[m]! })),
  );
  const aggregates = await intervalChartSvg({
    title: 'Aggregate metrics with 95% stratified-bootstrap intervals',
    xTitle: '',
    yTitle: 'score',
    points,
    yDomain,
  });
  const profile = await bandPanelsSvg([
    {
      title: 'Performance profiles (score distributions) with 95% bands',
      xTitle: 'tau',
      yTitle: 'share of run x task scores > tau',
      series: numbers.algorithms.map((row) => ({
        name: row.algorithm,
        points: row.profile.map(({ tau, estimate, low, high }) => ({ x: tau, y: estimate, low, high })),
      })),
    },
  ]);
  const result = { 'aggregate-metrics.svg': aggregates, 'aggregate-profiles.svg': profile };
  if (numbers.improvements.length === 0) return result;
  const improvement = await intervalChartSvg({
    title: 'Probability of improvement with 95% intervals',
    xTitle: '',
    yTitle: 'P(X > Y)',
    points: numbers.improvements.map((pair) => ({
      group: `P(${pair.x} > ${pair.y})`,
      series: 'P(X > Y)',
      ...pair,
    })),
    rules: [{ y: 0.5, label: 'no improvement' }],
  });
  return { ...result, 'aggregate-improvement.svg': improvement };
}

export const command: Command = {
  name: 'aggregate',
  summary:
    'rliable on your own runs x tasks scores: IQM, mean, median, optimality gap, performance profiles, probability of improvement, with stratified-bootstrap intervals',
  usage: 'tinyagent aggregate FILE... [--reps 50000] [--seed 0] [--gamma 1] [--json] [--out DIR]',
  positionals: { min: 1, max: 64 },
  flags: {
    reps: {
      type: 'string',
      description: "stratified-bootstrap replicates (rliable's default)",
      default: String(AGGREGATE_REPS),
      range: { min: 100, max: 1_000_000 },
    },
    seed: {
      type: 'string',
      description: 'seed of the bootstrap',
      default: '0',
      range: { min: 0, max: MAX_SEED },
    },
    gamma: {
      type: 'string',
      description: "the optimality gap's threshold (rliable's default)",
      default: '1',
    },
    json: { type: 'boolean', description: 'print JSON' },
    out: {
      type: 'string',
      description:
        'write aggregate.json, aggregate.md and figures/ to DIR (npm run report -- --aggregate DIR shows them)',
    },
  },
  moreHelp: () =>
    [
      'Each FILE holds one row per run and task: CSV with a header naming run, task, score and',
      'optionally algorithm, or JSON (one {"run", "task", "score"} object per line, or an array of',
      'them). Without an algorithm column a file is one algorithm, named by the file. Every run of',
      'an algorithm scores every task once, and the algorithms share their tasks. See docs/METRICS.md.',
    ].join('\n'),
  async run(args) {
    const reps = intFlag(args, 'reps', AGGREGATE_REPS, { min: 100, max: 1_000_000 });
    const seed = intFlag(args, 'seed', 0, { min: 0, max: MAX_SEED });
    const gamma = numberFlag(args, 'gamma', 1);
    const out = outFlag(args);
    const algorithms = readScoreFiles(args.positionals);
    const numbers = aggregateNumbers(algorithms, { reps, seed, gamma });
    const text = table(numbers);
    if (out !== undefined)
      writeResults(resolve(out), {
        section: 'aggregate',
        title: `rliable aggregates of ${numbers.algorithms.map((row) => row.algorithm).join(', ')}`,
        generatedBy: `tinyagent aggregate ${args.positionals.join(' ')}`,
        seed,
        smoke: false,
        config: { files: args.positionals, reps, gamma, level: numbers.level },
        numbers,
        markdown: text,
        figures: await figures(numbers),
      });
    if (boolFlag(args, 'json')) printJson({ ...numbers, coverage: coverageNote() });
    else process.stdout.write(`${text}\n`);
  },
};
