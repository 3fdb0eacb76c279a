import { lstatSync } from 'node:fs';
import { resolve } from 'node:path';
import { AGGREGATE_REPS, type AggregateMetric } from '../../eval/index.ts';
import type { Estimate } from '../../eval/report/resample.ts';
import { markdownTable } from '../../publish/markdown.ts';
import { writeResults } from '../../publish/results.ts';
import { coverageClause } from '../../publish/coverageNotes.ts';
import { IMPROVEMENT_METHOD, IQM_METHOD } from '../../analysis/index.ts';
import { bandPanelsSvg, intervalChartSvg, intervalPanelsSvg, intervalPoint } from '../../publish/figures.ts';
import { InputError } from '../../lib/errors.ts';
import { fileKind, orUndefined } from '../../lib/files.ts';
import { clip } from '../../lib/text.ts';
import {
  boolFlag,
  choiceFlag,
  type Command,
  type CommandArgs,
  decimals,
  definedFields,
  integers,
  intFlag,
  numberFlag,
  printJson,
  SEED_RANGE,
  stringFlag,
  switchFlag,
  UsageError,
  valueFlag,
} from '../args.ts';
import { readScoreFiles } from '../../eval/io/formats/scores.ts';
import {
  aggregateNumbers,
  GAMMA_LIMIT,
  linspace,
  MIN_REPS,
  RESAMPLINGS,
  TAU_SCALES,
  WORK_BUDGET,
  type Resampling,
} from '../../eval/report/aggregate.ts';

const PRINTED: readonly AggregateMetric[] = ['iqm', 'mean', 'median', 'optimalityGap'];
const title = (metric: AggregateMetric, gamma: number) =>
  metric === 'optimalityGap' ? `optimality gap (gamma ${gamma})` : metric === 'iqm' ? 'IQM' : metric;

/** `--tau`: a comma-separated ascending list (`0,0.5,1,2,4,8`) or START:STOP:COUNT (np.linspace). */
export function tauFlag(raw: string): number[] {
  const number = (text: string) => {
    const value = Number(text.trim());
    if (text.trim() === '' || !Number.isFinite(value))
      throw new UsageError(
        `--tau: '${clip(text)}' is not a finite number (a list 0,0.5,1 or START:STOP:COUNT)`,
      );
    return value;
  };
  const range = raw.split(':');
  let taus: number[];
  if (range.length === 3) {
    const [start, stop, count] = range.map(number) as [number, number, number];
    if (!Number.isInteger(count) || count < 2 || count > 1000)
      throw new UsageError(`--tau START:STOP:COUNT: COUNT must be an integer in [2, 1000], got ${count}`);
    taus = linspace(start, stop, count);
  } else if (range.length === 1) taus = raw.split(',').map(number);
  else throw new UsageError(`--tau must be a list (0,0.5,1) or START:STOP:COUNT, got '${clip(raw)}'`);
  if (taus.length > 1000) throw new UsageError(`--tau: at most 1000 taus, got ${taus.length}`);
  const unordered = taus.findIndex((tau, i) => i > 0 && tau <= taus[i - 1]!);
  if (unordered > 0)
    throw new UsageError(`--tau must ascend: ${taus[unordered]} follows ${taus[unordered - 1]}`);
  return taus;
}

/** At most five of the taus for the table, evenly spread, the first and the last among them. */
function shownTaus(count: number): number[] {
  if (count <= 5) return Array.from({ length: count }, (_, i) => i);
  return [...new Set([0, 1, 2, 3, 4].map((i) => Math.round((i * (count - 1)) / 4)))];
}

const RESAMPLING_NOTES: Record<Resampling, string> = {
  'within-tasks':
    "Runs redrawn within each task apart (rliable's stratified bootstrap): this takes a run's scores on different tasks as independent, as when each task has runs of its own. If a run is one policy (one seed) scored on every task, its scores are correlated across tasks and these intervals can be too narrow: --resample whole-runs redraws whole runs.",
  'whole-runs':
    "Whole runs redrawn (--resample whole-runs): a run keeps its scores on every task together, for runs that are each one policy scored on every task (a run is the same run on every task by its name, or its line); not rliable's stratified bootstrap.",
};

/** The coverage rows of results/coverage.json that speak for these intervals, at the design they simulate. */
function coverageNote(resample: Resampling): string {
  const found = [IQM_METHOD, IMPROVEMENT_METHOD].flatMap((method) => coverageClause(method, '')?.text ?? []);
  const simulated =
    found.length === 0
      ? 'results/coverage.json is missing (npm run exp:coverage simulates them)'
      : found.map((text) => text.replace(/; {1,2}is not simulated.*$/, '')).join('; ');
  const which =
    resample === 'whole-runs'
      ? 'whole runs redrawn, as here'
      : 'whole runs redrawn; the within-task intervals printed here are not simulated';
  return `Coverage of these nominal intervals was simulated only for the IQM and P(X > Y) at the seed study's design, ${which} (${simulated}); no other design, and not the mean, median, optimality gap or profile bands, is simulated (docs/METRICS.md).`;
}

