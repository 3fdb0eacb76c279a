import { existsSync, readFileSync } from 'node:fs';

/**
 * Reading evaluation result files: one row per sample, JSONL or CSV.
 *
 * Fields: `task` (string), `sample` (integer index in generation order), `passed` (true/false or
 * 1/0), optional `turn` (integer, multi-turn conversations: one row per turn), optional `run`
 * (string, several runs in one file). Other fields are kept in `extra`. The harness (generation
 * config, model, template...) comes from a first JSONL line `{"harness": {...}}` or from a
 * sidecar file `FILE.harness.json`.
 *
 * Malformed input throws `ResultFileError` naming the file, line and field. Structural problems
 * (duplicated rows, gaps in sample indices, uneven sample counts) are not errors here: they are
 * listed by `groupOutcomes`, and each command decides (metrics refuses duplicates, diagnose shows
 * them as evidence).
 */

export interface ResultRow {
  task: string;
  sample: number;
  passed: boolean;
  turn?: number;
  run?: string;
  /** 1-based line in the file. */
  line: number;
  extra?: Record<string, unknown>;
}

export interface ResultFile {
  path: string;
  format: 'jsonl' | 'csv';
  harness?: Record<string, unknown>;
  harnessSource?: 'header' | 'sidecar';
  rows: ResultRow[];
}

export class ResultFileError extends Error {
  constructor(
    readonly path: string,
    readonly line: number,
    readonly field: string | undefined,
    detail: string,
  ) {
    super(`${path}:${line}: ${field !== undefined ? `field '${field}': ` : ''}${detail}`);
  }
}

const KNOWN = new Set(['task', 'sample', 'passed', 'turn', 'run']);

function parsePassed(value: unknown, fail: (field: string, detail: string) => never): boolean {
  if (value === true || value === 1 || value === '1') return true;
  if (value === false || value === 0 || value === '0') return false;
  if (typeof value === 'string') {
    const lower = value.trim().toLowerCase();
    if (lower === 'true' || lower === '1') return true;
    if (lower === 'false' || lower === '0') return false;
  }
  return fail('passed', `expected true/false or 1/0, got ${JSON.stringify(value)}`);
}

function parseIndex(field: string, value: unknown, fail: (field: string, detail: string) => never): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0) {
    return fail(field, `expected a non-negative integer, got ${JSON.stringify(value)}`);
  }
  return number;
}

/** Validates one record (from a JSON object or a CSV row) into a ResultRow. */
function toRow(record: Record<string, unknown>, path: string, line: number): ResultRow {
  const fail = (field: string, detail: string): never => {
    throw new ResultFileError(path, line, field, detail);
  };
  const task = record.task;
  if (task === undefined || task === '') fail('task', 'missing');
  if (typeof task !== 'string' && typeof task !== 'number') fail('task', `expected a string, got ${JSON.stringify(task)}`);
  if (record.sample === undefined || record.sample === '') fail('sample', 'missing');
  if (record.passed === undefined || record.passed === '') fail('passed', 'missing');
  const row: ResultRow = { task: String(task), sample: parseIndex('sample', record.sample, fail), passed: parsePassed(record.passed, fail), line };
  if (record.turn !== undefined && record.turn !== '' && record.turn !== null) row.turn = parseIndex('turn', record.turn, fail);
  if (record.run !== undefined && record.run !== '' && record.run !== null) row.run = String(record.run);
  const extra = Object.fromEntries(Object.entries(record).filter(([key]) => !KNOWN.has(key)));
  if (Object.keys(extra).length > 0) row.extra = extra;
  return row;
}

