import { count } from '../../lib/text.ts';
import { mean } from '../describe.ts';
import type { ResultFile } from '../io/resultFile.ts';
import { groupScores } from '../io/scores.ts';
import type { RandomSource } from '../random.ts';
import { meanScoreEstimate } from './metrics.ts';
import { recomputedReported, reportedLine, type CheckedValue } from './reported.ts';

const PASS_AT_K_NOTE =
  'not defined: the scores are graded (not all 0 or 1) and pass@k counts 0/1 outcomes; the mean score is the number';

/** `tinyagent metrics` of a file of graded scores. */
export interface GradedReport {
  graded: true;
  tasks: number;
  samplesPerTask: { min: number; max: number };
  level: number;
  reps: number;
  /** The mean over tasks of each task's mean score, with its task-level interval and SE (null below 2 tasks). */
  meanScore: {
    estimate: number;
    low: number | null;
    high: number | null;
    interval: 'task-level';
    standardError: number | null;
  };
  passAtK: null;
  passAtKNote: string;
}

/**
 * The report of a file of graded scores (Inspect's partial credit, numeric scores, an
 * lm-evaluation-harness metric such as f1): pass@k counts 0/1 outcomes and is not defined on
 * them, so the number is the mean score over tasks (each task's mean, then their mean, as
 * Inspect's and lm-evaluation-harness's mean do), with its task-level bootstrap interval and
 * standard error (`meanScoreEstimate`); with the numbers the file reports, recomputed from the
 * rows of `run` (all rows without one).
 */
export function gradedMetrics(
  file: ResultFile,
  { run, level, reps, rng }: { run?: string; level: number; reps: number; rng: RandomSource },
): { report: GradedReport; reported: CheckedValue[] } {
  const tasks = groupScores(file.rows, run);
  const taskMeans = tasks.map(({ scores }) => mean(scores));
  const { estimate, low, high, standardError } = meanScoreEstimate(taskMeans, { reps, level, rng });
  const sizes = tasks.map(({ scores }) => scores.length);
  const report: GradedReport = {
    graded: true,
    tasks: tasks.length,
    samplesPerTask: { min: Math.min(...sizes), max: Math.max(...sizes) },
    level,
    reps,
    meanScore: { estimate, low, high, interval: 'task-level', standardError },
    passAtK: null,
    passAtKNote: PASS_AT_K_NOTE,
  };
  return { report, reported: recomputedReported(file, taskMeans) };
}

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
  return [
    `${path}: ${count(report.tasks, 'task')}, ${fewest === most ? fewest : `${fewest}-${most}`} ${most === 1 ? 'sample' : 'samples'} per task; graded scores; ${Math.round(report.level * 100)}% percentile bootstrap interval (${report.reps} reps), task-level`,
    ...notes.map((note) => `note: ${note}`),
    ...reported.map((value) => `check: ${reportedLine(value)}`),
    '',
    `mean score (task mean)               ${estimate.toFixed(4)}  task-level ${low === null || high === null ? `n/a: ${missing}` : `[${low.toFixed(4)}, ${high.toFixed(4)}]`}, SE ${standardError === null ? `n/a: ${missing}` : standardError.toFixed(4)}`,
    `pass@k                               ${report.passAtKNote}`,
  ];
}
