import { basename, extname } from 'node:path';
import { fileError, ResultFileError } from '../errors.ts';
import { isObject, parsePythonJson, recordKind, type RecordKind } from './json.ts';
import { readBytes, splitCsvLine } from '../resultFile.ts';
import { bufferAccess, isGzip, utf8Text } from '../source.ts';
import { isZip, zipEntries } from '../zip.ts';
import { clip, DECIMAL_NUMBER } from '../../../lib/text.ts';
import { getOrAdd } from '../../../lib/collections.ts';

/**
 * Runs x tasks score files, the layout found from the content: rliable's (a runs x tasks matrix per
 * algorithm: JSON `{algorithm: [[score per task] per run]}`, or CSV with a line per run and a column
 * per task), or one row per run and task (`algorithm`, optional, `run`, `task`, `score`: CSV, JSON
 * lines or a JSON array). A file without an algorithm is one, named by the file (`tuned.csv` is `tuned`).
 */

/** One algorithm's scores: `scores[run][task]`, runs and tasks in order of first appearance. */
export interface AlgorithmScores {
  algorithm: string;
  path: string;
  runs: string[];
  tasks: string[];
  scores: number[][];
}

interface ScoreRow {
  algorithm: string | undefined;
  run: string;
  task: string;
  score: number;
  line: number;
}

/** Refuses another kind of file in one line: what it is, what aggregate reads, and what to do instead. */
const notScores = (path: string, what: string, instead: string) =>
  fileError(
    path,
    `${what}, not a score file: aggregate reads scores by run and task, in CSV or JSON (docs/METRICS.md); ${instead}`,
  );

const PYTHON_DATA =
  'write the matrices as text: json.dump({name: scores.tolist()}, f) or np.savetxt(FILE, scores, delimiter=",")';

/** A NumPy .npy file's first six bytes (NEP 1). */
const NPY = Buffer.from('\x93NUMPY', 'latin1');

/**
 * Refuses, by its first bytes, a file that is no text at all: an Inspect `.eval` log or another
 * zip archive (a NumPy `.npz`), a NumPy `.npy` array, a Python pickle (rliable's own score
 * files), a gzip; each in one line saying what it is and what aggregate reads.
 */
function refuseBinary(bytes: Buffer, path: string): void {
  if (isZip(bytes)) {
    const names = zipEntries(bufferAccess(bytes), path).map(({ name }) => name);
    if (names.includes('header.json') || names.includes('_journal/start.json'))
      throw notScores(path, 'an Inspect log (.eval)', 'tinyagent metrics reads it');
    if (names.length > 0 && names.every((name) => name.endsWith('.npy')))
      throw notScores(path, 'a NumPy .npz archive', PYTHON_DATA);
    throw notScores(path, 'a zip archive', 'unpack it first');
  }
  if (bytes.subarray(0, NPY.length).equals(NPY)) throw notScores(path, 'a NumPy .npy array', PYTHON_DATA);
  // pickle protocols 2 to 5 begin with PROTO (0x80) and the protocol number
  if (bytes[0] === 0x80 && bytes[1]! >= 2 && bytes[1]! <= 5)
    throw notScores(
      path,
      'a Python pickle',
      `aggregate does not unpickle (it would run code); ${PYTHON_DATA}`,
    );
  if (isGzip(bytes)) throw notScores(path, 'a gzip file', 'gunzip it first');
}

/** What another tool's record found first in a JSON file is (`recordKind`), refused in one line. */
const OTHER_RECORDS: Record<RecordKind, string> = {
  rows: 'result rows (task, sample, passed)',
  humaneval: 'HumanEval results (task_id, passed)',
  'lm-eval': 'lm-evaluation-harness samples (doc_id)',
  inspect: 'an Inspect log (.json)',
};

const readByMetrics = (path: string, kind: RecordKind) =>
  notScores(path, OTHER_RECORDS[kind], `tinyagent metrics reads ${kind === 'inspect' ? 'it' : 'them'}`);

function refuseOtherRecord(record: Record<string, unknown>, path: string): void {
  const kind = recordKind(record);
  if (kind === 'rows' && !('passed' in record) && !('harness' in record)) return;
  if (kind !== undefined) throw readByMetrics(path, kind);
}

function decimalScore(text: string, path: string, line: number, field: string): number {
  if (!DECIMAL_NUMBER.test(text) || !Number.isFinite(Number(text)))
    throw new ResultFileError(path, line, field, `'${clip(text)}' is not a finite decimal number`);
  return Number(text);
}

/** Reads the CSV line `values` (at `line`) as score rows. */
type CsvLayout = (values: string[], line: number) => ScoreRow[];

