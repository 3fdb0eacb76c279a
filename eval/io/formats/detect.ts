import { ResultFileError } from '../errors.ts';
import { rowsCsvReader, rowsJsonlReader, type ResultFile, type ResultFormat } from '../resultFile.ts';
import { defaultMaxBytes, MAX_TEXT_BYTES, type LineReader } from '../source.ts';
import { JsonDocument } from './document.ts';
import { humanEvalReader } from './humaneval.ts';
import { InspectLog, inspectJsonReader, tooLargeLog, type InspectOptions } from './inspect.ts';
import { checkShape, isObject, jsonShape, parsePythonJson, recordKind, unknownFormat } from './json.ts';
import {
  isLmEvalResults,
  lmEvalReader,
  resultsWithoutSamples,
  type LmEvalOptions,
  type LmEvalReader,
} from './lmEval.ts';

/** How to read a file: its format (detected when `auto` or absent) and each format's choice. */
export interface ReadOptions extends InspectOptions, LmEvalOptions {
  format?: (typeof FORMAT_CHOICES)[number];
}

/** What `--format` accepts: `auto` detects from the content; `inspect` is either container. */
export const FORMAT_CHOICES = ['auto', 'jsonl', 'csv', 'humaneval', 'inspect', 'lm-eval'] as const;

/** Which formats each option applies to (an option the file's format ignores is the caller's to flag). */
export const OPTION_FORMATS: Record<'scorer' | 'partialAs' | 'metric' | 'filter', readonly ResultFormat[]> = {
  scorer: ['inspect-json', 'inspect-eval'],
  partialAs: ['inspect-json', 'inspect-eval'],
  metric: ['lm-eval'],
  filter: ['lm-eval'],
};

/** An object's keys for a message, the first six (of seven at most: the rest are not shown). */
const keysOf = (keys: string[]) =>
  keys.length === 0 ? 'no keys' : `keys ${keys.slice(0, 6).join(', ')}${keys.length > 6 ? ', ...' : ''}`;

/** The text format of each kind of record. */
const KIND_FORMAT = {
  rows: 'jsonl',
  humaneval: 'humaneval',
  'lm-eval': 'lm-eval',
  inspect: 'inspect-json',
} as const;

/** The format of a JSON object found first in a file, or the one line saying it is none. */
function formatOfRecord(record: Record<string, unknown>, path: string, line: number) {
  const kind = recordKind(record);
  if (kind !== undefined) return KIND_FORMAT[kind];
  if ('task_id' in record && 'completion' in record)
    throw new ResultFileError(
      path,
      line,
      'passed',
      'missing: a HumanEval samples file, not its results; run evaluate_functional_correctness on it and read its *_results.jsonl',
    );
  throw unknownFormat(path, line, `a JSON object with ${keysOf(Object.keys(record))}`);
}

/** The reader of each text format, chosen by --format or found by `detectingReader`. */
export const READERS: Record<
  Exclude<ResultFormat, 'inspect-eval'>,
  (path: string, options: ReadOptions) => LineReader<ResultFile>
> = {
  jsonl: rowsJsonlReader,
  csv: rowsCsvReader,
  humaneval: humanEvalReader,
  'lm-eval': lmEvalReader,
  'inspect-json': inspectJsonReader,
};

/** The members of a JSON document that tell its kind (recordKind, isLmEvalResults) or that its reader uses. */
const KIND_KEYS = new Set([
  ...['task', 'harness', 'task_id', 'passed', 'doc_id', 'eval', 'samples', 'version', 'status', 'results'],
  ...['versions', 'configs', 'config', 'lm_eval_version'],
]);

/**
 * A JSON document over several lines, read as it streams: an object is an Inspect `.json` log,
 * lm-evaluation-harness's results without samples (refused), or none of the formats; an array is
 * lm-evaluation-harness samples as 0.4.0 to 0.4.2 wrote them. A first line that is not exactly `{`
 * or `[` may also be a broken row: when the document fails, the row's error is the one given.
 */
