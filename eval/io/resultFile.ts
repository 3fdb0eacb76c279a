import { readRegularBytes } from '../../lib/files.ts';
import { fileError, ResultFileError } from './errors.ts';
import { idOf, isObject, jsonLine, jsonShape, checkShape, mixedFormat, shownJson } from './formats/json.ts';
import {
  fileSize,
  isLfsPointer,
  lfsPointerError,
  MAX_TEXT_BYTES,
  MAX_TEXT_LABEL,
  defaultMaxBytes,
  formatBytes,
  readError,
  RESULT_FILE,
  RowBudget,
  type LineReader,
  type RowLimit,
  utf8Text,
} from './source.ts';

/**
 * The project's result files, one row per sample in JSONL or CSV (docs/METRICS.md, "Result files");
 * other tools' files are read into the same rows by `eval/io/formats/`. Structural problems
 * (duplicates, gaps, uneven samples) are listed by `groupOutcomes` and left to each command.
 */

export interface ResultRow {
  task: string;
  sample: number;
  passed: boolean;
  turn?: number;
  run?: string;
  /** 1-based line in the file (in an Inspect log, which has no lines per sample: the position in id and epoch order). */
  line: number;
  /**
   * A graded score (Inspect's "P" as 0.5, a numeric score, an lm-evaluation-harness f1), set on every
   * row of a file whose scores are not all 0/1; `passed` is then full credit (score 1).
   */
  score?: number;
  extra?: Record<string, unknown>;
}

/** The formats read: the project's rows (`jsonl`, `csv`) and other tools' files as they write them (`eval/io/formats/`). */
export type ResultFormat = 'jsonl' | 'csv' | 'humaneval' | 'inspect-json' | 'inspect-eval' | 'lm-eval';

/** A number the file itself reports (e.g. Inspect's `results.scores`), to set beside the recomputed one. */
export interface ReportedValue {
  /** e.g. `accuracy`. */
  name: string;
  value: number;
  /** Where in the file, e.g. `results.scores['match'].metrics.accuracy`. */
  where: string;
  /** The mean (the default) or the standard error of that mean (lm-evaluation-harness's `acc_stderr`). */
  statistic?: 'mean' | 'stderr';
  /** Set when the file holds fewer samples or documents than the value was computed over (the rows cannot give it). */
  coverage?: { held: number; counted: number; unit: 'samples' | 'documents'; where: string };
}

/**
 * The benchmark a file's rows belong to, as the file records it: task ids are each tool's own
 * numbering, so rows of two files pair by id only within one benchmark of one tool.
 */
export interface Benchmark {
  /** The tool whose ids the rows carry, when the format says (the project's rows: `tinyagent eval --out`). */
  tool?: 'TinyAgent' | 'HumanEval' | 'Inspect' | 'lm-evaluation-harness';
  /** The benchmark or task, when the file names it. */
  name?: string;
  /** Where the name was read, e.g. `eval.task`. */
  source?: string;
}

export interface ResultFile {
  path: string;
  format: ResultFormat;
  harness?: Record<string, unknown>;
  harnessSource?: 'header' | 'sidecar' | 'log';
  /** The other keys of a JSONL header line (e.g. `provenance`). */
  header?: Record<string, unknown>;
  rows: ResultRow[];
  /** What the reader of another tool's file chose, assumed or left out (each a sentence). */
  notes?: string[];
  /** Numbers the file reports about itself, to check against the rows. */
  reported?: ReportedValue[];
  /** The benchmark the rows belong to, where the file records it (`compare` refuses two that differ). */
  benchmark?: Benchmark;
  /** What the file records of its run, as text, for a list of files (`tinyagent view DIR`). */
  origin?: Origin;
}

/** A run's model, date and status as its file records them (each left out when it does not). */
export interface Origin {
  model?: string;
  /** ISO 8601 as recorded (an Inspect log's time zone kept). */
  date?: string;
  status?: string;
}

const KNOWN = new Set(['task', 'sample', 'passed', 'turn', 'run']);

function parsePassed(value: unknown, fail: RowsRead): boolean {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (text === true || text === 1 || text === 'true' || text === '1') return true;
  if (text === false || text === 0 || text === 'false' || text === '0') return false;
  return fail.at('passed', `expected true/false or 1/0, got ${shownJson(value)}`);
}

