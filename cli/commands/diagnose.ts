import { diagnose } from '../../eval/report/diagnose.ts';
import { boolFlag, intFlag, printJson, stringFlag, UsageError, type Command } from '../args.ts';
import { readResults } from './metrics.ts';

/** `--reported 1:0.62,10:0.55` -> { 1: 0.62, 10: 0.55 } */
function parseReported(raw: string | undefined): Record<string, number> | undefined {
  if (raw === undefined) return undefined;
  const entries = raw.split(',').map((part) => part.trim().split(':'));
  const result: Record<string, number> = {};
  for (const entry of entries) {
    const [k, value] = entry.map(Number);
    if (entry.length !== 2 || !Number.isInteger(k) || (k as number) < 1 || !((value as number) >= 0 && (value as number) <= 1)) {
      throw new UsageError(`--reported must look like 1:0.62,10:0.55 (k:value with value in [0, 1]), got '${raw}'`);
    }
    result[k as number] = value as number;
  }
  return result;
}

export const command: Command = {
  name: 'diagnose',
  summary: 'Why does pass@k fall below pass@1? Same batch, different runs, different harness, or multi-turn: evidence for each',
  usage: 'tinyagent diagnose FILE [FILE2] [--k K] [--reported 1:0.62,10:0.55] [--json]   (FILE: source of pass@1, FILE2: of pass@k)',
  positionals: { min: 1, max: 2 },
  flags: {
    k: { type: 'string', description: 'the k of the pass@k being questioned', default: 'n of FILE2 (or FILE)' },
    reported: { type: 'string', description: 'the numbers that were reported, as k:value pairs, to check against the raw rows' },
    json: { type: 'boolean', description: 'print JSON' },
  },
  async run(args) {
    const [first, second] = args.positionals as [string, string | undefined];
    const reported = parseReported(stringFlag(args, 'reported'));
    const fileA = readResults(first);
    const fileB = second === undefined ? undefined : readResults(second);
    const k = args.flags.k === undefined ? undefined : intFlag(args, 'k', 1, { min: 1 });
    const report = diagnose(fileA, fileB, { ...(k === undefined ? {} : { k }), ...(reported === undefined ? {} : { reported }) });
    if (boolFlag(args, 'json')) {
      printJson(report);
      return;
    }
    const { numbers } = report;
    const lines = [
      `pass@1 ${(100 * numbers.passAt1).toFixed(1)}% (${report.sources[0]}) vs pass@${numbers.k} ${(100 * numbers.passAtK).toFixed(1)}% (${report.sources[1] ?? report.sources[0]}): ${numbers.inverted ? 'INVERTED' : 'not inverted'}`,
      '',
    ];
    for (const finding of report.findings) {
      const verdict = finding.supported === true ? 'SUPPORTED' : finding.supported === false ? 'ruled out' : finding.explanation === 'before-after' ? 'checklist' : 'cannot tell';
      lines.push(`${finding.title}  [${verdict}]`, ...finding.evidence.map((line) => `    ${line}`), '');
    }
    lines.push(`conclusion: ${report.conclusion}`, 'triage: recompute from raw samples, align generation conditions, then compare before/after paired by task.');
    process.stdout.write(`${lines.join('\n')}\n`);
  },
};
