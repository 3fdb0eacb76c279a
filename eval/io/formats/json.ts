import { fileError, ResultFileError } from '../errors.ts';
import { defaultMaxBytes, formatBytes } from '../source.ts';

/**
 * JSON as Python tools write it: Python's `json.dumps` (lm-evaluation-harness) and pydantic with
 * `ser_json_inf_nan="constants"` (Inspect: an unscored sample's value is NaN) write the bare
 * tokens `NaN`, `Infinity` and `-Infinity`. Outside strings `NaN` is read as `null` (a NaN score
 * is a missing score, as to Inspect's metrics) and `Infinity` as JSON.parse reads `1e309`.
 * @throws SyntaxError from JSON.parse on anything else that is not JSON.
 */
export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!/NaN|Infinity/.test(text)) throw error;
  }
  // strings first, so that a NaN inside a string is kept as it is; 1e999 is JSON for Infinity
  return JSON.parse(
    text.replace(/"(?:[^"\\]|\\.)*"|-?Infinity|NaN/g, (token) =>
      token.startsWith('"') ? token : token === 'NaN' ? 'null' : token.replace('Infinity', '1e999'),
    ),
  );
}

/** The deepest nesting of arrays and objects read: JSON.stringify, which prints a value, recurses (and overflows the stack near 5,000). */
export const MAX_JSON_DEPTH = 1000;

/** What one JSON value costs once parsed beyond its text, at most, in bytes: a parse is bounded by the text's length plus this per `{`, `[`, `,` and `:`. */
const JSON_VALUE_BYTES = 48;

type JsonShape = ReturnType<typeof jsonShape>;