/**
 * A sample or turn index: decimal digits (CSV, or a JSON string) or a JSON integer, at most
 * 2^53 - 1. `0x1`, `1e0` and `1.0` are refused in text: they are not how an index is written.
 */
function parseIndex(field: string, value: unknown, fail: RowsRead): number {
  const number = typeof value === 'string' && /^\s*[0-9]+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0)
    return fail.at(
      field,
      `expected a non-negative decimal integer (at most 2^53 - 1), got ${shownJson(value)}`,
    );
  return number;
}

/** An id (task, run): a non-empty string, or a JSON integer read as its decimal digits. */
function parseId(field: string, value: unknown, fail: RowsRead): string {
  return (
    idOf(value) ??
    fail.at(
      field,
      typeof value === 'string' ? 'missing' : `expected a string (or an integer), got ${shownJson(value)}`,
    )
  );
}

const given = (value: unknown) => value !== undefined && value !== '' && value !== null;

/** The rows of the project's JSONL or CSV read so far, within their budget. */
class RowsRead {
  readonly rows: ResultRow[] = [];
  readonly budget: RowBudget;
  private line = 0;

  constructor(
    readonly path: string,
    limit: RowLimit,
  ) {
    this.budget = new RowBudget(path, limit);
  }

  /** Throws the ResultFileError naming the field of the row being read (one object per reader, not a closure per row). */
  at(field: string, detail: string): never {
    throw new ResultFileError(this.path, this.line, field, detail);
  }

  /**
   * Validates one record (from a JSON object or a CSV row) into a row, counted as its ids, or,
   * with other fields (extra), as what its line's parse took (`parsed`), which bounds theirs.
   */
  add(record: Record<string, unknown>, line: number, parsed: number): void {
    this.line = line;
    for (const field of ['task', 'sample', 'passed'])
      if (record[field] === undefined || record[field] === '') this.at(field, 'missing');
    const row: ResultRow = {
      task: parseId('task', record.task, this),
      sample: parseIndex('sample', record.sample, this),
      passed: parsePassed(record.passed, this),
      line,
    };
    if (given(record.turn)) row.turn = parseIndex('turn', record.turn, this);
    if (given(record.run)) row.run = parseId('run', record.run, this);
    // fromEntries keeps a key '__proto__' (JSON.parse makes it an own field) a field, not the prototype
    const extra = Object.fromEntries(Object.entries(record).filter(([key]) => !KNOWN.has(key)));
    if (Object.keys(extra).length > 0) row.extra = extra;
    this.budget.row(line, row.extra !== undefined ? parsed : row.task.length + (row.run?.length ?? 0));
    this.rows.push(row);
  }

  file(format: 'jsonl' | 'csv'): ResultFile {
    if (this.rows.length === 0) throw fileError(this.path, 'no result rows');
    return { path: this.path, format, rows: this.rows };
  }
}

/** The project's rows as JSON lines: an optional harness header line, then one row per line. */
export function rowsJsonlReader(path: string, limit: RowLimit = {}): LineReader<ResultFile> {
  const read = new RowsRead(path, limit);
  const cost = { bytes: 0 };
  let harness: Record<string, unknown> | undefined;
  let header: Record<string, unknown> | undefined;
  let firstDataLine: number | undefined;
  return {
    line(text, line) {
      const record = jsonLine(text, line, path, { strict: true, maxBytes: read.budget.maxBytes, cost });
      if (record === undefined) return;
      const other =
        !('task' in record) && !('harness' in record)
          ? mixedFormat(path, line, record, 'rows', firstDataLine ?? line)
          : undefined;
      if (other !== undefined) throw other;
      if ('harness' in record && !('task' in record)) {
        if (firstDataLine !== undefined || harness !== undefined)
          throw new ResultFileError(path, line, 'harness', 'the harness header must be the first line');
        if (!isObject(record.harness)) throw new ResultFileError(path, line, 'harness', 'expected an object');
        const { harness: found, ...rest } = record;
        harness = found;
        if (Object.keys(rest).length > 0) header = rest;
        return;
      }
      firstDataLine ??= line;
      read.add(record, line, cost.bytes);
    },
    end() {
      const file = read.file('jsonl');
      if (harness !== undefined) {
        file.harness = harness;
        file.harnessSource = 'header';
      }
      if (header !== undefined) file.header = header;
      return file;
    },
  };
}

