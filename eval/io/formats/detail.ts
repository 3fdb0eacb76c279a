import { fileError, ResultFileError } from '../errors.ts';
import type { ResultFile, ResultRow } from '../resultFile.ts';
import {
  bufferAccess,
  defaultMaxBytes,
  FileAccess,
  fileSize,
  isGzip,
  LineSplitter,
  streamBytes,
  unpackedArchive,
  type LineReader,
} from '../source.ts';
import { archiveJson } from '../zip.ts';
import { JsonDocument } from './document.ts';
import { isObject, jsonLine } from './json.ts';
import { SAMPLE_FIELDS } from './lmEval.ts';

/**
 * One sample of another tool's file as that tool records it (Inspect's `EvalSample` as `inspect
 * view` shows it, lm-evaluation-harness's `example`, a HumanEval results line), re-read from the
 * file for the episode viewer, since the readers keep only outcomes (docs/METRICS.md, "A sample in
 * the viewer").
 */
interface SampleDetail {
  parts: DetailPart[];
}

export type DetailPart =
  | { kind: 'text'; label: string; text: string }
  | { kind: 'messages'; label: string; messages: Array<{ role: string; text: string }> };

/** The longest text of a detail, in characters. */
export const DETAIL_MAX_CHARS = 20_000;
/** The most messages of a detail (the first ones; a note counts the rest). */
export const DETAIL_MAX_MESSAGES = 200;

const clip = (text: string): string =>
  text.length > DETAIL_MAX_CHARS
    ? `${text.slice(0, DETAIL_MAX_CHARS)}... (${text.length} characters; the first ${DETAIL_MAX_CHARS} shown)`
    : text;

/** A value as text: a string as it is, anything else as indented JSON. */
const asText = (value: unknown): string =>
  clip(typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value)));

const text = (label: string, value: unknown): DetailPart => ({ kind: 'text', label, text: asText(value) });

/** The parts of the fields `keys` that the record has, in that order. */
const fieldParts = (record: Record<string, unknown>, keys: string[]) =>
  keys.filter((key) => record[key] !== undefined).map((key) => text(key, record[key]));

/** An Inspect message's content (a string, or a list of content parts) and tool calls, as text. */
function messageText(message: Record<string, unknown>): string {
  const { content } = message;
  const pieces: string[] = [];
  if (typeof content === 'string') pieces.push(content);
  else if (Array.isArray(content))
    for (const part of content) {
      if (!isObject(part)) pieces.push(asText(part));
      else if (part.type === 'text' && typeof part.text === 'string') pieces.push(part.text);
      else if (part.type === 'reasoning' && typeof part.reasoning === 'string')
        pieces.push(`[reasoning] ${part.reasoning}`);
      else pieces.push(`[${String(part.type)}]`); // an image, audio or video: not shown here
    }
  if (Array.isArray(message.tool_calls))
    for (const call of message.tool_calls)
      if (isObject(call))
        pieces.push(`tool call ${String(call.function)}: ${JSON.stringify(call.arguments)}`);
  if (isObject(message.error)) pieces.push(`error: ${String(message.error.message)}`);
  return clip(pieces.join('\n'));
}

function messagesPart(label: string, messages: unknown[]): DetailPart[] {
  const shown = messages
    .slice(0, DETAIL_MAX_MESSAGES)
    .map((message) =>
      isObject(message)
        ? { role: String(message.role), text: messageText(message) }
        : { role: '?', text: asText(message) },
    );
  const parts: DetailPart[] = [{ kind: 'messages', label, messages: shown }];
  if (messages.length > DETAIL_MAX_MESSAGES)
    parts.push(
      text(
        `${label} not shown`,
        `${messages.length - DETAIL_MAX_MESSAGES} more (the first ${DETAIL_MAX_MESSAGES} of ${messages.length} are shown)`,
      ),
    );
  return parts;
}

/** An Inspect sample's parts, in the order of `inspect view`'s sample panel. */
function inspectDetail(sample: Record<string, unknown>): SampleDetail {
  const parts: DetailPart[] = [];
  if (Array.isArray(sample.input)) parts.push(...messagesPart('input', sample.input));
  else if (sample.input !== undefined) parts.push(text('input', sample.input));
  if (sample.target !== undefined) parts.push(text('target', sample.target));
  if (isObject(sample.output) && typeof sample.output.completion === 'string')
    parts.push(text('output', sample.output.completion));
  const scores = isObject(sample.scores)
    ? sample.scores
    : isObject(sample.score)
      ? { score: sample.score }
      : {};
  for (const [name, score] of Object.entries(scores)) {
    if (!isObject(score)) continue;
    parts.push(text(`${name}: value`, score.value));
    if (score.answer != null) parts.push(text(`${name}: answer`, score.answer));
    if (score.explanation != null) parts.push(text(`${name}: explanation`, score.explanation));
  }
  if (isObject(sample.error)) parts.push(text('error', sample.error.message ?? sample.error));
  if (Array.isArray(sample.messages)) parts.push(...messagesPart('messages', sample.messages));
  if (isObject(sample.metadata) && Object.keys(sample.metadata).length > 0)
    parts.push(text('metadata', sample.metadata));
  return { parts };
}

/** The fields of an lm-evaluation-harness line shown before its metrics (lm_eval/evaluator.py). */
const LM_EVAL_FIELDS = ['doc', 'target', 'arguments', 'resps', 'filtered_resps', 'filter'];

