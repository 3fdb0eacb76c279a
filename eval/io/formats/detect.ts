import { ResultFileError } from '../errors.ts';
import { rowsCsvReader, rowsJsonlReader, type ResultFile, type ResultFormat } from '../resultFile.ts';
import { MAX_TEXT_BYTES, type LineReader, type RowLimit } from '../source.ts';
import { humanEvalReader } from './humaneval.ts';
import { inspectJsonReader, parsedInspectJson, tooLargeLog, type InspectOptions } from './inspect.ts';
import { isObject, jsonErrorWhere, parsePythonJson, recordKind, unknownFormat } from './json.ts';
import { lmEvalReader, type LmEvalOptions } from './lmEval.ts';

/** How to read a file: its format (detected when `auto` or absent) and each format's choice. */
export interface ReadOptions extends InspectOptions, LmEvalOptions, RowLimit {
  format?: FormatChoice;
}

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
): Exclude<ResultFormat, 'inspect-eval'> {
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

/** The reader of a text format, chosen by --format or found by `detectingReader`. */
export function readerFor(
  format: Exclude<ResultFormat, 'inspect-eval'>,
  path: string,
  options: ReadOptions,
): LineReader<ResultFile> {
  if (format === 'jsonl') return rowsJsonlReader(path, options);
  if (format === 'csv') return rowsCsvReader(path, options);
  if (format === 'humaneval') return humanEvalReader(path, options);
  if (format === 'lm-eval') return lmEvalReader(path, options);
  return inspectJsonReader(path, options);
}

/**
 * Reads a text of any format (an archive is told apart before, by its bytes), the format found
 * from the first line that is not blank:
 * - a JSON object on that line: by its keys, `task` (or a `harness` header) for result rows,
 *   `task_id` and `passed` for HumanEval results, `doc_id` for lm-evaluation-harness samples,
 *   `eval` for an Inspect `.json` log written on one line;
 * - a first line that is not JSON on its own: a JSON document over several lines (an Inspect
 *   `.json` log as Inspect writes it, indented), parsed whole once read; when it is not one, the
 *   lines are result rows with a broken first line. A document over MAX_TEXT_BYTES is refused, by
 *   its `size` (unpacked; `undefined` when not known before reading) when it is known;
 * - text naming a column `task`, `sample` or `passed`: result rows in CSV.
 * Anything else is one ResultFileError naming what was found and what is expected.
 */
export function detectingReader(
  path: string,
  options: ReadOptions,
  size: number | undefined,
): LineReader<ResultFile> {
  let reader: LineReader<ResultFile> | undefined;
  let document: { first: string; lines: string[]; bytes: number } | undefined;
  const replay = (into: LineReader<ResultFile>, lines: string[]) => {
    lines.forEach((text, i) => into.line(text, i + 1));
    return into.end();
  };
  return {
    line(text, line) {
      if (reader !== undefined) return reader.line(text, line);
      if (document !== undefined) {
        document.bytes += Buffer.byteLength(text) + 1;
        if (document.bytes > MAX_TEXT_BYTES) {
          if (document.first === '{') throw tooLargeLog(path);
          replay(rowsJsonlReader(path, options), document.lines);
        }
        document.lines.push(text);
        return;
      }
      const source = text.trim();
      if (source === '') return;
      if (source.startsWith('{')) {
        let value: unknown;
        try {
          value = parsePythonJson(source);
        } catch {
          // not one object on one line: a JSON document over several lines, or a broken line of rows
          if (source === '{' && size !== undefined && size > MAX_TEXT_BYTES) throw tooLargeLog(path);
          if (source !== '{' && size !== undefined && size > MAX_TEXT_BYTES)
            reader = rowsJsonlReader(path, options);
          else {
            document = {
              first: source,
              lines: [...Array<string>(line - 1).fill(''), text],
              bytes: text.length,
            };
            return;
          }
        }
        if (reader === undefined) {
          const format = isObject(value) ? formatOfRecord(value, path, line, 'a JSON object') : 'jsonl';
          reader =
            format === 'inspect-json'
              ? inspectJsonReader(path, options, { line, value })
              : readerFor(format, path, options);
        }
        return reader.line(text, line);
      }
      if (source.startsWith('[')) throw unknownFormat(path, line, 'a JSON array');
      const columns = source.split(',').map((name) => name.trim().replace(/^"|"$/g, ''));
      if (!columns.some((name) => name === 'task' || name === 'sample' || name === 'passed'))
        throw unknownFormat(path, line, 'text without the columns task, sample, passed');
      reader = rowsCsvReader(path, options);
      reader.line(text, line);
    },
    end() {
      if (reader !== undefined) return reader.end();
      if (document === undefined) return rowsJsonlReader(path, options).end();
      const text = document.lines.join('\n');
      let whole: unknown;
      try {
        whole = parsePythonJson(text);
      } catch (error) {
        if (document.first === '{')
          throw new ResultFileError(path, 0, undefined, `not valid JSON (${jsonErrorWhere(error, text)})`);
        return replay(rowsJsonlReader(path, options), document.lines);
      }
      if (!isObject(whole)) return replay(rowsJsonlReader(path, options), document.lines);
      const format = formatOfRecord(whole, path, 0, 'a JSON document');
      if (format === 'inspect-json') return parsedInspectJson(whole, path, options);
      return replay(readerFor(format, path, options), document.lines);
    },
  };
}
