import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ResultFileError } from '../errors.ts';
import { readBytes, type ResultFile, type ResultRow } from '../resultFile.ts';
import { idOf, isObject, jsonLines, list, mixedFormat, parsePythonJson, type JsonLine } from './json.ts';

/** Fields of a logged sample that are not metric values (lm_eval/evaluator.py, `example`). */
const SAMPLE_FIELDS = new Set([
  'doc_id',
  'doc',
  'target',
  'arguments',
  'resps',
  'filtered_resps',
  'filter',
  'metrics',
  'doc_hash',
  'prompt_hash',
  'target_hash',
]);

export interface LmEvalOptions {
  /** The metric whose values (0 or 1) are the outcome; required when the file has several. */
  metric?: string;
  /** The filter whose lines are read; required when the file has several. */
  filter?: string;
}

/** The metric names of one line: its `metrics` list (0.4.7 on), else its numeric and boolean fields. */
function metricNames(record: Record<string, unknown>): string[] {
  if (Array.isArray(record.metrics))
    return record.metrics.filter((name): name is string => typeof name === 'string');
  return Object.keys(record).filter(
    (key) =>
      !SAMPLE_FIELDS.has(key) &&
      (typeof record[key] === 'number' || typeof record[key] === 'boolean' || Array.isArray(record[key])),
  );
}

const binary = (value: unknown): value is 0 | 1 | boolean =>
  value === 0 || value === 1 || value === true || value === false;

/** Responses per request: `resps` is one list per request, one entry per repeat. */
function responsesPerDocument(record: Record<string, unknown>): number {
  if (!Array.isArray(record.resps)) return 1;
  return record.resps.reduce(
    (most: number, responses) => Math.max(most, Array.isArray(responses) ? responses.length : 1),
    1,
  );
}

/** The lines of the chosen filter: every line when the file has one filter (or records none). */
function linesOfFilter(
  records: JsonLine[],
  path: string,
  filter: string | undefined,
): { lines: JsonLine[]; filter: string | undefined } {
  const filters = [
    ...new Set(
      records
        .map(({ record }) => record.filter)
        .filter((value): value is string => typeof value === 'string'),
    ),
  ];
  if (filter === undefined) {
    if (filters.length > 1)
      throw new ResultFileError(
        path,
        0,
        undefined,
        `each document is scored under ${filters.length} filters (${list(filters)}); pass --filter NAME`,
      );
    return { lines: records, filter: filters[0] };
  }
  if (filters.length === 0)
    throw new ResultFileError(
      path,
      0,
      undefined,
      `--filter '${filter}': the lines record no filter (lm-evaluation-harness before 0.4.7); leave --filter out`,
    );
  const lines = records.filter(({ record }) => record.filter === filter);
  if (lines.length === 0)
    throw new ResultFileError(
      path,
      0,
      undefined,
      `--filter '${filter}': no line has this filter (the file's: ${list(filters)})`,
    );
  return { lines, filter };
}