/** The long layout: a header naming run, task, score (and optionally algorithm); one score a line. */
function longCsv(header: string[], path: string, line: number): CsvLayout {
  if (header.includes('passed') && !header.includes('score')) throw readByMetrics(path, 'rows');
  for (const required of ['run', 'task', 'score'])
    if (!header.includes(required))
      throw new ResultFileError(path, line, required, 'missing from the CSV header (run, task, score)');
  return (values, at) => {
    const record = Object.fromEntries(header.map((name, j) => [name, values[j]!]));
    return [checkedRow(record, decimalScore(record['score']!, path, at, 'score'), path, at)];
  };
}

/**
 * rliable's layout, one line per run and one column per task: a header naming the tasks (and
 * optionally `algorithm` and `run`; an unnamed first column, as pandas writes its index, is the
 * run), or no header (`np.savetxt(FILE, scores, delimiter=',')`), the tasks then named by their
 * column from 0. A run without a name is named by its place among its algorithm's lines, from 0.
 */
function wideCsv(header: string[] | undefined, path: string, line: number): CsvLayout {
  const names = header ?? [];
  const runColumn = names[0] === '' ? 0 : names.indexOf('run');
  const algorithmColumn = names.indexOf('algorithm');
  const taskColumns =
    header === undefined
      ? undefined
      : names.flatMap((name, j) => (j === runColumn || j === algorithmColumn ? [] : [j]));
  if (taskColumns?.length === 0)
    throw fileError(
      path,
      'no task columns in the CSV header (run, task, score, or one column per task)',
      line,
    );
  const runsSoFar = new Map<string | undefined, number>();
  return (values, at) => {
    const algorithm = algorithmColumn < 0 ? undefined : values[algorithmColumn]!;
    const place = runsSoFar.get(algorithm) ?? 0;
    runsSoFar.set(algorithm, place + 1);
    const run = runColumn < 0 ? String(place) : values[runColumn]!;
    return (taskColumns ?? values.map((_, j) => j)).map((j) => {
      const task = header === undefined ? String(j) : names[j]!;
      const score = decimalScore(values[j]!, path, at, header === undefined ? `column ${j + 1}` : task);
      return checkedRow({ algorithm, run, task }, score, path, at);
    });
  };
}

function csvRows(text: string, path: string): ScoreRow[] {
  const rows: ScoreRow[] = [];
  let width = 0;
  let headerNote = '';
  let layout: CsvLayout | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    const values = splitCsvLine(raw, path, line).map((value) => value.trim());
    if (layout === undefined) {
      width = values.length;
      // numbers are a matrix without a header, but for 0, 1, 2, ...: the tasks' names as pandas
      // writes a numpy array's columns (to_csv(index=False))
      const numbers = values.every((value) => DECIMAL_NUMBER.test(value));
      if (numbers && !values.every((value, j) => value === String(j)))
        layout = wideCsv(undefined, path, line);
      else {
        const twice = values.find((name, j) => values.indexOf(name) !== j);
        if (twice !== undefined)
          throw new ResultFileError(path, line, twice, 'appears twice in the CSV header');
        // a header naming task or score is the long layout, and is checked as one
        const long = values.includes('task') || values.includes('score');
        layout = (long ? longCsv : wideCsv)(values, path, line);
        headerNote = ` (${values.join(',')})`;
        return;
      }
    }
    if (values.length !== width)
      throw fileError(path, `expected ${width} fields${clip(headerNote, 80)}, got ${values.length}`, line);
    for (const row of layout(values, line)) rows.push(row);
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
  if (!isObject(value)) throw fileError(path, 'not a JSON object with run, task and score', line);
  const score = value['score'];
  if (score === undefined) throw new ResultFileError(path, line, 'score', 'missing');
  if (typeof score !== 'number' || !Number.isFinite(score))
    throw new ResultFileError(path, line, 'score', `${clip(JSON.stringify(score))} is not a finite number`);
  return checkedRow(value, score, path, line);
}

/**
 * One algorithm's runs x tasks matrix as rliable takes it (`scores[run][task]`, a list per run):
 * rows named by their place, runs and tasks from 0.
 */
function matrixRows(matrix: unknown, algorithm: string | undefined, path: string): ScoreRow[] {
  const where = algorithm === undefined ? '' : `algorithm '${clip(algorithm)}': `;
  const expected = `${where}expected a runs x tasks matrix (a list per run of one score per task)`;
  if (!Array.isArray(matrix) || matrix.length === 0 || !matrix.every((run) => Array.isArray(run)))
    throw fileError(path, expected);
  const tasks = (matrix[0] as unknown[]).length;
  return matrix.flatMap((run: unknown[], i) => {
    if (run.length !== tasks || tasks === 0)
      throw fileError(path, `${where}run ${i} has ${run.length} scores, run 0 has ${tasks}`);
    return run.map((score, task) => {
      if (Array.isArray(score))
        throw fileError(
          path,
          `${where}run ${i}, task ${task}: a list, not a score: aggregate reads runs x tasks matrices (select one frame of a runs x tasks x frames array)`,
        );
      if (typeof score !== 'number' || !Number.isFinite(score))
        throw fileError(
          path,
          `${where}run ${i}, task ${task}: ${score === null ? 'null (NaN or infinity in Python)' : clip(JSON.stringify(score))} is not a finite number`,
        );
      return { algorithm, run: String(i), task: String(task), score, line: 0 };
    });
  });
}