/** An lm-evaluation-harness sample line's parts: its fields, then each metric's value. */
function lmEvalDetail(record: Record<string, unknown>): SampleDetail {
  const parts = fieldParts(record, LM_EVAL_FIELDS);
  const names = Array.isArray(record.metrics)
    ? record.metrics.filter((name): name is string => typeof name === 'string')
    : Object.keys(record).filter((key) => !SAMPLE_FIELDS.has(key));
  for (const name of names) if (name in record) parts.push(text(`metric ${name}`, record[name]));
  return { parts };
}

/** Streams the lines of `path` (gzipped or not) to `reader` until `found()`. */
async function scanLines(path: string, reader: LineReader<unknown>, maxBytes: number, found: () => boolean) {
  const splitter = new LineSplitter(path, reader, { maxBytes });
  await streamBytes(path, isGzip(headOf(path)), (bytes) => {
    splitter.push(bytes);
    return !found();
  });
  if (!found()) splitter.end();
}

/**
 * The record that begins at line `line` of a text file (gzipped or not): the line's JSON object, or
 * in one JSON array (lm-evaluation-harness 0.4.0 to 0.4.2) the element that begins there.
 */
async function recordAtLine(path: string, line: number, maxBytes: number): Promise<Record<string, unknown>> {
  let found: unknown;
  let array: JsonDocument | undefined;
  let first = true;
  const reader = {
    line(lineText: string, number: number) {
      if (first && lineText.trim() !== '') {
        first = false;
        if (lineText.trimStart().startsWith('['))
          array = new JsonDocument({
            path,
            maxBytes,
            element: (value, at) => {
              if (at === line) found = value;
            },
          });
      }
      if (array !== undefined) array.line(lineText, number);
      else if (number === line) found = jsonLine(lineText, line, path, { maxBytes }) ?? null;
    },
    end: () => undefined,
  };
  await scanLines(path, reader, maxBytes, () => found !== undefined);
  if (!isObject(found)) throw fileError(path, 'no longer the line it was when read: the file changed', line);
  return found;
}

/** The first bytes of a file (to tell gzip apart). */
function headOf(path: string): Buffer {
  const access = new FileAccess(path, fileSize(path) as number);
  try {
    return access.read(0, 2);
  } finally {
    access.close();
  }
}

const sameSample = (record: unknown, id: unknown, epoch: unknown): record is Record<string, unknown> =>
  isObject(record) && JSON.stringify(record.id) === JSON.stringify(id) && record.epoch === epoch;

/** An Inspect sample of a `.json` or `.eval` log, found by its id and epoch, within the limits of a first reading. */
async function inspectSample(
  file: ResultFile,
  row: ResultRow,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  const { id, epoch } = row.extra ?? {};
  const missing = () =>
    fileError(
      file.path,
      `sample ${JSON.stringify(id)} epoch ${String(epoch)} is no longer in the log: the file changed`,
    );
  if (file.format === 'inspect-json') {
    // the log streamed one sample at a time (a log written on one line is one line, parsed whole)
    let found: Record<string, unknown> | undefined;
    const document = new JsonDocument({
      path: file.path,
      maxBytes,
      each: 'samples',
      element: (value) => {
        if (found === undefined && sameSample(value, id, epoch)) found = value;
      },
    });
    await scanLines(file.path, document, maxBytes, () => found !== undefined);
    if (found === undefined) throw missing();
    return found;
  }
  const access = new FileAccess(file.path, fileSize(file.path) as number);
  try {
    const source = isGzip(access.read(0, 2))
      ? bufferAccess(await unpackedArchive(file.path, maxBytes))
      : access;
    const { byName, read } = archiveJson(source, file.path, maxBytes);
    const named = `samples/${String(id)}_epoch_${String(epoch)}`;
    // the entries Inspect names for it first, then any other sample entry by its content
    const names = [`${named}.json`, `${named}/sample.json`].filter((name) => byName.has(name));
    for (const name of byName.keys())
      if (name.startsWith('samples/') && !names.includes(name)) names.push(name);
    for (const name of names) {
      const record = read(name);
      if (sameSample(record, id, epoch)) return record;
    }
    throw missing();
  } finally {
    access.close();
  }
}

/**
 * The detail of one row of another tool's file, re-read within the readers' limits, or null for
 * the project's own rows (the viewer has them already).
 * @throws ResultFileError saying the file changed when it cannot be read again or no longer holds the row.
 */
export async function readSampleDetail(file: ResultFile, row: ResultRow): Promise<SampleDetail | null> {
  const maxBytes = defaultMaxBytes();
  try {
    if (file.format === 'inspect-json' || file.format === 'inspect-eval')
      return inspectDetail(await inspectSample(file, row, maxBytes));
    if (file.format === 'lm-eval') return lmEvalDetail(await recordAtLine(file.path, row.line, maxBytes));
    if (file.format === 'humaneval') {
      const record = await recordAtLine(file.path, row.line, maxBytes);
      return { parts: fieldParts(record, ['task_id', 'completion', 'result', 'passed']) };
    }
  } catch (error) {
    if (!(error instanceof ResultFileError) || error.message.includes('the file changed')) throw error;
    const reason = error.message.startsWith(file.path)
      ? error.message.slice(file.path.length).replace(/^:\d*:?\s*/, '')
      : error.message;
    throw fileError(file.path, `the file changed since it was read: ${reason}`);
  }
  return null;
}
