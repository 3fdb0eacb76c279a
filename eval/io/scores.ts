import { fileError } from './errors.ts';
import type { ResultFile, ResultRow } from './resultFile.ts';
import { getOrAdd } from '../../lib/collections.ts';

/** Whether the rows carry graded scores (a reader sets `score` on every row of such a file). */
export const isGraded = (rows: readonly ResultRow[]): boolean => rows.some((row) => row.score !== undefined);

/** Drops the scores of rows that are all 0/1 (pass/fail rows carry none); how many are graded. */
export function gradedCount(rows: ResultRow[]): number {
  const graded = rows.filter((row) => row.score !== undefined && row.score !== 0 && row.score !== 1).length;
  if (graded === 0) for (const row of rows) delete row.score;
  return graded;
}

/**
 * The rows' scores by task, tasks in order of first appearance (a row without `score`, 0/1,
 * counts as its `passed`); the rows of `run` only when given.
 */
export function groupScores(rows: readonly ResultRow[], run?: string) {
  const byTask = new Map<string, number[]>();
  for (const row of rows) {
    if (run !== undefined && row.run !== run) continue;
    getOrAdd(byTask, row.task, () => []).push(row.score ?? (row.passed ? 1 : 0));
  }
  return [...byTask].map(([task, scores]) => ({ task, scores }));
}

/**
 * Refuses a file of graded scores for a statistic of 0/1 outcomes (pass@k, a paired difference of
 * pass rates, the pass@k diagnosis), in one line saying what to use instead.
 * @throws ResultFileError when the rows carry graded scores.
 */
export function refuseGraded(file: ResultFile, what: string): void {
  if (!isGraded(file.rows)) return;
  const inspect = file.format === 'inspect-json' || file.format === 'inspect-eval';
  throw fileError(
    file.path,
    `graded scores (not all 0 or 1): ${what} counts 0/1 outcomes; tinyagent metrics reports the mean score with its task-level interval${inspect ? ' (--partial-as pass|fail reads P as 0/1)' : ''}`,
  );
}