function jsonRows(text: string, path: string): ScoreRow[] {
  let whole: unknown;
  try {
    whole = parsePythonJson(text);
  } catch {
    // not one JSON document: JSON lines, read one at a time below
  }
  if (isObject(whole) && !('score' in whole)) {
    refuseOtherRecord(whole, path);
    const notMatrix = Object.keys(whole).find((key) => !Array.isArray(whole[key]));
    if (notMatrix !== undefined)
      throw fileError(
        path,
        `a JSON object whose '${clip(notMatrix)}' is not a runs x tasks matrix: expected {"algorithm": [[score per task] per run]} (rliable's score dict) or {"run", "task", "score"} rows`,
      );
    return Object.entries(whole).flatMap(([algorithm, matrix]) => matrixRows(matrix, algorithm, path));
  }
  if (text.trimStart().startsWith('[')) {
    if (whole === undefined) throw fileError(path, 'not valid JSON (a JSON array of {run, task, score})');
    if (!Array.isArray(whole)) throw fileError(path, 'not a JSON array of {run, task, score}');
    if (Array.isArray(whole[0])) return matrixRows(whole, undefined, path);
    // A JSON array has no lines to name: its elements are counted from 1 instead.
    return whole.map((value, i) => jsonRow(value, `${path}: element ${i + 1}`, 0));
  }
  const rows: ScoreRow[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw fileError(path, 'not valid JSON (one {run, task, score} object per line)', i + 1);
    }
    if (rows.length === 0 && isObject(value) && !('score' in value)) refuseOtherRecord(value, path);
    rows.push(jsonRow(value, path, i + 1));
  });
  return rows;
}

/** The rows of one score file, by content: a first `{` or `[` is JSON, anything else CSV. */
function parseScoreRows(text: string, path: string): ScoreRow[] {
  const body = text.replace(/^\uFEFF/, '');
  const first = body.trimStart()[0];
  const rows = first === '{' || first === '[' ? jsonRows(body, path) : csvRows(body, path);
  if (rows.length === 0) throw fileError(path, 'no score rows');
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
      throw fileError(
        path,
        `algorithm '${clip(algorithm)}': run '${clip(row.run)}' scores task '${clip(row.task)}' twice (also at line ${earlier.line})`,
        row.line,
      );
    cells.set(key, row);
  }
  const scores = runs.map((run) =>
    tasks.map((task) => {
      const cell = cells.get(JSON.stringify([run, task]));
      if (cell === undefined) {
        const first = rows.find((row) => row.run === run)!;
        throw fileError(
          path,
          `algorithm '${clip(algorithm)}': run '${clip(run)}' has no score for task '${clip(task)}' (every run needs every task)`,
          first.line,
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
    const bytes = readBytes(path, {
      expected: 'a score file (give the path of a .csv, .json or .jsonl file of scores)',
    })!;
    refuseBinary(bytes, path);
    const rows = parseScoreRows(utf8Text(bytes, path), path);
    const groups = new Map<string, ScoreRow[]>();
    const fileName = basename(path, extname(path));
    for (const row of rows) getOrAdd(groups, row.algorithm ?? fileName, () => []).push(row);
    for (const [name, group] of groups) {
      const twice = algorithms.find((other) => other.algorithm === name);
      if (twice !== undefined)
        throw fileError(
          path,
          `algorithm '${clip(name)}' is also in ${twice.path}; give each algorithm once`,
          group[0]!.line,
        );
      algorithms.push(toMatrix(name, path, group));
    }
  }
  const [first, ...rest] = algorithms;
  for (const other of rest) {
    const missing = first!.tasks.find((task) => !other.tasks.includes(task));
    const extra = other.tasks.find((task) => !first!.tasks.includes(task));
    if (missing !== undefined || extra !== undefined)
      throw fileError(
        other.path,
        missing !== undefined
          ? `algorithm '${clip(other.algorithm)}' has no scores for task '${clip(missing)}', which '${clip(first!.algorithm)}' (${first!.path}) has`
          : `algorithm '${clip(other.algorithm)}' has task '${clip(extra!)}', which '${clip(first!.algorithm)}' (${first!.path}) has not`,
      );
    const columns = first!.tasks.map((task) => other.tasks.indexOf(task));
    other.scores = other.scores.map((row) => columns.map((j) => row[j]!));
    other.tasks = first!.tasks;
  }
  return algorithms;
}
