import { Rng } from '../../lib/rng.ts';
import { count } from '../../lib/text.ts';
import { mean } from '../../eval/index.ts';
import { groupBatch, isGraded, type ResultFile } from '../../eval/io/index.ts';
import { gradedLines, gradedMetrics, recomputedReported, reportedLine } from '../../eval/report/graded.ts';
import { computeMetrics, metricsStream, mostReps, type MetricsReport } from '../../eval/report/metrics.ts';
import type { Estimate } from '../../eval/report/resample.ts';
import { selectedAccuracy, type SelectedAccuracy } from '../../eval/report/selected.ts';
import {
  boolFlag,
  bootstrapFlags,
  bootstrapFlagSpecs,
  InputError,
  intListFlag,
  MIN_REPS,
  printJson,
  readResultFiles,
  RESULT_FILE_FLAGS,
  stringFlag,
  UsageError,
  type Command,
  type CommandArgs,
} from '../args.ts';

const pct = (value: number) => `${(100 * value).toFixed(1)}%`;
const range = (low: number | null, high: number | null, missing: string) =>
  low === null || high === null ? `n/a: ${missing}` : `[${pct(low)}, ${pct(high)}]`;

/** The plug-in pass@k and its pooled form; n/a where k exceeds a task's samples (no data behind the formula). */
const plugIn = (value: number | null | undefined, pooled: number | null | undefined) =>
  value == null || pooled == null ? 'n/a' : `${pct(value)} (pooled ${pct(pooled)})`;

