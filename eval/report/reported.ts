import { mean, meanStandardError } from '../describe.ts';
import type { ReportedValue, ResultFile } from '../io/resultFile.ts';

/** A number a file reports about itself, with the one recomputed from its rows (null: one task has no standard error). */
export type CheckedValue = ReportedValue & { recomputed: number | null };

/**
 * Each value the file reports, with the number recomputed from its rows' task means for it: the
 * mean, or for a reported `stderr` the task-level standard error of that mean
 * (lm-evaluation-harness's mean_stderr over one outcome per document), null with one task.
 */
export function recomputedReported(file: ResultFile, taskMeans: number[]): CheckedValue[] {
  const stderr = taskMeans.length < 2 ? null : meanStandardError(taskMeans);
  return (file.reported ?? []).map((value) => ({
    ...value,
    recomputed: value.statistic === 'stderr' ? stderr : mean(taskMeans),
  }));
}

/**
 * A reported number set against the one recomputed from the rows (the same, or by how much it
 * differs), with the reason when the file holds only part of what the number was computed over.
 */
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