function documentReader(
  path: string,
  options: ReadOptions,
  first: { text: string; line: number },
): LineReader<ResultFile> {
  const maxBytes = options.maxBytes ?? defaultMaxBytes();
  const opening = first.text.trim();
  const log = new InspectLog(path, options);
  const names: string[] = [];
  const kind: Record<string, unknown> = {};
  let samples: LmEvalReader | undefined;
  let root: '{' | '[' | undefined;
  let bytes = 0;
  const document = new JsonDocument({
    path,
    maxBytes,
    each: 'samples',
    root: (found) => (root = found),
    member(key, value) {
      if (names.length < 7) names.push(key);
      if (KIND_KEYS.has(key)) kind[key] = value;
      log.member(key, value);
    },
    element(value, line, index) {
      if (root === '{') return log.sample(value, index);
      if (index === 0) {
        if (!isObject(value) || !('doc_id' in value)) throw unknownFormat(path, first.line, 'a JSON array');
        samples = lmEvalReader(path, options);
      }
      (samples as LmEvalReader).record(value, line);
    },
  });
  /** A first line that may be a broken row: its error as a row when the document fails. */
  const asRow = (error: unknown): never => {
    if (opening === '{' || opening.startsWith('[') || !(error instanceof ResultFileError)) throw error;
    rowsJsonlReader(path, options).line(first.text, first.line);
    throw error;
  };
  return {
    line(text, line) {
      bytes += Buffer.byteLength(text) + 1;
      if (bytes > MAX_TEXT_BYTES && root === '{') asRow(tooLargeLog(path));
      try {
        document.line(text, line);
      } catch (error) {
        asRow(error);
      }
    },
    end() {
      try {
        document.end();
      } catch (error) {
        asRow(error);
      }
      if (root === '[') {
        if (samples === undefined) throw unknownFormat(path, first.line, 'a JSON array');
        return samples.end();
      }
      if (isLmEvalResults(kind)) throw resultsWithoutSamples(path, kind);
      const format = recordKind(kind);
      if (format === 'inspect') return log.rows();
      if (format === undefined) throw unknownFormat(path, 0, `a JSON document with ${keysOf(names)}`);
      // one record written over several lines: its first line, read as that format's line, is the error
      READERS[KIND_FORMAT[format]](path, options).line(first.text, first.line);
      throw unknownFormat(path, first.line, 'a JSON object over several lines');
    },
  };
}

/** Whether a first line that is not JSON alone may begin a document over several lines (it ends where a pretty-printer breaks a line). */
const opensDocument = (source: string) => /[{[,:]$/.test(source);

/**
 * Reads a text of any format, found from its first line that is not blank: a JSON object by its
 * keys (recordKind); `{` or `[`, or an object cut where a pretty-printer breaks a line, as a
 * document over several lines (refused over MAX_TEXT_BYTES when its `size` is known); a text naming
 * a column task, sample or passed as CSV rows.
 */
export function detectingReader(
  path: string,
  options: ReadOptions,
  size: number | undefined,
): LineReader<ResultFile> {
  const maxBytes = options.maxBytes ?? defaultMaxBytes();
  /** The reader of a file whose first line that is not blank is `first` (`source` trimmed). */
  const readerOf = (source: string, first: { text: string; line: number }): LineReader<ResultFile> => {
    if (source.startsWith('[')) return documentReader(path, options, first);
    if (!source.startsWith('{')) {
      const columns = source.split(',').map((name) => name.trim().replace(/^"|"$/g, ''));
      if (!columns.some((name) => name === 'task' || name === 'sample' || name === 'passed'))
        throw unknownFormat(path, first.line, 'text without the columns task, sample, passed');
      return rowsCsvReader(path, options);
    }
    let value: unknown;
    checkShape(jsonShape(source), source.length, { path, line: first.line, maxBytes });
    try {
      value = parsePythonJson(source);
    } catch {
      // not one object on one line: a JSON document over several lines, or a broken line of rows
      if (source === '{' && size !== undefined && size > MAX_TEXT_BYTES) throw tooLargeLog(path);
      return (source === '{' || opensDocument(source)) && (size === undefined || size <= MAX_TEXT_BYTES)
        ? documentReader(path, options, first)
        : rowsJsonlReader(path, options);
    }
    if (isLmEvalResults(value)) throw resultsWithoutSamples(path, value);
    const format = isObject(value) ? formatOfRecord(value, path, first.line) : 'jsonl';
    return format === 'inspect-json'
      ? inspectJsonReader(path, options, { line: first.line, value })
      : READERS[format](path, options);
  };
  let reader: LineReader<ResultFile> | undefined;
  return {
    line(text, line) {
      if (reader !== undefined) return reader.line(text, line);
      const source = text.trim();
      if (source === '') return;
      reader = readerOf(source, { text, line });
      reader.line(text, line);
    },
    // an empty file is refused as rows would be
    end: () => (reader ?? rowsJsonlReader(path, options)).end(),
  };
}