/** An estimate with its interval, or why it has none: `runs` (the fewer of a pair's) below 2, or no spread. */
const interval = ({ estimate, low, high }: Estimate, runs: number) =>
  low === null || high === null
    ? `${estimate.toFixed(3)} (n/a: ${runs < 2 ? `${runs} run` : 'no spread'})`
    : `${estimate.toFixed(3)} [${low.toFixed(3)}, ${high.toFixed(3)}]`;

const NO_INTERVAL =
  'n/a: no interval where one would have zero width and claim certainty: from 1 run there is nothing to redraw (for P(X > Y), 1 run on either side), and with no spread the replicates are alike (every score equal, or a share of 0 or 1 in nearly every replicate).';

type Numbers = ReturnType<typeof aggregateNumbers>;

/** What the replicates were: their number, why, and how they redrew the runs. */
function notes(numbers: Numbers): string[] {
  const count = numbers.reps.toLocaleString('en-US');
  const why =
    numbers.reps !== numbers.defaultReps
      ? '(--reps)'
      : numbers.reps < AGGREGATE_REPS
        ? `(rliable's default ${AGGREGATE_REPS.toLocaleString('en-US')} lowered for the size of the data: replicates x scores drawn per replicate at most ${WORK_BUDGET.toExponential().replace('e+', 'e')}; --reps sets them)`
        : "(rliable's default)";
  return [
    `${count} bootstrap replicates ${why}, seed ${numbers.seed}, 95% percentile intervals.`,
    RESAMPLING_NOTES[numbers.resample],
  ];
}

function table(numbers: Numbers): string {
  const header = ['algorithm', 'runs', ...PRINTED.map((m) => title(m, numbers.gamma))];
  const rows = numbers.algorithms.map((row) => [
    row.algorithm,
    String(row.runs),
    ...PRINTED.map((m) => interval(row[m], row.runs)),
  ]);
  const shown = shownTaus(numbers.taus.length);
  const profileHeader = ['algorithm', ...shown.map((i) => `tau ${Number(numbers.taus[i]!.toFixed(3))}`)];
  const profileRows = numbers.algorithms.map((row) => [
    row.algorithm,
    ...shown.map((i) => interval(row.profile[i]!, row.runs)),
  ]);
  const tasks = numbers.algorithms[0]!.tasks;
  const runs = (name: string) => numbers.algorithms.find(({ algorithm }) => algorithm === name)!.runs;
  const estimates = [
    ...numbers.algorithms.flatMap((row) => [...PRINTED.map((m) => row[m]), ...row.profile]),
    ...numbers.improvements,
  ];
  return [
    `${numbers.algorithms.length} algorithm(s) x ${tasks} tasks; ${notes(numbers).join('\n')}`,
    '',
    markdownTable(header, rows),
    '',
    `Performance profile (share of run x task scores above tau, with its band; ${numbers.taus.length} taus${numbers.tauScale === 'log' ? ', spaced on a log scale' : ''}, all in --json and the figure):`,
    '',
    markdownTable(profileHeader, profileRows),
    '',
    numbers.improvements.length === 0
      ? 'Probability of improvement: needs two algorithms.'
      : [
          'Probability of improvement (per task P(X > Y), ties 1/2, averaged over tasks):',
          '',
          markdownTable(
            ['pair', 'P(X > Y)'],
            numbers.improvements.map((pair) => [
              `P(${pair.x} > ${pair.y})`,
              interval(pair, Math.min(runs(pair.x), runs(pair.y))),
            ]),
          ),
        ].join('\n'),
    '',
    ...(estimates.some(({ low }) => low === null) ? [NO_INTERVAL, ''] : []),
    coverageNote(numbers.resample),
  ].join('\n');
}

async function figures(numbers: Numbers) {
  const aggregates = await intervalPanelsSvg(
    PRINTED.map((m) => {
      const points = numbers.algorithms.map((row) =>
        intervalPoint(row.algorithm, row.algorithm, row[m].estimate, row[m]),
      );
      const values = points.flatMap(({ low, high }) => [low, high]);
      return {
        title: title(m, numbers.gamma),
        xTitle: '',
        yTitle: 'score',
        points,
        yDomain: [Math.min(0, ...values), Math.max(1, ...values)] as [number, number],
        width: 160,
      };
    }),
    `Aggregate metrics with 95% bootstrap intervals (${numbers.resample === 'whole-runs' ? 'whole runs redrawn' : 'stratified'})`,
  );
  const profile = await bandPanelsSvg([
    {
      title: 'Performance profiles (score distributions) with 95% bands',
      xTitle: numbers.tauScale === 'log' ? 'tau (log scale: sign(tau) log(1 + |tau|))' : 'tau',
      yTitle: 'share of run x task scores > tau',
      xScale: numbers.tauScale === 'log' ? 'symlog' : 'linear',
      series: numbers.algorithms.map((row) => ({
        name: row.algorithm,
        points: row.profile.map(({ tau, estimate, low, high }) => ({
          x: tau,
          y: estimate,
          ...(low === null || high === null ? {} : { low, high }),
        })),
      })),
    },
  ]);
  const result = { 'aggregate-metrics.svg': aggregates, 'aggregate-profiles.svg': profile };
  if (numbers.improvements.length === 0) return result;
  const improvement = await intervalChartSvg({
    title: 'Probability of improvement with 95% intervals',
    xTitle: '',
    yTitle: 'P(X > Y)',
    points: numbers.improvements.map((pair) =>
      intervalPoint(`P(${pair.x} > ${pair.y})`, 'P(X > Y)', pair.estimate, pair),
    ),
    rules: [{ y: 0.5, label: 'no improvement' }],
  });
  return { ...result, 'aggregate-improvement.svg': improvement };
}

