import { Rng } from '../../lib/rng.ts';
import { compareResults } from '../../eval/report/compare.ts';
import { formatHarnessValue } from '../../eval/report/harness.ts';
import { boolFlag, InputError, intFlag, numberFlag, printJson, stringFlag, type Command } from '../args.ts';
import { batchOf, readResults } from './metrics.ts';

export const command: Command = {
  name: 'compare',
  summary: 'Compare two result files paired by task: harness differences first, then the paired difference with its interval',
  usage: 'tinyagent compare A B [--k 1] [--level 0.95] [--seed S] [--reps R] [--json]',
  positionals: { min: 2, max: 2 },
  flags: {
    k: { type: 'string', description: 'compare unbiased pass@k per task (1 = mean accuracy)', default: '1' },
    level: { type: 'string', description: 'confidence level', default: '0.95' },
    seed: { type: 'string', description: 'seed of the paired bootstrap', default: '0' },
    reps: { type: 'string', description: 'bootstrap replicates', default: '2000' },
    run: { type: 'string', description: 'the run to use when a file holds several' },
    json: { type: 'boolean', description: 'print JSON' },
  },
  async run(args) {
    const [pathA, pathB] = args.positionals as [string, string];
    const k = intFlag(args, 'k', 1, { min: 1 });
    const level = numberFlag(args, 'level', 0.95, { min: 0.5, max: 0.9999 });
    const reps = intFlag(args, 'reps', 2000, { min: 100, max: 1_000_000 });
    const seed = intFlag(args, 'seed', 0);
    const fileA = readResults(pathA);
    const fileB = readResults(pathB);
    const run = stringFlag(args, 'run');
    let report;
    try {
      report = compareResults({ tasks: batchOf(fileA, run), harness: fileA.harness }, { tasks: batchOf(fileB, run), harness: fileB.harness }, { k, level, reps, rng: new Rng(seed).fork('compare/bootstrap') });
    } catch (error) {
      if (error instanceof RangeError) throw new InputError(error.message);
      throw error;
    }
    if (boolFlag(args, 'json')) {
      printJson({ files: { a: pathA, b: pathB }, seed, ...report });
      return;
    }
    const lines: string[] = [];
    if (fileA.harness === undefined || fileB.harness === undefined) lines.push(`harness: not recorded for ${[fileA.harness === undefined ? 'A' : '', fileB.harness === undefined ? 'B' : ''].filter(Boolean).join(' and ')}; cannot check that both ran under the same conditions`);
    else if (report.harnessDifferences.length === 0) lines.push('harness: identical');
    else lines.push(`harness: ${report.harnessDifferences.length} field(s) differ, so this compares harnesses as well as checkpoints:`, ...report.harnessDifferences.map(({ field, a, b }) => `  ${field}: A ${formatHarnessValue(a)}  B ${formatHarnessValue(b)}`));
    if (report.onlyInA.length > 0) lines.push(`tasks only in A (left out): ${report.onlyInA.join(', ')}`);
    if (report.onlyInB.length > 0) lines.push(`tasks only in B (left out): ${report.onlyInB.join(', ')}`);
    if (report.tooFewSamples.length > 0) lines.push(`tasks with fewer than ${k} samples (left out): ${report.tooFewSamples.join(', ')}`);
    const metric = k === 1 ? 'pass@1' : `pass@${k}`;
    const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
    lines.push(
      `${report.commonTasks} common tasks, paired by id: ${metric} A ${report.a.toFixed(3)}, B ${report.b.toFixed(3)}`,
      `B - A = ${signed(report.difference.estimate)}, paired bootstrap ${Math.round(level * 100)}% interval [${signed(report.difference.low)}, ${signed(report.difference.high)}]`,
      `paired SE ${report.pairedSE.toFixed(3)}, unpaired SE ${report.unpairedSE.toFixed(3)}, per-task correlation ${Number.isNaN(report.correlation) ? 'n/a' : report.correlation.toFixed(2)}`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  },
};