/** The rows of lm-evaluation-harness samples text (see readLmEvalSamples) with the metric and filter chosen. */
function readSamples(
  text: string,
  path: string,
  options: LmEvalOptions,
): { file: ResultFile; metric: string; filter: string | undefined } {
  const records = jsonLines(text, path);
  const firstLine = records[0]?.line ?? 1;
  for (const { line, record } of records) {
    if (!('doc_id' in record))
      throw (
        mixedFormat(path, line, record, 'lm-eval', firstLine) ??
        new ResultFileError(
          path,
          line,
          'doc_id',
          'missing (an lm-evaluation-harness sample has doc_id, doc, target, resps, filtered_resps and its metrics)',
        )
      );
  }
  if (records.length === 0) throw new ResultFileError(path, 0, undefined, 'no result rows');
  const { lines, filter } = linesOfFilter(records, path, options.filter);
  const names = [...new Set(lines.flatMap(({ record }) => metricNames(record)))];
  let metric = options.metric;
  if (metric !== undefined && !names.includes(metric))
    throw new ResultFileError(
      path,
      0,
      undefined,
      `--metric '${metric}': no line has this metric (the file's: ${list(names) || 'none'})`,
    );
  if (metric === undefined) {
    if (names.length === 0)
      throw new ResultFileError(
        path,
        0,
        undefined,
        'no metric values: the file holds predictions only (--predict_only); score them first',
      );
    if (names.length > 1)
      throw new ResultFileError(
        path,
        0,
        undefined,
        `several metrics (${list(names)}); pass --metric NAME, one whose values are 0 or 1`,
      );
    metric = names[0] as string;
  }
  const rows: ResultRow[] = [];
  let repeats = 1;
  let listed = false;
  for (const { line, record } of lines) {
    const fail = (field: string, detail: string): never => {
      throw new ResultFileError(path, line, field, detail);
    };
    const task =
      idOf(record.doc_id) ??
      fail('doc_id', `expected an integer or a string, got ${JSON.stringify(record.doc_id)}`);
    if (!(metric in record))
      fail(metric, `missing (this line's metrics: ${list(metricNames(record)) || 'none'})`);
    const value = record[metric];
    const notBinary = (shown: unknown): never =>
      fail(
        metric as string,
        `${JSON.stringify(shown)} is not 0 or 1: the outcome must be a 0/1 metric${names.length > 1 ? ` (this file's metrics: ${list(names)}); pass --metric NAME` : ''}`,
      );
    if (Array.isArray(value)) {
      const bad = value.find((item) => !binary(item));
      if (value.length === 0 || bad !== undefined) notBinary(value.length === 0 ? value : bad);
      listed = true;
      value.forEach((item, sample) => rows.push({ task, sample, passed: item === 1 || item === true, line }));
    } else {
      if (!binary(value)) notBinary(value);
      rows.push({ task, sample: 0, passed: value === 1 || value === true, line });
    }
    repeats = Math.max(repeats, responsesPerDocument(record));
  }
  const notes = [
    `outcome: '${metric}'${filter === undefined ? '' : ` under filter '${filter}'`}, one line per document (doc_id)`,
  ];
  if (!listed) {
    notes.push(
      repeats > 1
        ? `only one sample per task: the file holds up to ${repeats} responses per document (repeats) but lm-evaluation-harness records one '${metric}' per document, after the filter has reduced them to one answer; pass@k for k > 1 and the spread within a task need each response's outcome`
        : `only one sample per task: lm-evaluation-harness scores each document once; pass@k for k > 1 and the spread within a task need several samples per task`,
    );
  }
  return { file: { path, format: 'lm-eval', rows, notes }, metric, filter };
}

/**
 * The harness and the reported value of one task from the run's aggregated results, the JSON
 * file the harness writes beside the samples: `samples_<task>_<date>.jsonl` has
 * `results_<date>.json` (or `<name>_<date>.json` when --output_path named a file).
 */
function runResults(
  results: unknown,
  task: string,
  metric: string,
  filter: string | undefined,
  where: string,
): Pick<ResultFile, 'harness' | 'reported'> {
  if (!isObject(results)) return {};
  const config = isObject(results.config) ? results.config : {};
  const taskConfig =
    isObject(results.configs) && isObject(results.configs[task]) ? results.configs[task] : {};
  const pick = (source: Record<string, unknown>, keys: string[]) =>
    Object.fromEntries(
      keys
        .filter((key) => source[key] !== undefined && source[key] !== null)
        .map((key) => [key, source[key]]),
    );
  const harness: Record<string, unknown> = {
    tool: 'lm-evaluation-harness',
    ...pick(
      { version: results.lm_eval_version, git_hash: results.git_hash, model_name: results.model_name },
      ['version', 'git_hash', 'model_name'],
    ),
    ...pick(config, [
      'model',
      'model_args',
      'model_revision',
      'model_dtype',
      'gen_kwargs',
      'limit',
      'random_seed',
      'numpy_seed',
      'torch_seed',
      'fewshot_seed',
    ]),
    ...pick(taskConfig, [
      'output_type',
      'num_fewshot',
      'generation_kwargs',
      'repeats',
      'doc_to_text',
      'doc_to_target',
    ]),
    ...pick({ task_version: isObject(results.versions) ? results.versions[task] : undefined }, [
      'task_version',
    ]),
    ...pick(results, ['system_instruction_sha', 'chat_template_sha', 'fewshot_as_multiturn']),
  };
  if (filter !== undefined) harness.filter = filter;
  harness.metric = metric;
  const key = `${metric},${filter ?? 'none'}`;
  const value =
    isObject(results.results) && isObject(results.results[task]) ? results.results[task][key] : undefined;
  return {
    harness,
    ...(typeof value === 'number'
      ? { reported: [{ name: metric, value, where: `${where}: results.${task}['${key}']` }] }
      : {}),
  };
}

const SAMPLES_NAME = /^samples_(.+)_(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.jsonl(?:\.gz)?$/;

/**
 * lm-evaluation-harness `--log_samples` output, `samples_<task>_<date>.jsonl` (0.4.3 on; one line
 * per document and filter, written by `EvaluationTracker.save_results_samples` from the `example`
 * built in `lm_eval/evaluator.py`):
 *
 * - task: `doc_id` (the document's index in the task's split, read as its digits);
 * - passed: the chosen metric's value, which must be 0 or 1 (`exact_match`, `acc`, `acc_norm`, ...;
 *   true/false too): `--metric` when the line lists several (`metrics`), `--filter` when the
 *   document was scored under several filters (`filter`, e.g. `strict-match` and
 *   `flexible-extract`);
 * - sample: 0. The harness scores a document once, after its filter has reduced the `repeats`
 *   responses (`resps`) to one answer, so the file holds one outcome per document. A metric value
 *   that is a list of 0/1, one per response, is read as samples 0, 1, 2, ...
 *
 * When the run's aggregated results are beside the samples, the harness (model, its arguments,
 * few-shot, generation settings, repeats, seeds, versions) and the reported value of the chosen
 * metric are taken from there.
 * @throws ResultFileError naming the line and field, or the flag to pass when the file is ambiguous.
 */
export function readLmEvalSamples(text: string, path: string, options: LmEvalOptions = {}): ResultFile {
  const { file, metric, filter } = readSamples(text, path, options);
  const name = SAMPLES_NAME.exec(basename(path));
  if (name === null) return file;
  const [, task, date] = name as unknown as [string, string, string];
  let sibling: string | undefined;
  try {
    sibling = readdirSync(dirname(path)).find(
      (entry) => entry.endsWith(`_${date}.json`) && !entry.startsWith('samples_'),
    );
  } catch {
    return file;
  }
  if (sibling === undefined) return file;
  const siblingPath = join(dirname(path), sibling);
  let results: unknown;
  try {
    results = parsePythonJson((readBytes(siblingPath) as Buffer).toString('utf8'));
  } catch (error) {
    (file.notes as string[]).push(
      `${sibling} beside it is not readable (${(error as Error).message.split('\n')[0]}): no harness or reported value`,
    );
    return file;
  }
  const run = runResults(results, task, metric, filter, sibling);
  if (run.harness !== undefined) {
    file.harness = run.harness;
    file.harnessSource = 'log';
  }
  if (run.reported !== undefined) file.reported = run.reported;
  (file.notes as string[]).push(
    `harness${run.reported !== undefined ? ' and reported value' : ''} from ${sibling} (task '${task}')`,
  );
  return file;
}
