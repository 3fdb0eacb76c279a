import { groupOutcomes, type TaskOutcomes } from './outcomes.ts';
import { readResultFile, ResultFileError, type ResultFile } from './resultFile.ts';

/**
 * Reads a result file for a statistics command (the same as readResultFile): every problem,
 * from a missing file or a folder to a malformed row, is one ResultFileError naming the path.
 */
export function readResults(path: string): ResultFile {
  return readResultFile(path);
}

/**
 * One batch of a file as a task x sample matrix (tasks in order of first appearance). Duplicated
 * (task, sample[, turn]) rows and several runs without a choice are errors here, since any number
 * computed from them would silently pick one of the rows; `diagnose` shows them as evidence instead.
 * @throws ResultFileError on duplicates, several runs without `run`, or no rows for `run`.
 */
export function batchOf(file: ResultFile, run: string | undefined): TaskOutcomes[] {
  const grouped = groupOutcomes(file.rows, run === undefined ? {} : { run });
  for (const issue of grouped.issues) {
    if (issue.kind === 'duplicate') throw new ResultFileError(file.path, 0, undefined, `${issue.message} (each task and sample index must appear once; try tinyagent diagnose)`);
    if (issue.kind === 'multiple-runs') throw new ResultFileError(file.path, 0, undefined, `${issue.message} with --run`);
  }
  if (run !== undefined && grouped.tasks.length === 0) throw new ResultFileError(file.path, 0, undefined, `no rows with run '${run}' (have ${grouped.runs.join(', ') || 'none'})`);
  return grouped.tasks;
}