/** Splits one CSV line (RFC 4180 quoting, no newlines inside quotes). */
export function splitCsvLine(line: string, path: string, lineNumber: number): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else field += char;
  }
  if (quoted) throw fileError(path, 'unterminated quoted field', lineNumber);
  fields.push(field);
  return fields;
}

/** The project's rows as CSV: a header naming at least task, sample and passed, then one row per line. */
export function rowsCsvReader(path: string, limit: RowLimit = {}): LineReader<ResultFile> {
  const read = new RowsRead(path, limit);
  let header: string[] | undefined;
  return {
    line(text, line) {
      if (text.trim() === '') return;
      if (header === undefined) {
        const names = splitCsvLine(text, path, line).map((name) => name.trim());
        const twice = names.find((name, j) => names.indexOf(name) !== j);
        if (twice !== undefined)
          throw new ResultFileError(
            path,
            line,
            twice === '' ? '(unnamed)' : twice,
            'appears twice in the CSV header; keep one column per name',
          );
        for (const required of ['task', 'sample', 'passed'])
          if (!names.includes(required))
            throw new ResultFileError(path, line, required, 'missing from the CSV header');
        header = names;
        return;
      }
      const values = splitCsvLine(text, path, line);
      if (values.length !== header.length)
        throw fileError(
          path,
          `expected ${header.length} fields (${header.join(',')}), got ${values.length}`,
          line,
        );
      const record: Record<string, unknown> = {};
      for (let j = 0; j < header.length; j++) record[header[j] as string] = (values[j] as string).trim();
      read.add(record, line, text.length);
    },
    end: () => read.file('csv'),
  };
}

/**
 * The bytes of a small file read whole (a sidecar harness, lm-evaluation-harness's results), or a
 * ResultFileError naming the path; undefined for a missing file when `optional`.
 */
export function readBytes(
  path: string,
  {
    optional = false,
    maxBytes = defaultMaxBytes(),
    expected = RESULT_FILE,
  }: { optional?: boolean; maxBytes?: number; expected?: string } = {},
): Buffer | undefined {
  const size = fileSize(path, { optional, expected });
  if (size === undefined) return undefined;
  if (size > MAX_TEXT_BYTES)
    throw fileError(path, `over ${MAX_TEXT_LABEL}, more than this reader reads whole`);
  if (size > maxBytes)
    throw fileError(
      path,
      `over ${formatBytes(maxBytes)}, more than a file may hold (--max-bytes N raises the limit)`,
    );
  let bytes: Buffer;
  try {
    bytes = readRegularBytes(path);
  } catch (error) {
    throw readError(path, error);
  }
  if (isLfsPointer(bytes)) throw lfsPointerError(path);
  return bytes;
}

/** Adds the harness of a sidecar `FILE.harness.json`, if there is one; one that differs from the file's is an error. */
export function addSidecarHarness(file: ResultFile, path: string, limit: RowLimit = {}): ResultFile {
  const sidecarPath = `${path}.harness.json`;
  const maxBytes = limit.maxBytes ?? defaultMaxBytes();
  const sidecarBytes = readBytes(sidecarPath, {
    optional: true,
    maxBytes,
    expected: 'a sidecar harness (a JSON object)',
  });
  if (sidecarBytes === undefined) return file;
  const sidecarText = utf8Text(sidecarBytes, sidecarPath).replace(/^\uFEFF/, '');
  const shape = jsonShape(sidecarText);
  checkShape(shape, sidecarText.length, { path: sidecarPath, line: 0, maxBytes });
  let sidecar: unknown;
  try {
    sidecar = JSON.parse(sidecarText);
  } catch (error) {
    throw fileError(sidecarPath, `not valid JSON (${(error as Error).message})`, 1);
  }
  if (!isObject(sidecar)) throw fileError(sidecarPath, 'expected a JSON object', 1);
  if (shape.duplicate !== undefined)
    throw new ResultFileError(sidecarPath, 0, shape.duplicate, 'appears twice in this object; keep one');
  const harness = isObject(sidecar.harness) ? sidecar.harness : sidecar;
  if (file.harness !== undefined && JSON.stringify(file.harness) !== JSON.stringify(harness))
    throw new ResultFileError(
      sidecarPath,
      1,
      'harness',
      `differs from the harness ${file.harnessSource === 'log' ? 'recorded in' : 'header of'} ${path}; keep one of them`,
    );
  file.harness = harness;
  file.harnessSource ??= 'sidecar';
  return file;
}
