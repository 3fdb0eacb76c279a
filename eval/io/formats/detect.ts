import { ResultFileError } from '../errors.ts';
import type { ResultFormat } from '../resultFile.ts';
import { jsonErrorWhere, parsePythonJson, recordKind, unknownFormat } from './json.ts';

/** What `--format` accepts: `auto` detects from the content; `inspect` is either container. */
export const FORMAT_CHOICES = ['auto', 'jsonl', 'csv', 'humaneval', 'inspect', 'lm-eval'] as const;
export type FormatChoice = (typeof FORMAT_CHOICES)[number];

/** Which formats each option applies to (an option the file's format ignores is the caller's to flag). */
export const OPTION_FORMATS: Record<'scorer' | 'partialAs' | 'metric' | 'filter', readonly ResultFormat[]> = {
  scorer: ['inspect-json', 'inspect-eval'],
  partialAs: ['inspect-json', 'inspect-eval'],
  metric: ['lm-eval'],
  filter: ['lm-eval'],
};

const ZIP = [0x50, 0x4b];
const isZip = (bytes: Uint8Array) => bytes[0] === ZIP[0] && bytes[1] === ZIP[1] && ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6));

const keysOf = (record: Record<string, unknown>) => {
  const keys = Object.keys(record);
  return keys.length === 0 ? 'no keys' : `keys ${keys.slice(0, 6).join(', ')}${keys.length > 6 ? ', ...' : ''}`;
};

/** The format of a JSON object found first in a file, or the one line saying it is none. */
function formatOfRecord(record: Record<string, unknown>, path: string, line: number, container: string): ResultFormat {
  const kind = recordKind(record);
  if (kind === 'rows') return 'jsonl';
  if (kind === 'humaneval') return 'humaneval';
  if (kind === 'lm-eval') return 'lm-eval';
  if (kind === 'inspect') return 'inspect-json';
  if ('task_id' in record && 'completion' in record) {
    throw new ResultFileError(path, line, 'passed', 'missing: a HumanEval samples file, not its results; run evaluate_functional_correctness on it and read its *_results.jsonl');
  }
  throw unknownFormat(path, line, `${container} with ${keysOf(record)}`);
}

/**
 * The format of a file from its content (after any gzip layer):
 * - a zip archive: an Inspect `.eval` log;
 * - JSON whose first line is an object: by its keys, `task` (or a `harness` header) for result
 *   rows, `task_id` and `passed` for HumanEval results, `doc_id` for lm-evaluation-harness
 *   samples, `eval` for an Inspect `.json` log written on one line;
 * - a JSON document over several lines (an Inspect `.json` log as Inspect writes it, indented);
 * - text whose first line names a column `task`, `sample` or `passed`: result rows in CSV.
 * Anything else is one ResultFileError naming what was found and what is expected.
 */
export function detectFormat(bytes: Uint8Array, path: string): ResultFormat {
  if (isZip(bytes)) return 'inspect-eval';
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const text = raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
  const lines = text.split(/\r?\n/);
  const index = lines.findIndex((line) => line.trim() !== '');
  if (index < 0) return 'jsonl';
  const first = (lines[index] as string).trim();
  if (first.startsWith('{')) {
    let value: unknown;
    try {
      value = parsePythonJson(first);
    } catch {
      // not one object on one line: a JSON document over several lines, or a broken line of rows
      let whole: unknown;
      try {
        whole = parsePythonJson(text);
      } catch (error) {
        if (first === '{') throw new ResultFileError(path, 0, undefined, `not valid JSON (${jsonErrorWhere(error, text)})`);
        return 'jsonl';
      }
      if (typeof whole === 'object' && whole !== null && !Array.isArray(whole)) return formatOfRecord(whole as Record<string, unknown>, path, 0, 'a JSON document');
      return 'jsonl';
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'jsonl';
    return formatOfRecord(value as Record<string, unknown>, path, index + 1, 'a JSON object');
  }
  if (first.startsWith('[')) throw unknownFormat(path, index + 1, 'a JSON array');
  const columns = first.split(',').map((name) => name.trim().replace(/^"|"$/g, ''));
  if (columns.some((name) => name === 'task' || name === 'sample' || name === 'passed')) return 'csv';
  throw unknownFormat(path, index + 1, 'text without the columns task, sample, passed');
}