function parseJsonl(text: string, path: string): { rows: ResultRow[]; harness?: Record<string, unknown> } {
  const rows: ResultRow[] = [];
  let harness: Record<string, unknown> | undefined;
  const lines = text.split(/\r?\n/);
  let seenData = false;
  for (let i = 0; i < lines.length; i++) {
    const source = (lines[i] as string).trim();
    if (source === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (error) {
      throw new ResultFileError(path, i + 1, undefined, `not valid JSON (${(error as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ResultFileError(path, i + 1, undefined, 'expected a JSON object per line');
    }
    const record = value as Record<string, unknown>;
    if ('harness' in record && !('task' in record)) {
      if (seenData || harness !== undefined) throw new ResultFileError(path, i + 1, 'harness', 'the harness header must be the first line');
      if (typeof record.harness !== 'object' || record.harness === null) throw new ResultFileError(path, i + 1, 'harness', 'expected an object');
      harness = record.harness as Record<string, unknown>;
      continue;
    }
    seenData = true;
    rows.push(toRow(record, path, i + 1));
  }
  return harness === undefined ? { rows } : { rows, harness };
}

/** Splits one CSV line (RFC 4180 quoting, no newlines inside quotes). */
function splitCsvLine(line: string, path: string, lineNumber: number): string[] {
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
  if (quoted) throw new ResultFileError(path, lineNumber, undefined, 'unterminated quoted field');
  fields.push(field);
  return fields;
}

function parseCsv(text: string, path: string): { rows: ResultRow[] } {
  const lines = text.split(/\r?\n/);
  const headerIndex = lines.findIndex((line) => line.trim() !== '');
  if (headerIndex < 0) return { rows: [] };
  const header = splitCsvLine(lines[headerIndex] as string, path, headerIndex + 1).map((name) => name.trim());
  for (const required of ['task', 'sample', 'passed']) {
    if (!header.includes(required)) throw new ResultFileError(path, headerIndex + 1, required, 'missing from the CSV header');
  }
  const rows: ResultRow[] = [];
  for (let i = headerIndex + 1; i < lines.length; i++) {
    if ((lines[i] as string).trim() === '') continue;
    const values = splitCsvLine(lines[i] as string, path, i + 1);
    if (values.length !== header.length) {
      throw new ResultFileError(path, i + 1, undefined, `expected ${header.length} fields (${header.join(',')}), got ${values.length}`);
    }
    rows.push(toRow(Object.fromEntries(header.map((name, j) => [name, (values[j] as string).trim()])), path, i + 1));
  }
  return { rows };
}

/** Parses result text; `format` defaults to sniffing (a first non-blank `{` means JSONL). */
export function parseResultText(text: string, { path = '<input>', format }: { path?: string; format?: 'jsonl' | 'csv' } = {}): ResultFile {
  const chosen = format ?? (text.trimStart().startsWith('{') ? 'jsonl' : 'csv');
  const parsed: { rows: ResultRow[]; harness?: Record<string, unknown> } = chosen === 'jsonl' ? parseJsonl(text, path) : parseCsv(text, path);
  if (parsed.rows.length === 0) throw new ResultFileError(path, 1, undefined, 'no result rows');
  const file: ResultFile = { path, format: chosen, rows: parsed.rows };
  if (parsed.harness !== undefined) {
    file.harness = parsed.harness;
    file.harnessSource = 'header';
  }
  return file;
}

/**
 * Reads a result file and its optional sidecar `FILE.harness.json`. A header and a sidecar that
 * disagree is an error (which one is true?).
 * @throws ResultFileError on a missing or malformed file.
 */
export function readResultFile(path: string): ResultFile {
  if (!existsSync(path)) throw new ResultFileError(path, 0, undefined, 'no such file');
  const extension = path.toLowerCase().split('.').pop();
  const format = extension === 'csv' ? 'csv' : extension === 'jsonl' || extension === 'ndjson' || extension === 'json' ? 'jsonl' : undefined;
  const file = parseResultText(readFileSync(path, 'utf8'), format === undefined ? { path } : { path, format });
  const sidecarPath = `${path}.harness.json`;
  if (existsSync(sidecarPath)) {
    let sidecar: unknown;
    try {
      sidecar = JSON.parse(readFileSync(sidecarPath, 'utf8'));
    } catch (error) {
      throw new ResultFileError(sidecarPath, 1, undefined, `not valid JSON (${(error as Error).message})`);
    }
    if (typeof sidecar !== 'object' || sidecar === null || Array.isArray(sidecar)) throw new ResultFileError(sidecarPath, 1, undefined, 'expected a JSON object');
    const record = sidecar as Record<string, unknown>;
    const harness = (typeof record.harness === 'object' && record.harness !== null ? record.harness : record) as Record<string, unknown>;
    if (file.harness !== undefined && JSON.stringify(file.harness) !== JSON.stringify(harness)) {
      throw new ResultFileError(sidecarPath, 1, 'harness', `differs from the harness header of ${path}; keep one of them`);
    }
    file.harness = harness;
    file.harnessSource ??= 'sidecar';
  }
  return file;
}
