import { count } from '../../lib/text.ts';
import { mean, meanStandardError } from '../describe.ts';
import type { ResultFile, ReportedValue } from '../io/resultFile.ts';
import { groupScores } from '../io/scores.ts';
import type { RandomSource } from '../random.ts';
import { meanScoreEstimate } from './metrics.ts';

const PASS_AT_K_NOTE =
  'not defined: the scores are graded (not all 0 or 1) and pass@k counts 0/1 outcomes; the mean score is the number';

/**
 * The report of a file of graded scores (Inspect's partial credit, an lm-evaluation-harness metric
 * such as f1), on which pass@k is not defined: the mean score over tasks (`meanScoreEstimate`), and
 * the numbers the file reports recomputed from the rows of `run` (all rows without one).
 */
export function gradedMetrics(
  file: ResultFile,
  { run, level, reps, rng }: { run?: string; level: number; reps: number; rng: RandomSource },
) {
  const tasks = groupScores(file.rows, run);
  const taskMeans = tasks.map(({ scores }) => mean(scores));
  const { estimate, low, high, standardError } = meanScoreEstimate(taskMeans, { reps, level, rng });
  const sizes = tasks.map(({ scores }) => scores.length);
  const report = {
    graded: true as const,
    tasks: tasks.length,
    samplesPerTask: { min: Math.min(...sizes), max: Math.max(...sizes) },
    level,
    reps,
    // the mean over tasks of each task's mean score, with its task-level interval and SE (null below
    // 2 tasks; the interval null too where every task has the same mean)
    meanScore: { estimate, low, high, interval: 'task-level' as const, standardError },
    passAtK: null,
    passAtKNote: PASS_AT_K_NOTE,
  };
  return { report, reported: recomputedReported(file, taskMeans) };
}

/** `tinyagent metrics` of a file of graded scores. */
export type GradedReport = ReturnType<typeof gradedMetrics>['report'];

/** `report` as `tinyagent metrics` prints it, for the file `path`, after its notes and checks of reported numbers. */
export function gradedLines(
  path: string,
  report: GradedReport,
  notes: readonly string[],
  reported: readonly CheckedValue[],
): string[] {
  const { min: fewest, max: most } = report.samplesPerTask;
  const { estimate, low, high, standardError } = report.meanScore;
  const missing = `${report.tasks} task`;
  // Two or more tasks without an interval: every task has the same mean score (`meanScoreEstimate`).
  const noInterval =
    report.tasks < 2 ? missing : `no spread, every task's mean score is ${estimate.toFixed(4)}`;
  return [
    `${path}: ${count(report.tasks, 'task')}, ${fewest === most ? fewest : `${fewest}-${most}`} ${most === 1 ? 'sample' : 'samples'} per task; graded scores; ${Math.round(report.level * 100)}% percentile bootstrap interval (${report.reps} reps), task-level`,
    ...notes.map((note) => `note: ${note}`),
    ...reported.map((value) => `check: ${reportedLine(value)}`),
    '',
    `mean score (task mean)               ${estimate.toFixed(4)}  task-level ${low === null || high === null ? `n/a: ${noInterval}` : `[${low.toFixed(4)}, ${high.toFixed(4)}]`}, SE ${standardError === null ? `n/a: ${missing}` : standardError.toFixed(4)}`,
    `pass@k                               ${report.passAtKNote}`,
  ];
}

/** A number a file reports about itself, with the one recomputed from its rows (null: one task has no standard error). */
export type CheckedValue = ReportedValue & { recomputed: number | null };

/** Each value the file reports, with the mean of its rows' task means, or for a `stderr` their SE (lm-evaluation-harness's mean_stderr). */
export function recomputedReported(file: ResultFile, taskMeans: number[]): CheckedValue[] {
  const stderr = taskMeans.length < 2 ? null : meanStandardError(taskMeans);
  return (file.reported ?? []).map((value) => ({
    ...value,
    recomputed: value.statistic === 'stderr' ? stderr : mean(taskMeans),
  }));
}

/** A reported number against the recomputed one, and why when the file holds only part of what it counted. */
export function reportedLine(value: CheckedValue): string {
  const { name, where, coverage, recomputed } = value;
  if (recomputed === null)
    return `reported ${name} ${value.value.toFixed(4)} (${where}); not recomputed: one task has no standard error`;
  const difference = recomputed - value.value;
  const verdict =
    Math.abs(difference) < 1e-9
      ? 'the same'
      : `differs by ${difference >= 0 ? '+' : ''}${difference.toFixed(4)}`;
  const part =
    coverage === undefined
      ? ''
      : `: the ${coverage.unit === 'samples' ? 'log' : 'file'} holds ${coverage.held} of the ${coverage.counted} ${coverage.unit} its results count (${coverage.where}), so the reported value is over ${coverage.unit} the rows do not have`;
  return `reported ${name} ${value.value.toFixed(4)} (${where}); recomputed from the rows: ${recomputed.toFixed(4)}, ${verdict}${part}`;
}
