import { naming } from '../../lib/errors.ts';
import { Rng } from '../../lib/rng.ts';
import { count } from '../../lib/text.ts';
import { batchOf, checkSameBenchmark, refuseGraded, type ResultFile } from '../../eval/io/index.ts';
import { compareResults, tasksNeededLine, type ComparisonReport } from '../../eval/report/compare.ts';
import { formatHarnessValue } from '../../eval/report/harness.ts';
import {
  boolFlag,
  bootstrapFlags,
  bootstrapFlagSpecs,
  definedFields,
  intFlag,
  POSITIVE_RANGE,
  printJson,
  readResultFiles,
  RESULT_FILE_FLAGS,
  stringFlag,
  switchFlag,
  valueFlag,
  type Command,
  type CommandArgs,
} from '../args.ts';

const isInspect = ({ format }: ResultFile) => format === 'inspect-json' || format === 'inspect-eval';

/** One line on how the episodes were paired: common random numbers, differing seeds, or index only. */
function pairingLine({ pairing }: ComparisonReport, fileA: ResultFile, fileB: ResultFile): string {
  if (pairing.kind === 'index-only' && isInspect(fileA) && isInspect(fileB)) {
    return `pairing: by Inspect sample id and epoch (${pairing.total} paired samples; Inspect records no per-sample seed, so common random numbers cannot be checked)`;
  }
  if (pairing.kind === 'common-random-numbers')
    return `pairing: common random numbers (env seeds match on all ${pairing.total} paired episodes)`;
  if (pairing.kind === 'seeds-differ') {
    const shown = pairing.differing
      .map(({ task, sample, a, b }) => `${task}#${sample} A ${JSON.stringify(a)} B ${JSON.stringify(b)}`)
      .join('; ');
    return `pairing: by task and sample index; env seeds differ on ${pairing.withSeeds - pairing.matched} of ${pairing.withSeeds} paired episodes (${shown}${pairing.withSeeds - pairing.matched > pairing.differing.length ? '; ...' : ''})`;
  }
  const partial =
    pairing.withSeeds > 0
      ? ` (env seeds recorded on both sides for only ${pairing.withSeeds} of ${pairing.total} paired episodes)`
      : ' (no env seeds recorded)';
  return `pairing: by task and sample index only${partial}`;
}

async function run(args: CommandArgs): Promise<void> {
  const [pathA, pathB] = args.positionals as [string, string];
  const k = intFlag(args, 'k', 1);
  const { level, reps, seed } = bootstrapFlags(args);
  const run = stringFlag(args, 'run');
  const [fileA, fileB] = await readResultFiles(args, [pathA, pathB]);
  for (const file of [fileA, fileB]) refuseGraded(file, 'the paired comparison of pass rates');
  const allowDifferentTasks = boolFlag(args, 'allow-different-tasks');
  const benchmarkLine = checkSameBenchmark(fileA, fileB, { allow: allowDifferentTasks });
  const [tasksA, tasksB] = [batchOf(fileA, run), batchOf(fileB, run)];
  const report = naming(`${pathA} vs ${pathB}`, () =>
    compareResults(
      { tasks: tasksA, harness: fileA.harness, rows: fileA.rows, header: fileA.header },
      { tasks: tasksB, harness: fileB.harness, rows: fileB.rows, header: fileB.header },
      { k, level, reps, rng: new Rng(seed).fork('compare/bootstrap'), ...(run === undefined ? {} : { run }) },
    ),
  );
  const notes = { a: fileA.notes ?? [], b: fileB.notes ?? [] };
  if (boolFlag(args, 'json')) {
    const { pairing, ...rest } = report;
    printJson({
      files: { a: pathA, b: pathB },
      formats: { a: fileA.format, b: fileB.format },
      // a side that records no benchmark has none here
      benchmarks: { ...definedFields({ a: fileA.benchmark, b: fileB.benchmark }), allowDifferentTasks },
      notes,
      seed,
      ...rest,
      pairing,
    });
    return;
  }
  const lines: string[] = [
    ...notes.a.map((note) => `note (A): ${note}`),
    ...notes.b.map((note) => `note (B): ${note}`),
  ];
  if (fileA.harness === undefined || fileB.harness === undefined)
    lines.push(
      `harness: not recorded for ${[fileA.harness === undefined ? 'A' : '', fileB.harness === undefined ? 'B' : ''].filter(Boolean).join(' and ')}; cannot check that both ran under the same conditions`,
    );
  else if (report.harnessDifferences.length === 0) lines.push('harness: identical');
  else
    lines.push(
      `harness: ${report.harnessDifferences.length === 1 ? '1 field differs' : `${report.harnessDifferences.length} fields differ`}, so this compares harnesses as well as checkpoints:`,
      ...report.harnessDifferences.map(
        ({ field, a, b }) => `  ${field}: A ${formatHarnessValue(a)}  B ${formatHarnessValue(b)}`,
      ),
    );
  if (benchmarkLine !== undefined) lines.push(benchmarkLine);
  lines.push(pairingLine(report, fileA, fileB));
  if (report.onlyInA.length > 0) lines.push(`tasks only in A (left out): ${report.onlyInA.join(', ')}`);
  if (report.onlyInB.length > 0) lines.push(`tasks only in B (left out): ${report.onlyInB.join(', ')}`);
  if (report.tooFewSamples.length > 0)
    lines.push(`tasks with fewer than ${count(k, 'sample')} (left out): ${report.tooFewSamples.join(', ')}`);
  lines.push(...report.warnings.map((warning) => `warning: ${warning}`));
  const metric = k === 1 ? 'pass@1' : `pass@${k}`;
  const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
  const missing = `n/a: ${report.commonTasks} task`;
  const { difference } = report;
  // Two or more tasks without an interval: every task has the same difference (a warning says so).
  const noInterval = report.commonTasks < 2 ? missing : 'n/a: no spread';
  lines.push(
    `${count(report.commonTasks, 'common task')}, paired by id: ${metric} A ${report.a.toFixed(3)}, B ${report.b.toFixed(3)}`,
    `B - A = ${signed(difference.estimate)}, paired bootstrap ${Math.round(level * 100)}% interval ${difference.low === null || difference.high === null ? noInterval : `[${signed(difference.low)}, ${signed(difference.high)}]`}`,
    `paired SE ${report.pairedSE === null ? missing : report.pairedSE.toFixed(3)}, unpaired SE ${report.unpairedSE === null ? missing : report.unpairedSE.toFixed(3)}, per-task correlation ${report.correlation === null ? 'n/a' : report.correlation.toFixed(2)}`,
    tasksNeededLine(report),
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

export const command: Command = {
  name: 'compare',
  summary:
    'Compare two result files paired by task: harness differences first, then the paired difference with its interval',
  usage:
    'tinyagent compare A B [--k 1] [--level 0.95] [--seed S] [--reps R] [--run ID] [--allow-different-tasks] [--format F] [--scorer NAME] [--partial-as pass|fail] [--metric NAME] [--filter NAME] [--json]',
  positionals: { min: 2, max: 2 },
  flags: {
    k: valueFlag('compare unbiased pass@k per task (1 = mean accuracy)', {
      default: '1',
      range: POSITIVE_RANGE,
    }),
    ...bootstrapFlagSpecs('paired bootstrap'),
    run: { type: 'string', description: 'the run to use when a file holds several' },
    'allow-different-tasks': switchFlag(
      'pair the files by task id even when they record different benchmarks (refused otherwise: the ids name different items)',
    ),
    ...RESULT_FILE_FLAGS,
    json: { type: 'boolean', description: 'print JSON' },
  },
  run,
};
