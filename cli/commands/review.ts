import { designReview } from '../../eval/index.ts';
import { count } from '../../lib/text.ts';
import {
  boolFlag,
  type Command,
  decimals,
  integers,
  intFlag,
  numberFlag,
  printJson,
  switchFlag,
  UsageError,
  valueFlag,
} from '../args.ts';

/** `last` (no selection) or `best-of-K`, K in [1, 1000]: the number of checkpoints the reported one was picked from. */
function selectionFlag(raw: string | boolean | undefined): number {
  if (raw === undefined || raw === 'last') return 1;
  const match = typeof raw === 'string' ? /^best-of-(\d{1,4})$/.exec(raw) : null;
  const k = match === null ? NaN : Number(match[1]);
  if (!(k >= 1 && k <= 1000))
    throw new UsageError(`--selection must be 'last' or best-of-K with K in [1, 1000], got '${String(raw)}'`);
  return k;
}

const f = (value: number | null, digits = 4) => (value === null ? 'n/a' : value.toFixed(digits));
const needed = (value: number | null, max: string) => (value === null ? `more than ${max}` : String(value));

export const command: Command = {
  name: 'review',
  summary:
    'Design review of a reported improvement: SE unpaired and paired, selection inflation, seeds and samples needed',
  usage:
    'tinyagent review --a 0.410 --b 0.434 --tasks 500 [--samples 1] [--seeds 1] [--selection last|best-of-K] [--correlation R] [--icc 0.5] [--seed-sd 0] [--json]',
  flags: {
    a: valueFlag('baseline pass@1', { range: decimals(0, 1) }),
    b: valueFlag('new pass@1', { range: decimals(0, 1) }),
    tasks: valueFlag('tasks in the benchmark', { range: integers(1, 1_000_000) }),
    samples: valueFlag('attempts per task (and seed)', { default: '1', range: integers(1, 10_000) }),
    seeds: valueFlag('training seeds per arm', { default: '1', range: integers(1, 1_000) }),
    selection: valueFlag("how the checkpoint was chosen: 'last' or best-of-K by the reported metric", {
      default: 'last',
    }),
    correlation: valueFlag(
      "per-task correlation of the two agents' pass rates; absent: a table over 0 to 0.95",
      { range: decimals(-1, 1) },
    ),
    icc: valueFlag("share of one attempt's variance that lies between tasks (assumed; 17.3 measures it)", {
      default: '0.5',
      range: decimals(0, 1),
    }),
    'seed-sd': valueFlag(
      "SD of one arm's pass@1 across training seeds (assumed; 17.4 measures it); 0 leaves training noise out",
      { default: '0', range: decimals(0, 0.5) },
    ),
    alpha: valueFlag('two-sided significance level', { default: '0.05', range: decimals(1e-6, 0.5) }),
    power: valueFlag('power to detect the reported difference', {
      default: '0.8',
      range: decimals(0.5, 0.999),
    }),
    json: switchFlag('print JSON'),
  },
  async run(args) {
    for (const name of ['a', 'b', 'tasks'])
      if (args.flags[name] === undefined) throw new UsageError('--a, --b and --tasks are required');
    const options = {
      a: numberFlag(args, 'a', 0),
      b: numberFlag(args, 'b', 0),
      tasks: intFlag(args, 'tasks', 1),
      samples: intFlag(args, 'samples', 1),
      seeds: intFlag(args, 'seeds', 1),
      selectedFrom: selectionFlag(args.flags.selection),
      correlation: numberFlag(args, 'correlation', null),
      icc: numberFlag(args, 'icc', 0.5),
      seedSD: numberFlag(args, 'seed-sd', 0),
      alpha: numberFlag(args, 'alpha', 0.05),
      power: numberFlag(args, 'power', 0.8),
    };
    if (options.a === options.b)
      throw new UsageError('--a and --b are equal: there is no difference to review');
    const review = designReview(options);
    if (boolFlag(args, 'json')) return printJson({ options, ...review, ask: askFor(options, review) });
    const { a, b, tasks, samples, seeds, selectedFrom } = options;
    const lines = [
      `reported: ${a} -> ${b} (${review.delta >= 0 ? '+' : ''}${review.delta.toFixed(3)}) on ${count(tasks, 'task')}, ${count(samples, 'sample')} per task, ${count(seeds, 'seed')} per arm, ${selectedFrom > 1 ? `best of ${selectedFrom} checkpoints` : 'last checkpoint'}`,
      `assumed: intraclass correlation ${options.icc}, seed SD ${options.seedSD}`,
      `SE of each arm: ${f(review.seA)} and ${f(review.seB)}`,
      `SE of the difference, unpaired: ${f(review.unpaired.se)} (z = ${f(review.unpaired.z, 2)})`,
      `SE needed to detect ${review.delta.toFixed(3)} at alpha ${options.alpha}, power ${options.power}: ${f(review.targetSE)}`,
      '',
      'paired (same tasks), by per-task correlation:',
      '  r      paired SE  z      samples/task needed  seeds/arm needed  floor SE (tasks only)',
      ...review.paired.map(
        (row) =>
          `  ${row.correlation.toFixed(2).padEnd(6)} ${f(row.pairedSE).padEnd(10)} ${f(row.z, 2).padEnd(6)} ${needed(row.samplesNeeded, '10000').padEnd(20)} ${needed(row.seedsNeeded, '1000').padEnd(17)} ${f(row.floorSE)}`,
      ),
      '',
      `selection: the best of ${selectedFrom} equally good checkpoints scores sigma E[max of ${selectedFrom}] = ${f(review.selection.evaluationSD)} x ${f(review.selection.expectedMax, 3)} = ${f(review.selection.inflation)} above them on average`,
      '',
      'ask for:',
      ...askFor(options, review).map((item) => `  - ${item}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  },
};

/** What to ask for before accepting the claim, from the design's weak points. */
function askFor(
  options: { seeds: number; samples: number; selectedFrom: number },
  review: ReturnType<typeof designReview>,
): string[] {
  const ask = [
    'the per-task results of both agents on the same tasks, so that the difference can be paired (and its per-task correlation measured)',
  ];
  if (review.unpaired.z !== null && Math.abs(review.unpaired.z) < 1.96)
    ask.push(
      `an interval for the difference: unpaired it is ${review.delta.toFixed(3)} ± ${(1.96 * review.unpaired.se).toFixed(3)}, which includes 0`,
    );
  if (options.selectedFrom > 1)
    ask.push(
      `the checkpoint chosen on a validation set, or the last one: the best of ${options.selectedFrom} is expected to read ${review.selection.inflation.toFixed(3)} high, ${review.delta !== 0 ? `${((100 * review.selection.inflation) / Math.abs(review.delta)).toFixed(0)}% of the reported difference` : ''}`,
    );
  if (options.seeds < 3)
    ask.push('at least 3 training seeds per arm, to measure the training noise at all (17.4)');
  if (options.samples === 1)
    ask.push('several samples per task, which shrink the within-task part of the SE');
  ask.push(
    'the full harness of both evaluations (sampling temperature, turn budget, scaffold, reward) and that it is the same (17.5)',
  );
  ask.push('that the benchmark tasks were not seen in training (leakage, 17.6)');
  return ask;
}
