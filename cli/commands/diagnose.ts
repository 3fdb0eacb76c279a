import { checkSameBenchmark, refuseGraded } from '../../eval/io/index.ts';
import { diagnose } from '../../eval/report/diagnose.ts';
import {
  boolFlag,
  definedFields,
  intFlag,
  POSITIVE_RANGE,
  printJson,
  readResultFiles,
  RESULT_FILE_FLAGS,
  stringFlag,
  switchFlag,
  UsageError,
  valueFlag,
  type Command,
  type CommandArgs,
} from '../args.ts';

/** `--reported 1:0.62,10:0.55` -> { 1: 0.62, 10: 0.55 } */
function parseReported(raw: string | undefined): Record<string, number> | undefined {
  if (raw === undefined) return undefined;
  const result: Record<string, number> = {};
  for (const part of raw.split(',')) {
    const [k = '', value = '', ...rest] = part.split(':').map((side) => side.trim());
    // decimal only, as everywhere: `0x10` or `1e1` is not how a k is written
    if (
      rest.length > 0 ||
      !/^\d+$/.test(k) ||
      !/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value) ||
      !Number.isSafeInteger(Number(k)) ||
      Number(k) < 1 ||
      !(Number(value) <= 1)
    )
      throw new UsageError(
        `--reported must look like 1:0.62,10:0.55 (k:value with value in [0, 1]), got '${raw}'`,
      );
    if (Number(k) in result)
      throw new UsageError(`--reported gives k = ${Number(k)} twice; give each k once`);
    result[Number(k)] = Number(value);
  }
  return result;
}

/** Exit 1 when a `--reported` number does not match the raw rows: a failed check, as `metrics`'s are. */
async function run(args: CommandArgs): Promise<number> {
  const [first, second] = args.positionals as [string, string | undefined];
  const reported = parseReported(stringFlag(args, 'reported'));
  const k = intFlag(args, 'k', undefined);
  const files = await readResultFiles(args, second === undefined ? [first] : [first, second]);
  const [fileA, fileB] = files;
  for (const file of files) refuseGraded(file, 'the pass@k diagnosis');
  const benchmarkLine =
    fileB === undefined
      ? undefined
      : checkSameBenchmark(fileA, fileB, { allow: boolFlag(args, 'allow-different-tasks') });
  const report = diagnose(fileA, fileB, definedFields({ k, reported }));
  const notes = [
    ...(fileA.notes ?? []).map((note) => `${first}: ${note}`),
    ...(fileB?.notes ?? []).map((note) => `${second}: ${note}`),
    ...(benchmarkLine === undefined ? [] : [benchmarkLine]),
  ];
  const status = report.reportedMismatch ? 1 : 0;
  if (boolFlag(args, 'json')) {
    printJson({ ...report, notes });
    return status;
  }
  const { numbers } = report;
  const lines = [
    ...notes.map((note) => `note: ${note}`),
    `pass@1 ${(100 * numbers.passAt1).toFixed(1)}% (${report.sources[0]}) vs pass@${numbers.k} ${(100 * numbers.passAtK).toFixed(1)}% (${report.sources[1] ?? report.sources[0]}): ${numbers.inverted ? 'INVERTED' : 'not inverted'}`,
    '',
  ];
  for (const finding of report.findings) {
    const verdict =
      finding.supported === true
        ? 'SUPPORTED'
        : finding.supported === false
          ? 'ruled out'
          : finding.explanation === 'before-after'
            ? 'checklist'
            : 'cannot tell';
    lines.push(`${finding.title}  [${verdict}]`, ...finding.evidence.map((line) => `    ${line}`), '');
  }
  lines.push(
    `conclusion: ${report.conclusion}`,
    'triage: recompute from raw samples, align generation conditions, then compare before/after paired by task.',
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  if (status !== 0)
    process.stderr.write(
      'tinyagent diagnose: a reported number does not match the raw rows (MISMATCH above)\n',
    );
  return status;
}

export const command: Command = {
  name: 'diagnose',
  summary:
    'Why does pass@k fall below pass@1? Same batch, different runs, different harness, or multi-turn: evidence for each',
  usage:
    'tinyagent diagnose FILE [FILE2] [--k K] [--reported 1:0.62,10:0.55] [--allow-different-tasks] [--format F] [--scorer NAME] [--partial-as pass|fail] [--metric NAME] [--filter NAME] [--json]   (FILE: source of pass@1, FILE2: of pass@k)',
  positionals: { min: 1, max: 2 },
  flags: {
    k: valueFlag('the k of the pass@k being questioned (at most the samples per task)', {
      default: 'n of FILE2 (or FILE)',
      range: POSITIVE_RANGE,
    }),
    reported: valueFlag('the numbers that were reported, as k:value pairs, to check against the raw rows'),
    'allow-different-tasks': switchFlag(
      'read FILE and FILE2 as one task set even when they record different benchmarks',
    ),
    ...RESULT_FILE_FLAGS,
    json: { type: 'boolean', description: 'print JSON' },
  },
  run,
};
