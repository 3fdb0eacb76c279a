import { Rng } from '../../lib/rng.ts';
import { groupOutcomes, readResultFile, ResultFileError, type ResultFile, type TaskOutcomes } from '../../eval/io/index.ts';
import { computeMetrics, type MetricsReport } from '../../eval/report/metrics.ts';
import type { Estimate } from '../../eval/report/resample.ts';
import { boolFlag, InputError, intFlag, intListFlag, numberFlag, printJson, stringFlag, type Command } from '../args.ts';

/** Reads a result file for a command: a malformed file becomes an InputError (exit 1). */
export function readResults(path: string): ResultFile {
  try {
    return readResultFile(path);
  } catch (error) {
    if (error instanceof ResultFileError) throw new InputError(error.message);
    throw error;
  }
}

/** One batch of a file as a task x sample matrix; duplicated rows or several runs are an InputError. */
export function batchOf(file: ResultFile, run: string | undefined): TaskOutcomes[] {
  const grouped = groupOutcomes(file.rows, run === undefined ? {} : { run });
  for (const issue of grouped.issues) {
    if (issue.kind === 'duplicate') throw new InputError(`${file.path}: ${issue.message} (each task and sample index must appear once; try tinyagent diagnose)`);
    if (issue.kind === 'multiple-runs') throw new InputError(`${file.path}: ${issue.message} with --run`);
  }
  if (run !== undefined && grouped.tasks.length === 0) throw new InputError(`${file.path}: no rows with run '${run}' (have ${grouped.runs.join(', ') || 'none'})`);
  return grouped.tasks;
}

const pct = (value: number) => `${(100 * value).toFixed(1)}%`;
const cell = (value: Estimate | null | undefined) => (value == null ? 'n/a' : `${pct(value.estimate)} [${pct(value.low)}, ${pct(value.high)}]`);

function printReport(path: string, report: MetricsReport, notes: string[]): void {
  const lines = [
    `${path}: ${report.tasks} tasks, ${report.samplesPerTask.min === report.samplesPerTask.max ? report.samplesPerTask.min : `${report.samplesPerTask.min}-${report.samplesPerTask.max}`} samples per task; ${Math.round(report.level * 100)}% task-level bootstrap intervals (${report.reps} reps)`,
    ...notes.map((note) => `note: ${note}`),
    '',
    `mean accuracy (pass@1, all samples)  ${cell(report.meanAccuracy)}   episode-level [${pct(report.meanAccuracy.episodeLevel.low)}, ${pct(report.meanAccuracy.episodeLevel.high)}]`,
    `first-sample accuracy                ${cell(report.firstSampleAccuracy)}`,
    `clustered SE ${report.meanAccuracy.clusteredSE.toFixed(4)} vs episode SE ${report.meanAccuracy.episodeSE.toFixed(4)}; rho ${report.intraclassCorrelation?.toFixed(3) ?? 'n/a'}, design effect ${report.designEffect?.toFixed(2) ?? 'n/a'}`,
    '',
    `${'k'.padStart(4)}  ${'unbiased pass@k'.padEnd(26)}${'prefix pass@k'.padEnd(26)}${'all-k-correct (prefix)'.padEnd(26)}${'pass^k unbiased'.padEnd(26)}plug-in (biased)`,
  ];
  for (const k of Object.keys(report.passAtK)) {
    lines.push(`${k.padStart(4)}  ${cell(report.passAtK[k]).padEnd(26)}${cell(report.prefixPassAtK[k]).padEnd(26)}${cell(report.allCorrectAtK[k]).padEnd(26)}${cell(report.unbiasedAllCorrectAtK[k]).padEnd(26)}${pct(report.plugInPassAtK[k] as number)} (pooled ${pct(report.pooledPlugInPassAtK[k] as number)})`);
  }
  lines.push('', 'checks:', ...report.checks.map(({ name, ok, detail }) => `  [${ok ? 'ok' : 'FAIL'}] ${name}: ${detail}`));
  process.stdout.write(`${lines.join('\n')}\n`);
}

export const command: Command = {
  name: 'metrics',
  summary: 'Every pass-rate metric of a result file (pass@k, prefix pass@k, pass^k, accuracies) with task-level intervals and consistency checks',
  usage: 'tinyagent metrics FILE [--k 1,5,10] [--level 0.95] [--seed S] [--reps R] [--run ID] [--json]',
  positionals: { min: 1, max: 1 },
  flags: {
    k: { type: 'string', description: 'comma-separated k values', default: '1,5,10 (those <= n) and n' },
    level: { type: 'string', description: 'confidence level', default: '0.95' },
    seed: { type: 'string', description: 'seed of the bootstrap', default: '0' },
    reps: { type: 'string', description: 'bootstrap replicates', default: '2000' },
    run: { type: 'string', description: 'the run to use when the file holds several' },
    json: { type: 'boolean', description: 'print JSON' },
  },
  async run(args) {
    const path = args.positionals[0] as string;
    const level = numberFlag(args, 'level', 0.95, { min: 0.5, max: 0.9999 });
    const reps = intFlag(args, 'reps', 2000, { min: 100, max: 1_000_000 });
    const seed = intFlag(args, 'seed', 0);
    const file = readResults(path);
    const tasks = batchOf(file, stringFlag(args, 'run'));
    const grouped = groupOutcomes(file.rows, stringFlag(args, 'run') === undefined ? {} : { run: stringFlag(args, 'run') as string });
    const minSamples = Math.min(...tasks.map(({ outcomes }) => outcomes.length));
    const ks = intListFlag(args, 'k', [...new Set([...[1, 5, 10].filter((k) => k <= minSamples), minSamples])]);
    const report = computeMetrics(tasks, { ks, level, reps, rng: new Rng(seed).fork('metrics/bootstrap') });
    const notes = grouped.issues.map((issue) => issue.message);
    if (grouped.multiTurn) notes.push('rows carry `turn`: each sample is scored by its last turn (final answer); see tinyagent diagnose for the per-turn view');
    if (boolFlag(args, 'json')) printJson({ file: path, format: file.format, harness: file.harness ?? null, seed, notes, ...report });
    else printReport(path, report, notes);
    return report.checks.every(({ ok }) => ok) ? 0 : 1;
  },
};
