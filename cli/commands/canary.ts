import { count } from '../../lib/text.ts';
import {
  alignedLines,
  boolFlag,
  type Command,
  integers,
  intFlag,
  printJson,
  SEED_RANGE,
  switchFlag,
  valueFlag,
} from '../args.ts';
import { canaryRowOk, runCanary } from '../../gym/index.ts';
import { noteMachine, outFlag, writeRecord } from '../measurementRecord.ts';

type CanaryRow = ReturnType<typeof runCanary>['results'][number];

/** A blind policy's expected rates are approximate. */
const expected = (value: number, { policy }: CanaryRow) =>
  policy === 'blind' ? `~${value.toFixed(1)}` : value.toFixed(1);

/** The table's columns: each header and its cell of a row. */
const COLUMNS: Array<[string, (row: CanaryRow) => string]> = [
  ['policy', (row) => row.policy],
  ['env', (row) => row.env],
  ['reward', (row) => row.reward],
  ['mean reward', (row) => row.meanReward.toFixed(3)],
  ['expected', (row) => expected(row.expected, row)],
  ['success', (row) => row.successRate.toFixed(3)],
  ['expected', (row) => expected(row.expectedSuccess, row)],
  ['episodes', (row) => String(row.episodes)],
  ['harness', (row) => row.harnessHash],
  ['check', (row) => (canaryRowOk(row) ? 'ok' : 'DRIFT')],
];

export const command: Command = {
  name: 'canary',
  summary:
    'Run the scripted canary policies (oracle, blind, stacker, gamer) through the gym and check their known pass rates',
  usage: 'tinyagent canary [--episodes N] [--seed S] [--out FILE] [--json]',
  flags: {
    // Each harness plays all its episodes at once: memory grows with the count.
    episodes: valueFlag('episodes per task per policy and harness (256: about 10 s and 0.7 GB)', {
      default: '10',
      range: integers(1, 256),
    }),
    seed: valueFlag('seed of the env and policy streams', { default: '0', range: SEED_RANGE }),
    out: valueFlag(
      'also write the JSON into this file (results/canary.json is the one the docs quote), DRIFT or not',
    ),
    json: switchFlag('print { results, harnesses, seed } as JSON on stdout'),
  },
  async run(args) {
    const episodesPerTask = intFlag(args, 'episodes', 10);
    const seed = intFlag(args, 'seed', 0);
    const outFile = outFlag(args);
    const machine = noteMachine();
    const started = Date.now();
    const report = runCanary({ episodesPerTask, seed });
    const allOk = report.results.every(canaryRowOk);
    const json = {
      ...report,
      results: report.results.map((row) => ({ ...row, ok: canaryRowOk(row) })),
      ok: allOk,
    };
    if (outFile !== undefined)
      writeRecord(outFile, 'canary', args, machine(), { seconds: (Date.now() - started) / 1000, ...json });
    if (boolFlag(args, 'json')) {
      printJson(json);
      return allOk ? 0 : 1;
    }
    const rows = report.results.map((row) => COLUMNS.map(([, cell]) => cell(row)));
    const lines = [
      `Harness canary: 4 scripted policies on all 30 tasks, ${count(episodesPerTask, 'episode')} per task each, seed ${seed}`,
      '  train = training harness (1 edit, renaming on); plain = plain BugFixEnv (unlimited edits, no renaming)',
      '  reward = tests that decide the reward at submit; mean reward = what an evaluation scoring that reward would report',
      '  success = submitted and the hidden tests pass (the one success rule); expected = what the gym is built to give',
      '',
      ...alignedLines([COLUMNS.map(([name]) => name), ...rows], '  '),
      '',
      allOk
        ? `All ${rows.length} pass rates as expected (${((Date.now() - started) / 1000).toFixed(1)} s).`
        : 'DRIFT: a scripted policy moved; the harness no longer gives the numbers the project reports. See docs/GYM.md, "The canary".',
      ...(outFile === undefined ? [] : [`wrote ${count(rows.length, 'row')} to ${outFile}`]),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return allOk ? 0 : 1;
  },
};