function printReport(
  path: string,
  report: MetricsReport,
  notes: string[],
  reported: string[],
  selected: SelectedAccuracy | undefined,
): void {
  const missing = `${report.tasks} task`;
  // '*': the exact interval over the tasks, where every task scored alike and the bootstrap had no spread.
  const exact = (value: { method?: string }) => (value.method === undefined ? '' : '*');
  const cell = (value: Estimate | null | undefined) =>
    value == null
      ? 'n/a'
      : value.low === null
        ? `${pct(value.estimate)} (n/a: ${missing})`
        : `${pct(value.estimate)} ${range(value.low, value.high, missing)}${exact(value)}`;
  const estimates = [
    report.meanAccuracy,
    report.pooledShare.taskLevel,
    report.firstSampleAccuracy,
    ...[report.passAtK, report.prefixPassAtK, report.allCorrectAtK, report.unbiasedAllCorrectAtK].flatMap(
      (family) => Object.values(family),
    ),
  ];
  const anyExact = [...estimates, selected].some((value) => value != null && value.method !== undefined);
  const episodeExact = report.pooledShare.episodeLevel.method !== undefined;
  const rhoText = (value: number | null) => value?.toFixed(3) ?? 'n/a';
  const { meanAccuracy, pooledShare } = report;
  const sizes =
    report.samplesPerTask.min === report.samplesPerTask.max
      ? `${report.samplesPerTask.min}`
      : `${report.samplesPerTask.min}-${report.samplesPerTask.max}`;
  const se = (value: number | null) => (value === null ? `n/a: ${missing}` : value.toFixed(4));
  const lines = [
    `${path}: ${count(report.tasks, 'task')}, ${sizes} ${sizes === '1' ? 'sample' : 'samples'} per task; ${Math.round(report.level * 100)}% percentile bootstrap intervals (${report.reps} reps), task-level unless marked`,
    ...report.warnings.map((warning) => `warning: ${warning}`),
    ...notes.map((note) => `note: ${note}`),
    ...reported.map((line) => `check: ${line}`),
    '',
    `mean accuracy (task mean, pass@1)    ${pct(meanAccuracy.estimate)}  task-level ${range(meanAccuracy.low, meanAccuracy.high, missing)}${exact(meanAccuracy)}`,
    `pooled share (${pooledShare.successes}/${count(pooledShare.episodes, 'sample')})`.padEnd(37) +
      `${pct(pooledShare.estimate)}  task-level ${range(pooledShare.taskLevel.low, pooledShare.taskLevel.high, missing)}${exact(pooledShare.taskLevel)}, episode-level ${range(pooledShare.episodeLevel.low, pooledShare.episodeLevel.high, '1 sample')}${episodeExact ? '**' : ''}${pooledShare.equalsMeanAccuracy ? '  (= task mean: every task has the same n)' : ''}`,
    `first-sample accuracy                ${cell(report.firstSampleAccuracy)}`,
    ...(selected === undefined ? [] : [selectedLine(selected, report.tasks, exact(selected))]),
    `clustered SE of the task mean ${se(meanAccuracy.clusteredSE)} vs episode SE of the pooled share ${pooledShare.episodeSE === null ? 'n/a: 1 sample' : pooledShare.episodeSE.toFixed(4)}`,
    `intraclass correlation: the chapter's rho (sigma_task^2 / (mu (1 - mu))) ${rhoText(report.chapterIntraclassCorrelation)}, one-way ANOVA rho ${rhoText(report.intraclassCorrelation)} (design effect from it ${report.designEffect?.toFixed(2) ?? 'n/a'})`,
    ...(anyExact
      ? [
          `* exact (Clopper-Pearson) over the ${report.tasks} tasks: every task scored alike, so resampled tasks have no spread and a bootstrap interval would have zero width`,
        ]
      : []),
    ...(episodeExact
      ? [
          `** exact (Clopper-Pearson) over the ${pooledShare.episodes} samples: every sample scored alike, so the episode bootstrap has no spread`,
        ]
      : []),
    '',
    `${'k'.padStart(4)}  ${'unbiased pass@k'.padEnd(26)}${'prefix pass@k'.padEnd(26)}${'all-k-correct (prefix)'.padEnd(26)}${'pass^k unbiased'.padEnd(26)}plug-in (biased)`,
  ];
  for (const k of Object.keys(report.passAtK)) {
    lines.push(
      `${k.padStart(4)}  ${cell(report.passAtK[k]).padEnd(26)}${cell(report.prefixPassAtK[k]).padEnd(26)}${cell(report.allCorrectAtK[k]).padEnd(26)}${cell(report.unbiasedAllCorrectAtK[k]).padEnd(26)}${plugIn(report.plugInPassAtK[k], report.pooledPlugInPassAtK[k])}`,
    );
  }
  lines.push(
    '',
    'checks:',
    ...report.checks.map(({ name, ok, detail }) => `  [${ok ? 'ok' : 'FAIL'}] ${name}: ${detail}`),
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Selected accuracy beside pass@n on the same candidates, and how far apart they are. */
function selectedLine(selected: SelectedAccuracy, tasks: number, mark: string): string {
  const lost =
    selected.lostCount === 0
      ? 'the selector found a correct candidate wherever one exists'
      : `the selector missed a correct candidate in ${selected.lostCount} of ${tasks} tasks (${selected.lost.join(', ')}${selected.lostCount > selected.lost.length ? ', ...' : ''})`;
  return (
    `selected accuracy (the picked answer) ${pct(selected.estimate)}  task-level ${range(selected.low, selected.high, `${tasks} task`)}${mark}; ` +
    `${pct(selected.coverage)} of tasks have a correct candidate (pass@n), ${(100 * selected.gap).toFixed(1)} points apart: ${lost}`
  );
}

/** The fields every `metrics --json` starts with: the file, how it was read, and its checks. */
const jsonHead = (path: string, file: ResultFile, seed: number, notes: string[], reported: unknown[]) => ({
  file: path,
  format: file.format,
  harness: file.harness ?? null,
  seed,
  notes,
  reported,
});

/** The ks `metrics` reports by default: 1, 5, 10 up to the fewest samples of a task, and that fewest. */
export const defaultKs = (fewest: number): number[] => [
  ...new Set([...[1, 5, 10].filter((k) => k <= fewest), fewest]),
];

async function run(args: CommandArgs): Promise<number> {
  const path = args.positionals[0] as string;
  const { level, reps, seed } = bootstrapFlags(args);
  const requestedKs = intListFlag(args, 'k', []);
  const run = stringFlag(args, 'run');
  const [file] = await readResultFiles(args, [path]);
  const grouped = groupBatch(file, run);
  const notes = [...(file.notes ?? []), ...grouped.issues.map((issue) => issue.message)];
  // Graded scores (eval/report/graded.ts) have no pass@k: the mean score instead, and a --k is refused.
  if (isGraded(file.rows)) {
    if (requestedKs.length > 0)
      throw new InputError(
        `${path}: --k: pass@k is not defined on graded scores (not all 0 or 1); metrics reports the mean score${file.format.startsWith('inspect') ? ' (--partial-as pass|fail reads P as 0/1)' : ''}`,
      );
    const { report, reported } = gradedMetrics(file, {
      ...(run === undefined ? {} : { run }),
      level,
      reps,
      rng: metricsStream(seed),
    });
    if (boolFlag(args, 'json')) printJson({ ...jsonHead(path, file, seed, notes, reported), ...report });
    else process.stdout.write(`${gradedLines(path, report, notes, reported).join('\n')}\n`);
    return 0;
  }
  const { tasks } = grouped;
  const minSamples = tasks.reduce((fewest, { outcomes }) => Math.min(fewest, outcomes.length), Infinity);
  const ks = requestedKs.length > 0 ? requestedKs : defaultKs(minSamples);
  const most = mostReps(tasks.length, ks.filter((k) => k <= minSamples).length);
  if (reps > most)
    throw new UsageError(
      most >= MIN_REPS
        ? `--reps ${reps} with ${tasks.length} tasks and ${ks.length} values of k is more bootstrap work than metrics does; use --reps ${most} or fewer`
        : `${tasks.length} tasks with ${ks.length} values of k are more bootstrap work than metrics does even at --reps ${MIN_REPS}, the least; ask for fewer values of k`,
    );
  const report = computeMetrics(tasks, { ks, level, reps, rng: metricsStream(seed) });
  const selected = selectedAccuracy(
    { path: file.path, rows: run === undefined ? file.rows : file.rows.filter((row) => row.run === run) },
    tasks,
    { level, reps, rng: new Rng(seed).fork('metrics/selected') },
  );
  if (grouped.multiTurn)
    notes.push(
      'rows carry `turn`: each sample is scored by its last turn (final answer); see tinyagent diagnose for the per-turn view',
    );
  const reported = recomputedReported(
    file,
    tasks.map(({ outcomes }) => mean(outcomes)),
  );
  if (boolFlag(args, 'json'))
    printJson({
      ...jsonHead(path, file, seed, notes, reported),
      ...report,
      // Only a file that marks a selector's pick has one: absent, not null, otherwise.
      ...(selected !== undefined ? { selectedAccuracy: selected } : {}),
    });
  else printReport(path, report, notes, reported.map(reportedLine), selected);
  return report.checks.every(({ ok }) => ok) ? 0 : 1;
}

export const command: Command = {
  name: 'metrics',
  summary:
    'Every pass-rate metric of a result file (pass@k, prefix pass@k, pass^k, accuracies) with task-level intervals and consistency checks',
  usage:
    'tinyagent metrics FILE [--k 1,5,10] [--level 0.95] [--seed S] [--reps R] [--run ID] [--format F] [--scorer NAME] [--partial-as pass|fail] [--metric NAME] [--filter NAME] [--json]   (FILE: result rows, HumanEval *_results.jsonl, Inspect .json/.eval, lm-evaluation-harness samples_*.jsonl)',
  positionals: { min: 1, max: 1 },
  flags: {
    k: { type: 'string', description: 'comma-separated k values', default: '1,5,10 (those <= n) and n' },
    ...bootstrapFlagSpecs('bootstrap'),
    run: { type: 'string', description: 'the run to use when the file holds several' },
    ...RESULT_FILE_FLAGS,
    json: { type: 'boolean', description: 'print JSON' },
  },
  run,
};