/** `--out DIR`: a folder, or nothing yet (a rerun writes over its own files); checked before any work. */
function outDirFlag(args: CommandArgs): string | undefined {
  const out = stringFlag(args, 'out');
  const stats = out === undefined ? undefined : orUndefined(() => lstatSync(out));
  if (stats !== undefined && !stats.isDirectory())
    throw new InputError(`--out: '${out}' is ${fileKind(stats)}; give a folder (or the path of none yet)`);
  return out;
}

export const command: Command = {
  name: 'aggregate',
  summary:
    'rliable on your own runs x tasks scores: IQM, mean, median, optimality gap, performance profiles, probability of improvement, with stratified-bootstrap intervals',
  usage:
    'tinyagent aggregate FILE... [--reps N] [--seed 0] [--gamma 1] [--tau LIST] [--tau-scale linear|log] [--resample within-tasks|whole-runs] [--json] [--out DIR]',
  positionals: { min: 1, max: 64 },
  flags: {
    reps: valueFlag(
      `bootstrap replicates (default: rliable's ${AGGREGATE_REPS.toLocaleString('en-US')}, fewer for a large file, at least ${MIN_REPS.toLocaleString('en-US')})`,
      { range: integers(100, 1_000_000) },
    ),
    seed: valueFlag('seed of the bootstrap', { default: '0', range: SEED_RANGE }),
    gamma: valueFlag("the optimality gap's threshold (rliable's default)", {
      default: '1',
      range: decimals(-GAMMA_LIMIT, GAMMA_LIMIT),
    }),
    tau: valueFlag(
      "the profile's thresholds: a list (0,0.5,1,2,4,8) or START:STOP:COUNT as np.linspace (0:8:81); default 21 from min(0, lowest score) to max(1, highest)",
    ),
    'tau-scale': valueFlag(
      "the profile's x axis and default taus: linear, or log (sign(x) log(1 + |x|), takes 0 and negatives)",
      { default: 'linear' },
    ),
    resample: valueFlag(
      "within-tasks (rliable's stratified bootstrap: runs made per task) or whole-runs (each run one policy scored on every task)",
      { default: 'within-tasks' },
    ),
    json: switchFlag('print JSON'),
    out: valueFlag(
      'write aggregate.json, aggregate.md and figures/ to DIR (npm run report -- --aggregate DIR shows them)',
    ),
  },
  moreHelp: () =>
    [
      'Each FILE holds scores by run and task, as rliable takes them: CSV with a header naming run,',
      'task, score (and optionally algorithm), or one line per run and one column per task (a header',
      'naming the tasks, optionally algorithm and run, or no header); JSON, one {"run", "task",',
      '"score"} object per line or an array of them, or rliable\'s {"algorithm": [[score per task] per',
      'run]}. Without an algorithm a file is one algorithm, named by the file. Every run of an',
      'algorithm scores every task once, and the algorithms share their tasks. Progress goes to',
      'stderr on a terminal. See docs/METRICS.md.',
    ].join('\n'),
  async run(args) {
    const reps = intFlag(args, 'reps', undefined);
    const seed = intFlag(args, 'seed', 0);
    const gamma = numberFlag(args, 'gamma', 1);
    const tauText = stringFlag(args, 'tau');
    const taus = tauText === undefined ? undefined : tauFlag(tauText);
    const tauScale = choiceFlag(args, 'tau-scale', TAU_SCALES, 'linear');
    const resample = choiceFlag(args, 'resample', RESAMPLINGS, 'within-tasks');
    const out = outDirFlag(args);
    const algorithms = readScoreFiles(args.positionals);
    const numbers = aggregateNumbers(algorithms, {
      ...definedFields({ reps, taus }),
      seed,
      gamma,
      tauScale,
      resample,
    });
    const text = table(numbers);
    if (out !== undefined)
      writeResults(resolve(out), {
        section: 'aggregate',
        title: `rliable aggregates of ${numbers.algorithms.map((row) => row.algorithm).join(', ')}`,
        generatedBy: `tinyagent aggregate ${args.positionals.join(' ')}`,
        seed,
        smoke: false,
        config: {
          files: args.positionals,
          reps: numbers.reps,
          gamma,
          level: numbers.level,
          resample,
          tauScale,
        },
        numbers,
        markdown: text,
        figures: await figures(numbers),
      });
    if (boolFlag(args, 'json'))
      printJson({ ...numbers, notes: notes(numbers), coverage: coverageNote(resample) });
    else process.stdout.write(`${text}\n`);
  },
};
