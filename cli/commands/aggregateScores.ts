import { basename, extname } from 'node:path';
import { ResultFileError } from '../../eval/io/errors.ts';
import { splitCsvLine } from '../../eval/io/resultFile.ts';
import { readRegularFile } from '../../lib/files.ts';
import { clip } from '../../lib/text.ts';

/**
 * Reading runs x tasks score files, as rliable takes its score matrices: one row per run and
 * task (`algorithm`, optional, `run`, `task`, `score`), in CSV with a header, JSON lines, or a
 * JSON array of such objects. A file without an algorithm column is one algorithm, named by the
 * file (`tuned.csv` is `tuned`).
 */

/** One algorithm's scores: `scores[run][task]`, runs and tasks in order of first appearance. */
export interface AlgorithmScores {
  algorithm: string;
  path: string;
  runs: string[];
  tasks: string[];
  scores: number[][];
}

/** One row as read, with where it came from. */
interface ScoreRow {
  algorithm: string | undefined;
  run: string;
  task: string;
  score: number;
  line: number;
}

const DECIMAL_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function csvRows(text: string, path: string): ScoreRow[] {
  const rows: ScoreRow[] = [];
  let header: string[] | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    const values = splitCsvLine(raw, path, line).map((value) => value.trim());
    if (header === undefined) {
      const twice = values.find((name, j) => values.indexOf(name) !== j);
      if (twice !== undefined)
        throw new ResultFileError(path, line, twice, 'appears twice in the CSV header');
      for (const required of ['run', 'task', 'score'])
        if (!values.includes(required))
          throw new ResultFileError(path, line, required, 'missing from the CSV header (run, task, score)');
      header = values;
      return;
    }
    if (values.length !== header.length)
      throw new ResultFileError(
        path,
        line,
        undefined,
        `expected ${header.length} fields (${header.join(',')}), got ${values.length}`,
      );
    const record = Object.fromEntries(header.map((name, j) => [name, values[j]!]));
    const score = record['score']!;
    if (!DECIMAL_NUMBER.test(score) || !Number.isFinite(Number(score)))
      throw new ResultFileError(path, line, 'score', `'${clip(score)}' is not a finite decimal number`);
    rows.push(checkedRow(record, Number(score), path, line));
  });
  return rows;
}

function checkedRow(record: Record<string, unknown>, score: number, path: string, line: number): ScoreRow {
  const text = (field: string): string | undefined => {
    const value = record[field];
    if (value === undefined) return undefined;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value !== 'string' || value.trim() === '')
      throw new ResultFileError(path, line, field, 'must be a non-empty string or a number');
    return value.trim();
  };
  const run = text('run');
  const task = text('task');
  if (run === undefined) throw new ResultFileError(path, line, 'run', 'missing');
  if (task === undefined) throw new ResultFileError(path, line, 'task', 'missing');
  return { algorithm: text('algorithm'), run, task, score, line };
}

function jsonRow(value: unknown, path: string, line: number): ScoreRow {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ResultFileError(path, line, undefined, 'not a JSON object with run, task and score');
  const record = value as Record<string, unknown>;
  const score = record['score'];
  if (score === undefined) throw new ResultFileError(path, line, 'score', 'missing');
  if (typeof score !== 'number' || !Number.isFinite(score))
    throw new ResultFileError(path, line, 'score', `${clip(JSON.stringify(score))} is not a finite number`);
  return checkedRow(record, score, path, line);
}

function jsonRows(text: string, path: string): ScoreRow[] {
  if (text.trimStart().startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ResultFileError(path, 0, undefined, 'not valid JSON (a JSON array of {run, task, score})');
    }
    if (!Array.isArray(parsed))
      throw new ResultFileError(path, 0, undefined, 'not a JSON array of {run, task, score}');
    // A JSON array has no lines to name: its elements are counted from 1 instead.
    return parsed.map((value, i) => jsonRow(value, `${path}: element ${i + 1}`, 0));
  }
  const rows: ScoreRow[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new ResultFileError(
        path,
        i + 1,
        undefined,
        'not valid JSON (one {run, task, score} object per line)',
      );
    }
    rows.push(jsonRow(value, path, i + 1));
  });
  return rows;
}