const STRING_END = /["\\]/g;
export const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13;

/** Where the string whose text begins at `from` (after its opening quote) closes: its quote's index, or -1. */
export function closingQuote(text: string, from: number): number {
  for (let at = from; ;) {
    STRING_END.lastIndex = at;
    const found = STRING_END.exec(text);
    if (found === null) return -1;
    if (text.charCodeAt(found.index) !== 92) return found.index;
    at = found.index + 2;
  }
}

/**
 * A JSON text's structure outside its strings, scanned without parsing it (JSON.parse then refuses
 * a text that is not JSON): its deepest nesting (the scan stops past MAX_JSON_DEPTH), its `values`
 * (the `{`, `[`, `,` and `:`, plus one: an upper bound of keys and values), and the first key
 * written twice at the top level of an object.
 */
export function jsonShape(source: string): { depth: number; values: number; duplicate: string | undefined } {
  let depth = 0;
  let deepest = 0;
  let values = 1;
  let duplicate: string | undefined;
  const seen = new Set<string>();
  for (let i = 0; i < source.length && deepest <= MAX_JSON_DEPTH; i++) {
    const code = source.charCodeAt(i);
    if (code === 34) {
      let end = closingQuote(source, i + 1);
      if (end < 0) end = source.length;
      if (depth === 1 && duplicate === undefined) {
        let next = end + 1;
        while (next < source.length && isSpace(source.charCodeAt(next))) next++;
        if (source.charCodeAt(next) === 58) {
          let key: string | undefined;
          try {
            key = JSON.parse(source.slice(i, end + 1)) as string;
          } catch {
            // a broken key: JSON.parse refuses the text
          }
          if (key !== undefined && seen.has(key)) duplicate = key;
          else if (key !== undefined) seen.add(key);
        }
      }
      i = end;
    } else if (code === 123 || code === 91) {
      values++;
      if (++depth > deepest) deepest = depth;
    } else if (code === 125 || code === 93) depth--;
    else if (code === 44 || code === 58) values++;
  }
  return { depth: deepest, values, duplicate };
}

/** What parsing a text of `length` characters and `shape` would take, in bytes, at most. */
const parseCost = (length: number, shape: JsonShape) => length + shape.values * JSON_VALUE_BYTES;

/** Refuses a JSON text that nests deeper than MAX_JSON_DEPTH, or whose parse would take more than `maxBytes`. */
export function checkShape(
  shape: JsonShape,
  length: number,
  where: { path: string; line: number; maxBytes: number; what?: string },
): void {
  const { path, line, maxBytes, what = '' } = where;
  if (shape.depth > MAX_JSON_DEPTH)
    throw fileError(
      path,
      `${what}arrays and objects nested more than ${MAX_JSON_DEPTH.toLocaleString('en-US')} deep, deeper than this reader reads (no result file nests so deep)`,
      line,
    );
  const cost = parseCost(length, shape);
  if (cost > maxBytes)
    throw fileError(
      path,
      `${what}a JSON text of ${length.toLocaleString('en-US')} characters and ${shape.values.toLocaleString('en-US')} values, which would take about ${formatBytes(cost)} to parse, more than the ${formatBytes(maxBytes)} a file may hold (--max-bytes N raises the limit)`,
      line,
    );
}

/** A JSON text parsed as Python tools write it (parsePythonJson), once its shape is checked (checkShape). */
export function parseJsonText(
  text: string,
  where: { path: string; line?: number; maxBytes?: number; what?: string },
): unknown {
  const { path, line = 0, maxBytes = defaultMaxBytes(), what = '' } = where;
  checkShape(jsonShape(text), text.length, { path, line, maxBytes, what });
  try {
    return parsePythonJson(text);
  } catch (error) {
    throw fileError(path, `${what}not valid JSON (${jsonErrorWhere(error, text)})`, line);
  }
}

/** `line L, column C` for a JSON.parse error message that gives `position P` in `text`. */
export function jsonErrorWhere(error: unknown, text: string): string {
  const message = (error as Error).message.replace(/, ".*" is not valid JSON$/s, '').replace(/\s+/g, ' ');
  const position = /at position (\d+)/.exec(message);
  if (position === null) return message.slice(0, 160);
  const before = text.slice(0, Number(position[1])).split('\n');
  return message
    .replace(position[0], `at line ${before.length}, column ${(before.at(-1) as string).length + 1}`)
    .slice(0, 160);
}

/**
 * The colons of a flat object's text (no `{` or `[` inside): its keys written plus the colons
 * inside strings, so as many colons as the parsed object has keys means no key was written twice.
 */
function colonCount(source: string): number {
  let colons = 0;
  for (let at = source.indexOf(':'); at >= 0; at = source.indexOf(':', at + 1)) colons++;
  return colons;
}

/** The most bytes a flat object's parse takes per character of its text. */
const FLAT_BYTES_PER_CHAR = 8;

/**
 * The first `chars` characters of a text, as a string of their own (with `...` when cut): V8
 * keeps a slice of a string as a view of the whole, so a row that kept `text.slice(0, 200)` of a
 * 1 MB field would hold the megabyte.
 */
export function prefixOf(text: string, chars: number): string {
  if (text.length <= chars) return text;
  return `${JSON.parse(JSON.stringify(text.slice(0, chars))) as string}...`;
}

/**
 * A value as a message shows it, at most `chars` characters: JSON, Infinity by its name (JSON has
 * none; `1e309` reads as Infinity), and an integer past 2^53 - 1 as such, since the double read
 * from `9007199254740993` is 9007199254740992, not the number written.
 */
export function shownJson(value: unknown, chars = 200): string {
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value))
    return value > 0 ? 'a number beyond 2^53 - 1' : 'a number below -(2^53 - 1)';
  const text =
    typeof value === 'number' && !Number.isFinite(value)
      ? String(value)
      : (JSON.stringify(value) ?? String(value));
  return prefixOf(text, chars);
}

/** The fields of `source` named in `keys` (space-separated; all when absent) that are set (not null), in that order. */
export const setFields = (source: Record<string, unknown>, keys = Object.keys(source).join(' ')) =>
  Object.fromEntries(keys.split(' ').flatMap((key) => (source[key] == null ? [] : [[key, source[key]]])));

/** A JSON object (not null, not an array). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Names quoted and joined for a message: 'a', 'b'. */
export const list = (names: Iterable<string>) => [...names].map((name) => `'${name}'`).join(', ');

/** The first `most` items shown and joined by `separator`, with '...' after them when there are more. */
export function firstFew<T>(items: readonly T[], most: number, separator: string, show: (item: T) => string) {
  const shown = items.slice(0, most).map(show).join(separator);
  return items.length > most ? `${shown}${separator}...` : shown;
}

/** The format a JSON object looks like, from its keys; `undefined` when it is none of them. */
export type RecordKind = 'rows' | 'humaneval' | 'lm-eval' | 'inspect';

