import { ResultFileError } from '../errors.ts';

/** A text without its leading byte-order mark, if it has one. */
export function withoutBom(text: string): string {
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

/** The UTF-8 text of a file's bytes, without a leading byte-order mark. */
export function decodeText(bytes: Uint8Array): string {
  return withoutBom(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
}

/**
 * JSON as Python tools write it. Python's `json.dumps` (lm-evaluation-harness) and pydantic with
 * `ser_json_inf_nan="constants"` (Inspect: an unscored sample's value is NaN) write the bare
 * tokens `NaN`, `Infinity` and `-Infinity`, which `JSON.parse` refuses. Outside strings they are
 * read as `null` here, so a NaN score is a missing score, as it is to Inspect's metrics.
 * @throws SyntaxError from JSON.parse on anything else that is not JSON.
 */
export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!/NaN|Infinity/.test(text)) throw error;
  }
  // strings first, so that a NaN inside a string is kept as it is
  return JSON.parse(
    text.replace(/"(?:[^"\\]|\\.)*"|-?Infinity|NaN/g, (token) => (token.startsWith('"') ? token : 'null')),
  );
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
 * The first key that appears twice at the top level of a valid JSON object text, if any:
 * JSON.parse keeps the last silently, which would let `{"passed": true, "passed": false}` pass.
 */
export function duplicatedKey(source: string): string | undefined {
  const seen = new Set<string>();
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '"') {
      let end = i + 1;
      while (source[end] !== '"') end += source[end] === '\\' ? 2 : 1;
      if (depth === 1 && /^\s*:/.test(source.slice(end + 1, end + 64))) {
        const key = JSON.parse(source.slice(i, end + 1)) as string;
        if (seen.has(key)) return key;
        seen.add(key);
      }
      i = end;
    } else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') depth--;
  }
  return undefined;
}

/**
 * Whether a flat object's text (no `{` or `[` inside) has each key once, known without a scan:
 * its colons are its keys written plus the colons inside strings, so as many colons as the parsed
 * object has keys means no key was written twice. `false` means "scan to find out".
 */
function flatWithoutDuplicates(source: string, value: Record<string, unknown>): boolean {
  if (source.indexOf('{', 1) >= 0 || source.includes('[')) return false;
  let colons = 0;
  for (let at = source.indexOf(':'); at >= 0; at = source.indexOf(':', at + 1)) colons++;
  return colons === Object.keys(value).length;
}

/** A JSON object (not null, not an array). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Names quoted and joined for a message: 'a', 'b'. */
export const list = (names: Iterable<string>) => [...names].map((name) => `'${name}'`).join(', ');

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

/** How each kind is described in a message: what a line of it holds. */
const KIND_NAMES: Record<RecordKind, string> = {
  rows: 'a result row (task, sample, passed)',
  humaneval: 'a HumanEval results line (task_id, passed)',
  'lm-eval': 'an lm-evaluation-harness sample (doc_id and its metrics)',
  inspect: 'an Inspect log (eval, samples)',
};

/** The one line for a file that is none of the formats: what was found and what was expected. */
export function unknownFormat(path: string, line: number, found: string): ResultFileError {
  return new ResultFileError(
    path,
    line,
    undefined,
    `${found}: not a result file this reader knows; expected result rows (JSONL or CSV with task, sample, passed), a HumanEval *_results.jsonl (task_id, passed), an Inspect log (.json or .eval), or lm-evaluation-harness samples_*.jsonl (doc_id and a metric); --format names one`,
  );
}

/** How a file of each kind is described. */
const FILE_NAMES: Record<RecordKind, string> = {
  rows: 'result rows (task, sample, passed)',
  humaneval: 'HumanEval results lines',
  'lm-eval': 'lm-evaluation-harness samples',
  inspect: 'an Inspect log',
};

/**
 * A line of a JSON-lines file read as kind `expected` that holds another format: one file holds
 * one format (or `--format` named the wrong one). `undefined` when the line is not recognisably
 * another format.
 */
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
  return new ResultFileError(
    path,
    line,
    undefined,
    `${KIND_NAMES[kind]}, not ${FILE_NAMES[expected]}${where}`,
  );
}

/**
 * The JSON object on one line of a JSON-lines file (its 1-based `line`), or `undefined` for a
 * blank line. Lines are read as Python tools write them (parsePythonJson), or, `strict`, by
 * JSON.parse as it is (NaN refused, its message given unchanged): the project's own rows.
 * @throws ResultFileError naming the line when it is not one JSON object with each key once.
 */
export function jsonLine(
  text: string,
  line: number,
  path: string,
  { strict = false }: { strict?: boolean } = {},
): Record<string, unknown> | undefined {
  const source = text.trim();
  if (source === '') return undefined;
  let value: unknown;
  try {
    value = strict ? JSON.parse(source) : parsePythonJson(source);
  } catch (error) {
    throw new ResultFileError(
      path,
      line,
      undefined,
      `not valid JSON (${strict ? (error as Error).message : jsonErrorWhere(error, source)})`,
    );
  }
  if (!isObject(value)) throw new ResultFileError(path, line, undefined, 'expected a JSON object per line');
  const twice = flatWithoutDuplicates(source, value) ? undefined : duplicatedKey(source);
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