/** The rows of one score file, by content: a first `{` or `[` is JSON, anything else CSV. */
export function parseScoreRows(text: string, path: string): ScoreRow[] {
  const body = text.replace(/^\uFEFF/, '');
  const first = body.trimStart()[0];
  const rows = first === '{' || first === '[' ? jsonRows(body, path) : csvRows(body, path);
  if (rows.length === 0) throw new ResultFileError(path, 0, undefined, 'no score rows');
  const named = rows.filter((row) => row.algorithm !== undefined).length;
  if (named !== 0 && named !== rows.length) {
    const row = rows.find((candidate) => candidate.algorithm === undefined)!;
    throw new ResultFileError(path, row.line, 'algorithm', 'missing (other rows of the file name one)');
  }
  return rows;
}

/** An algorithm's rows as a runs x tasks matrix: every run must score every task, once. */
function toMatrix(algorithm: string, path: string, rows: readonly ScoreRow[]): AlgorithmScores {
  const runs = [...new Set(rows.map((row) => row.run))];
  const tasks = [...new Set(rows.map((row) => row.task))];
  const cells = new Map<string, ScoreRow>();
  for (const row of rows) {
    const key = JSON.stringify([row.run, row.task]);
    const earlier = cells.get(key);
    if (earlier !== undefined)
      throw new ResultFileError(
        path,
        row.line,
        undefined,
        `algorithm '${clip(algorithm)}': run '${clip(row.run)}' scores task '${clip(row.task)}' twice (also at line ${earlier.line})`,
      );
    cells.set(key, row);
  }
  const scores = runs.map((run) =>
    tasks.map((task) => {
      const cell = cells.get(JSON.stringify([run, task]));
      if (cell === undefined) {
        const first = rows.find((row) => row.run === run)!;
        throw new ResultFileError(
          path,
          first.line,
          undefined,
          `algorithm '${clip(algorithm)}': run '${clip(run)}' has no score for task '${clip(task)}' (every run needs every task)`,
        );
      }
      return cell.score;
    }),
  );
  return { algorithm, path, runs, tasks, scores };
}

/**
 * The algorithms of the given files, side by side: each with the same tasks (so that their
 * aggregates and probabilities of improvement are over one benchmark), in the same task order.
 * @throws ResultFileError (one line: file, line, problem) on a malformed row, a missing or repeated
 * cell, an algorithm given twice, or algorithms with different tasks.
 */
export function readScoreFiles(paths: readonly string[]): AlgorithmScores[] {
  const algorithms: AlgorithmScores[] = [];
  for (const path of paths) {
    const rows = parseScoreRows(readRegularFile(path, 'score file'), path);
    const groups = new Map<string, ScoreRow[]>();
    const fileName = basename(path, extname(path));
    for (const row of rows) {
      const name = row.algorithm ?? fileName;
      let group = groups.get(name);
      if (group === undefined) groups.set(name, (group = []));
      group.push(row);
    }
    for (const [name, group] of groups) {
      const twice = algorithms.find((other) => other.algorithm === name);
      if (twice !== undefined)
        throw new ResultFileError(
          path,
          group[0]!.line,
          undefined,
          `algorithm '${clip(name)}' is also in ${twice.path}; give each algorithm once`,
        );
      algorithms.push(toMatrix(name, path, group));
    }
  }
  const [first, ...rest] = algorithms;
  for (const other of rest) {
    const missing = first!.tasks.find((task) => !other.tasks.includes(task));
    const extra = other.tasks.find((task) => !first!.tasks.includes(task));
    if (missing !== undefined || extra !== undefined)
      throw new ResultFileError(
        other.path,
        0,
        undefined,
        missing !== undefined
          ? `algorithm '${clip(other.algorithm)}' has no scores for task '${clip(missing)}', which '${clip(first!.algorithm)}' (${first!.path}) has`
          : `algorithm '${clip(other.algorithm)}' has task '${clip(extra!)}', which '${clip(first!.algorithm)}' (${first!.path}) has not`,
      );
    const order = other.tasks.map((task) => first!.tasks.indexOf(task));
    other.scores = other.scores.map((row) => {
      const reordered = new Array<number>(row.length);
      order.forEach((slot, i) => (reordered[slot] = row[i]!));
      return reordered;
    });
    other.tasks = first!.tasks;
  }
  return algorithms;
}