export function recordKind(record: Record<string, unknown>): RecordKind | undefined {
  if ('task' in record || ('harness' in record && !('task_id' in record) && !('doc_id' in record)))
    return 'rows';
  if ('task_id' in record && 'passed' in record) return 'humaneval';
  if ('doc_id' in record) return 'lm-eval';
  if (
    typeof record.eval === 'object' &&
    record.eval !== null &&
    ('samples' in record || 'version' in record || 'status' in record || 'results' in record)
  )
    return 'inspect';
  return undefined;
}

/** How each kind is described in a message: what a line of it holds, and what a file of it is. */
const KIND_NAMES: Record<RecordKind, [line: string, file: string]> = {
  rows: ['a result row (task, sample, passed)', 'result rows (task, sample, passed)'],
  humaneval: ['a HumanEval results line (task_id, passed)', 'HumanEval results lines'],
  'lm-eval': ['an lm-evaluation-harness sample (doc_id and its metrics)', 'lm-evaluation-harness samples'],
  inspect: ['an Inspect log (eval, samples)', 'an Inspect log'],
};

/** The one line for a file that is none of the formats: what was found and what was expected. */
export function unknownFormat(path: string, line: number, found: string): ResultFileError {
  return fileError(
    path,
    `${found}: not a result file this reader knows; expected result rows (JSONL or CSV with task, sample, passed), a HumanEval *_results.jsonl (task_id, passed), an Inspect log (.json or .eval), or lm-evaluation-harness samples_*.jsonl (doc_id and a metric); --format names one`,
    line,
  );
}

/** The error for a line of a JSON-lines file read as kind `expected` that holds another format, if it does. */
export function mixedFormat(
  path: string,
  line: number,
  record: Record<string, unknown>,
  expected: RecordKind,
  firstLine: number,
): ResultFileError | undefined {
  const kind = recordKind(record);
  if (kind === undefined || kind === expected) return undefined;
  const where = line > firstLine ? ` like line ${firstLine}; one file holds one format` : '; check --format';
  return fileError(path, `${KIND_NAMES[kind][0]}, not ${KIND_NAMES[expected][1]}${where}`, line);
}

/**
 * The JSON object on one line of a JSON-lines file, or `undefined` for a blank line: read as Python
 * tools write it, or, `strict` (the project's own rows), by JSON.parse as it is. A text that is not a
 * flat object short enough is scanned first (checkShape); `cost` is set to what its parse takes at most.
 * @throws ResultFileError naming the line when it is not one JSON object with each key once.
 */
export function jsonLine(
  text: string,
  line: number,
  path: string,
  {
    strict = false,
    maxBytes = defaultMaxBytes(),
    cost,
  }: { strict?: boolean; maxBytes?: number; cost?: { bytes: number } } = {},
): Record<string, unknown> | undefined {
  const source = text.trim();
  if (source === '') return undefined;
  // a flat object (nothing nested) too short for its parse to grow large is parsed as it is;
  // any other text is scanned first (its nesting, its size once parsed, a key written twice)
  const flat = source.indexOf('{', 1) < 0 && !source.includes('[');
  const shape = flat && source.length * FLAT_BYTES_PER_CHAR <= maxBytes ? undefined : jsonShape(source);
  if (shape !== undefined) checkShape(shape, source.length, { path, line, maxBytes });
  if (cost !== undefined) cost.bytes = shape === undefined ? source.length : parseCost(source.length, shape);
  let value: unknown;
  try {
    value = strict ? JSON.parse(source) : parsePythonJson(source);
  } catch (error) {
    throw fileError(
      path,
      `not valid JSON (${strict ? (error as Error).message : jsonErrorWhere(error, source)})`,
      line,
    );
  }
  if (!isObject(value)) throw fileError(path, 'expected a JSON object per line', line);
  const twice =
    shape !== undefined
      ? shape.duplicate
      : colonCount(source) === Object.keys(value).length
        ? undefined
        : jsonShape(source).duplicate;
  if (twice !== undefined)
    throw new ResultFileError(path, line, twice, 'appears twice in this object; keep one');
  return value;
}

/** An id (task, document, sample): a non-empty string (trimmed) or a JSON integer, as its decimal digits. */
export function idOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return value.trim();
}
