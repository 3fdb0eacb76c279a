import { ResultFileError } from '../errors.ts';
import type { ResultFormat } from '../resultFile.ts';
import { decodeText, isObject, jsonErrorWhere, parsePythonJson, recordKind, unknownFormat } from './json.ts';

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
/** A zip archive's first four bytes: `PK` and a local file header (3 4) or, empty, the end of the directory (5 6). */
export const isZip = (bytes: Uint8Array) =>
  bytes[0] === ZIP[0] &&
  bytes[1] === ZIP[1] &&
  ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6));

const keysOf = (record: Record<string, unknown>) => {
  const keys = Object.keys(record);
  return keys.length === 0
    ? 'no keys'
    : `keys ${keys.slice(0, 6).join(', ')}${keys.length > 6 ? ', ...' : ''}`;
};

/** The format of a JSON object found first in a file, or the one line saying it is none. */
function formatOfRecord(
  record: Record<string, unknown>,
  path: string,
  line: number,
  container: string,
): ResultFormat {
  const kind = recordKind(record);
  if (kind === 'rows') return 'jsonl';
  if (kind === 'humaneval') return 'humaneval';
  if (kind === 'lm-eval') return 'lm-eval';
  if (kind === 'inspect') return 'inspect-json';
  if ('task_id' in record && 'completion' in record) {
    throw new ResultFileError(
      path,
      line,
      'passed',
      'missing: a HumanEval samples file, not its results; run evaluate_functional_correctness on it and read its *_results.jsonl',
    );
  }
  throw unknownFormat(path, line, `${container} with ${keysOf(record)}`);
}

/**
 * The first line of a text that is not blank once trimmed, with its 1-based number and where the
 * trimmed line starts in the text; found by a scan, the text is not split.
 */
function firstNonBlankLine(text: string): { line: number; source: string; offset: number } | undefined {
  let start = 0;
  for (let line = 1; start <= text.length; line++) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const raw = text.slice(start, end);
    const source = raw.trim();
    if (source !== '') return { line, source, offset: start + raw.length - raw.trimStart().length };
    start = end + 1;
  }
  return undefined;
}

/** Only JSON's whitespace (what JSON.parse skips around a value). */
const JSON_SPACE = /^[ \t\n\r]*$/;

/** A file's format with what telling it took, so that the reader need not do it again. */
export interface Detection {
  format: ResultFormat;
  /** The file's text (decodeText); absent for a zip archive. */
  text?: string;
  /** An Inspect log's whole text parsed as one JSON document, when telling the format took parsing it. */
  document?: unknown;
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
export function detectFormat(bytes: Uint8Array, path: string): Detection {
  if (isZip(bytes)) return { format: 'inspect-eval' };
  const text = decodeText(bytes);
  const first = firstNonBlankLine(text);
  if (first === undefined) return { format: 'jsonl', text };
  const { line, source, offset } = first;
  if (source.startsWith('{')) {
    let value: unknown;
    try {
      value = parsePythonJson(source);
    } catch {
      // not one object on one line: a JSON document over several lines, or a broken line of rows
      let whole: unknown;
      try {
        whole = parsePythonJson(text);
      } catch (error) {
        if (source === '{')
          throw new ResultFileError(path, 0, undefined, `not valid JSON (${jsonErrorWhere(error, text)})`);
        return { format: 'jsonl', text };
      }
      if (!isObject(whole)) return { format: 'jsonl', text };
      const format = formatOfRecord(whole, path, 0, 'a JSON document');
      return format === 'inspect-json' ? { format, text, document: whole } : { format, text };
    }
    if (!isObject(value)) return { format: 'jsonl', text };
    const format = formatOfRecord(value, path, line, 'a JSON object');
    // an Inspect log on one line that is the whole text but for JSON whitespace: the text parses to this value
    const whole =
      format === 'inspect-json' &&
      JSON_SPACE.test(text.slice(0, offset)) &&
      JSON_SPACE.test(text.slice(offset + source.length));
    return whole ? { format, text, document: value } : { format, text };
  }
  if (source.startsWith('[')) throw unknownFormat(path, line, 'a JSON array');
  const columns = source.split(',').map((name) => name.trim().replace(/^"|"$/g, ''));
  if (columns.some((name) => name === 'task' || name === 'sample' || name === 'passed'))
    return { format: 'csv', text };
  throw unknownFormat(path, line, 'text without the columns task, sample, passed');
}
