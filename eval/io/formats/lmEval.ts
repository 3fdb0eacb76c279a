import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileError, ResultFileError } from '../errors.ts';
import { readBytes, type ReportedValue, type ResultFile, type ResultRow } from '../resultFile.ts';
import { gradedCount } from '../scores.ts';
import { RowBudget, type LineReader, type RowLimit, utf8Text } from '../source.ts';
import { JsonDocument } from './document.ts';
import {
  idOf,
  isObject,
  jsonLine,
  list,
  mixedFormat,
  parseJsonText,
  prefixOf,
  setFields,
  shownJson,
} from './json.ts';
import { getOrAdd } from '../../../lib/collections.ts';

/** Fields of a logged sample that are not metric values (lm_eval/evaluator.py, `example`). */
export const SAMPLE_FIELDS = new Set([
  ...['doc_id', 'doc', 'target', 'arguments', 'resps', 'filtered_resps', 'filter', 'metrics'],
  ...['doc_hash', 'prompt_hash', 'target_hash'],
]);

export interface LmEvalOptions extends RowLimit {
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

/** Responses per request: `resps` is one list per request, one entry per repeat. */
const responsesPerDocument = (record: Record<string, unknown>): number =>
  Array.isArray(record.resps)
    ? record.resps.reduce((most: number, one) => Math.max(most, Array.isArray(one) ? one.length : 1), 1)
    : 1;

/**
 * A metric's value as a line keeps it (the line is let go): a number or a boolean as it is, a list of
 * 0/1 as booleans, anything else as a message shows it (refused only if its metric is chosen).
 */
type KeptValue =
  number | boolean | { list: boolean[] | undefined; shown: string; bad: string } | { shown: string };

function kept(value: unknown): KeptValue {
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (!Array.isArray(value)) return { shown: shownJson(value) };
  const bad = value.find((item) => item !== 0 && item !== 1 && item !== true && item !== false);
  return {
    list:
      value.length > 0 && bad === undefined ? value.map((item) => item === 1 || item === true) : undefined,
    shown: prefixOf(JSON.stringify(value) ?? '', 40).replace(/\.\.\.$/, ''),
    bad: value.length === 0 ? '[]' : shownJson(bad),
  };
}

/** The bytes a kept value holds beside its object, for the budget. */
const keptBytes = (value: KeptValue) =>
  typeof value === 'object' ? ('list' in value ? (value.list?.length ?? 0) * 8 : 0) + value.shown.length : 8;

/** What one line keeps of a logged sample: its document (doc_id, or a message's view of one that is none), filter and metric values. */
interface SampleLine {
  line: number;
  doc: string | { shown: string };
  filter: string | undefined;
  names: string[];
  values: Record<string, KeptValue>;
  repeats: number;
}

/**
 * Metrics whose value is a list pooled across documents by lm-evaluation-harness: IFEval's
 * `inst_level_*_acc` hold one bool per instruction of the prompt, and its `agg_inst_level_acc`
 * (lm_eval/tasks/ifeval/utils.py) is the mean of all instructions of all documents pooled.
 */
const POOLED_LIST = /^inst_level_/;

/** The lines of the chosen filter: every line when the file has one filter (or records none). */
function linesOfFilter(records: SampleLine[], path: string, filter: string | undefined) {
  const filters = [...new Set(records.flatMap((record) => record.filter ?? []))];
  if (filter === undefined) {
    if (filters.length > 1)
      throw fileError(
        path,
        `each document is scored under ${filters.length} filters (${list(filters)}); pass --filter NAME`,
      );
    return { lines: records, filter: filters[0] };
  }
  if (filters.length === 0)
    throw fileError(
      path,
      `--filter '${filter}': the lines record no filter (lm-evaluation-harness before 0.4.7); leave --filter out`,
    );
  const lines = records.filter((record) => record.filter === filter);
  if (lines.length === 0)
    throw fileError(path, `--filter '${filter}': no line has this filter (the file's: ${list(filters)})`);
  return { lines, filter };
}

/** The metric of the outcomes: `--metric`, else the only one the lines have. */
function chosenMetric(names: string[], path: string, metric: string | undefined): string {
  if (metric !== undefined) {
    if (!names.includes(metric))
      throw fileError(
        path,
        `--metric '${metric}': no line has this metric (the file's: ${list(names) || 'none'})`,
      );
    return metric;
  }
  if (names.length === 0)
    throw fileError(
      path,
      'no metric values: the file holds predictions only (--predict_only); score them first',
    );
  if (names.length > 1)
    throw fileError(
      path,
      `several metrics (${list(names)}); pass --metric NAME, one whose values are 0 or 1`,
    );
  return names[0]!;
}

/** The rows of lm-evaluation-harness sample lines (see lmEvalReader) with the metric and filter chosen. */
function samplesOf(records: SampleLine[], path: string, options: LmEvalOptions, held: RowBudget) {
  if (records.length === 0) throw fileError(path, 'no result rows');
  const { lines, filter } = linesOfFilter(records, path, options.filter);
  const names = [...new Set(lines.flatMap(({ names: lineNames }) => lineNames))];
  const metric = chosenMetric(names, path, options.metric);
  const rows: ResultRow[] = [];
  // one row per line is counted as its line was read; the instructions of a list are rows more
  const budget = new RowBudget(path, { ...options, maxBytes: Math.max(0, held.maxBytes - held.bytes) });
  let repeats = 1;
  let pooled = false;
  const documents = new Set<string>();
  for (const { line, doc, values, names: lineNames, repeats: lineRepeats } of lines) {
    const fail = (field: string, detail: string): never => {
      throw new ResultFileError(path, line, field, detail);
    };
    const task =
      typeof doc === 'string' ? doc : fail('doc_id', `expected an integer or a string, got ${doc.shown}`);
    documents.add(task);
    if (!(metric in values)) fail(metric, `missing (this line's metrics: ${list(lineNames) || 'none'})`);
    const value = values[metric] as KeptValue;
    if (typeof value === 'object' && 'list' in value) {
      if (!POOLED_LIST.test(metric))
        fail(
          metric,
          `a list (${value.shown}), not one value per document: lm-evaluation-harness aggregates such a list with the task's own function, which this reader does not know (it reads IFEval's inst_level_* lists, pooled as agg_inst_level_acc pools them); choose a metric with one 0/1 per document with --metric`,
        );
      const items =
        value.list ??
        fail(
          metric,
          `${value.bad} is not 0 or 1: each instruction's outcome must be 0/1${names.length > 1 ? ` (this file's metrics: ${list(names)}); pass --metric NAME` : ''}`,
        );
      pooled = true;
      items.forEach((passed, instruction) => {
        budget.row(line);
        rows.push({ task: `${task}:${instruction}`, sample: 0, passed, line });
      });
    } else {
      const score =
        typeof value === 'object'
          ? fail(
              metric,
              `${value.shown} is not a number: a metric's value per document is a number (0/1, or a graded score such as f1)`,
            )
          : Number(value);
      if (!Number.isFinite(score))
        fail(
          metric,
          `${score} is not a finite number, so the mean over documents is not defined (a number too large for a double, 1e309, is Infinity too); choose another metric with --metric`,
        );
      rows.push({ task, sample: 0, passed: score === 1, score, line });
    }
    repeats = Math.max(repeats, lineRepeats);
  }
  const graded = gradedCount(rows);
  const notes = [
    `outcome: '${metric}'${filter === undefined ? '' : ` under filter '${filter}'`}, one line per document (doc_id)`,
  ];
  if (graded > 0)
    notes.push(
      `graded scores: '${metric}' is not 0 or 1 on ${graded} of ${rows.length} documents, so each row carries its score`,
    );
  if (pooled)
    notes.push(
      `'${metric}' holds one outcome per instruction of each prompt: each instruction is one task here (doc_id:index), so the mean accuracy is the mean over all instructions pooled, as lm-evaluation-harness's agg_inst_level_acc computes it; the instructions of one prompt share its response, so an interval over them is narrower than one over documents (prompt_level_* metrics give one outcome per document)`,
    );
  notes.push(
    repeats > 1
      ? `only one sample per task: the file holds up to ${repeats} responses per document (repeats) but lm-evaluation-harness records one '${metric}' per document, after the filter has reduced them to one answer; pass@k for k > 1 and the spread within a task need each response's outcome`
      : `only one sample per task: lm-evaluation-harness scores each document once; pass@k for k > 1 and the spread within a task need several samples per task`,
  );
  const file: ResultFile = { path, format: 'lm-eval', rows, notes };
  return { file, metric, filter, documents: documents.size };
}

/** `samples_<task>_<date>.jsonl` (0.4.3 on), or `.json` (builds of May and June 2024, one JSON object a line all the same). */
const SAMPLES_NAME = /^samples_(.+)_(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.jsonl?(?:\.gz)?$/;

export interface LmEvalReader extends LineReader<ResultFile> {
  /** One logged sample already parsed (a line, or an element of a samples array); `line` where it starts. */
  record(record: unknown, line: number): void;
}

/**
 * lm-evaluation-harness `--log_samples` output (the `example` of `lm_eval/evaluator.py`), read one
 * line at a time, keeping each line's document, filter and metric values: task = `doc_id`, sample =
 * 0, passed = the chosen metric's 0/1 (docs/METRICS.md, "lm-evaluation-harness").
 * @throws ResultFileError naming the line and field, or the flag to pass when the file is ambiguous.
 */
export function lmEvalReader(path: string, options: LmEvalOptions = {}): LmEvalReader {
  const records: SampleLine[] = [];
  const budget = new RowBudget(path, options);
  const namesSeen = new Map<string, string[]>();
  const filters = new Map<string, string>();
  let firstLine: number | undefined;
  let array: JsonDocument | undefined;
  const reader: LmEvalReader = {
    line(text, line) {
      if (array !== undefined) return array.line(text, line);
      if (firstLine === undefined && text.trimStart().startsWith('[')) {
        // 0.4.0 to 0.4.2: the samples as one JSON array
        array = new JsonDocument({
          path,
          maxBytes: budget.maxBytes,
          element: (value, at) => reader.record(value, at),
        });
        firstLine = line;
        return array.line(text, line);
      }
      const record = jsonLine(text, line, path, { maxBytes: budget.maxBytes });
      if (record !== undefined) reader.record(record, line);
    },
    record(record, line) {
      if (!isObject(record)) throw fileError(path, 'expected a JSON object per logged sample', line);
      firstLine ??= line;
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
      const lineNames = metricNames(record);
      const names = getOrAdd(namesSeen, lineNames.join('\u0000'), () => lineNames);
      const values: Record<string, KeptValue> = {};
      let bytes = 0;
      for (const name of names)
        if (name in record) {
          values[name] = kept(record[name]);
          bytes += name.length + keptBytes(values[name]);
        }
      const doc = idOf(record.doc_id) ?? { shown: shownJson(record.doc_id) };
      const given = record.filter;
      const filter = typeof given === 'string' ? getOrAdd(filters, given, () => given) : undefined;
      budget.row(line, bytes + (typeof doc === 'string' ? doc.length : doc.shown.length));
      records.push({ line, doc, filter, names, values, repeats: responsesPerDocument(record) });
    },
    end() {
      if (array !== undefined) array.end();
      return withRunResults(samplesOf(records, path, options, budget), path, budget.maxBytes);
    },
  };
  return reader;
}

/** The most `.json` files beside a samples file looked into for its results, and the largest read. */
const MAX_RESULTS_CANDIDATES = 20;
const MAX_RESULTS_BYTES = 64 * 2 ** 20;

/** The run's results beside a samples file: its name, the task, and its parsed content. */
interface RunResults {
  sibling: string;
  task: string;
  results: unknown;
}

/** `results_<date>.json` beside `samples_<task>_<date>.jsonl`: the task is the file name's. */
function datedResults(
  path: string,
  task: string,
  date: string,
  maxBytes: number,
): RunResults | string | undefined {
  const sibling = siblingsOf(path).find(
    (entry) => entry.endsWith(`_${date}.json`) && !entry.startsWith('samples_'),
  );
  if (sibling === undefined) return undefined;
  try {
    return { sibling, task, results: readResultsFile(join(dirname(path), sibling), maxBytes) };
  } catch (error) {
    return `${sibling} beside it is not readable (${(error as Error).message.split('\n')[0]}): no harness or reported value`;
  }
}

/** The names in a file's folder (none when the folder cannot be listed). */
function siblingsOf(path: string): string[] {
  try {
    return readdirSync(dirname(path));
  } catch {
    return [];
  }
}

function readResultsFile(path: string, maxBytes: number): unknown {
  const bytes = readBytes(path, { maxBytes }) as Buffer;
  return parseJsonText(utf8Text(bytes, path), { path, maxBytes });
}

/**
 * The results beside a samples file named as before 0.4.3, `<model_args>_<task>.jsonl`: task names
 * hold `_`, so the task is the longest of a results file in the folder (`results.json` first) with
 * which the name ends.
 */
function namedResults(path: string, maxBytes: number): RunResults | undefined {
  const stem = basename(path)
    .replace(/\.gz$/, '')
    .replace(/\.jsonl?$/, '');
  const candidates = siblingsOf(path)
    .filter(
      (entry) =>
        entry.endsWith('.json') &&
        entry !== basename(path) &&
        !entry.startsWith('samples_') &&
        !entry.endsWith('.harness.json'),
    )
    .sort((a, b) => (a === 'results.json' ? -1 : b === 'results.json' ? 1 : a < b ? -1 : a > b ? 1 : 0))
    .slice(0, MAX_RESULTS_CANDIDATES);
  for (const sibling of candidates) {
    const siblingPath = join(dirname(path), sibling);
    let results: unknown;
    try {
      if (statSync(siblingPath).size > Math.min(MAX_RESULTS_BYTES, maxBytes)) continue;
      results = readResultsFile(siblingPath, maxBytes);
    } catch {
      continue; // not a results file this reader can read: another candidate may be
    }
    if (!isLmEvalResults(results)) continue;
    // of the task names the results record (configs, results, versions), the longest the name ends with
    const task = ['configs', 'results', 'versions']
      .flatMap((key) => (isObject(results[key]) ? Object.keys(results[key]) : []))
      .filter((name) => stem.endsWith(`_${name}`))
      .sort((a, b) => b.length - a.length)[0];
    if (task !== undefined) return { sibling, task, results };
  }
  return undefined;
}

/** The file's benchmark (the task of its name) and what the run's results file beside it adds. */
function withRunResults(read: ReturnType<typeof samplesOf>, path: string, maxBytes: number): ResultFile {
  const { file } = read;
  const notes = file.notes as string[];
  const name = SAMPLES_NAME.exec(basename(path));
  const tool = 'lm-evaluation-harness';
  let run: RunResults | string | undefined;
  if (name !== null) {
    const [, task, date] = name as unknown as [string, string, string];
    file.benchmark = { tool, name: task, source: 'the file name samples_<task>_<date>' };
    // the name's date with its time's dashes as colons: 2026-08-20T10-15-02.318204 -> 2026-08-20T10:15:02.318204
    file.origin = { date: date.replace(/T(\d{2})-(\d{2})-(\d{2})/, 'T$1:$2:$3') };
    run = datedResults(path, task, date, maxBytes);
  } else {
    run = namedResults(path, maxBytes);
    const source = `the file name <model_args>_<task> and the tasks of ${run?.sibling}`;
    // renamed, or no results file beside it: the task is not known, the tool still is (its doc_ids are its own numbering)
    file.benchmark = run === undefined ? { tool } : { tool, name: run.task, source };
    if (run === undefined)
      notes.push(
        'the task is not known: the file is not named samples_<task>_<date>.jsonl and no results file beside it names a task its name ends with',
      );
  }
  if (typeof run === 'string') notes.push(run);
  if (typeof run !== 'object') return file;
  const { sibling, task, results } = run;
  if (isObject(results)) addRunResults(file, results, task, read, sibling);
  notes.push(
    `harness${file.reported !== undefined ? ' and reported value' : ''} from ${sibling} (task '${task}')`,
  );
  return file;
}

/** The harness, the reported value of one task and the model, from the run's aggregated results beside the samples. */
function addRunResults(
  file: ResultFile,
  results: Record<string, unknown>,
  task: string,
  { metric, filter, documents }: ReturnType<typeof samplesOf>,
  where: string,
): void {
  const config = isObject(results.config) ? results.config : {};
  const taskConfig =
    isObject(results.configs) && isObject(results.configs[task]) ? results.configs[task] : {};
  file.harness = {
    tool: 'lm-evaluation-harness',
    ...setFields({
      version: results.lm_eval_version,
      git_hash: results.git_hash,
      model_name: results.model_name,
    }),
    ...setFields(
      config,
      'model model_args model_revision model_dtype gen_kwargs limit random_seed numpy_seed torch_seed fewshot_seed',
    ),
    ...setFields(taskConfig, 'output_type num_fewshot generation_kwargs repeats doc_to_text doc_to_target'),
    ...setFields({ task_version: isObject(results.versions) ? results.versions[task] : undefined }),
    ...setFields(results, 'system_instruction_sha chat_template_sha fewshot_as_multiturn'),
    ...(filter !== undefined ? { filter } : {}),
    metric,
  };
  file.harnessSource = 'log';
  const byKey = isObject(results.results) && isObject(results.results[task]) ? results.results[task] : {};
  // the value, then the standard error beside it (lm_eval/api/metrics.py, mean_stderr for a mean)
  const reported: ReportedValue[] = [];
  for (const name of [metric, `${metric}_stderr`]) {
    const key = `${name},${filter ?? 'none'}`;
    const value = byKey[key];
    if (typeof value !== 'number' || !Number.isFinite(value)) break;
    const statistic = name === metric ? {} : { statistic: 'stderr' as const };
    reported.push({ name, value, where: `${where}: results.${task}['${key}']`, ...statistic });
  }
  // n-samples (lm_eval/evaluator_utils.py): the documents the run evaluated after --limit
  const counts = isObject(results['n-samples']) ? results['n-samples'][task] : undefined;
  const counted = isObject(counts) ? counts.effective : undefined;
  if (typeof counted === 'number' && Number.isSafeInteger(counted) && documents < counted)
    for (const one of reported)
      one.coverage = {
        held: documents,
        counted,
        unit: 'documents',
        where: `${where}: n-samples.${task}.effective`,
      };
  if (reported.length > 0) file.reported = reported;
  const model = results.model_name;
  if (typeof model === 'string' && model !== '') file.origin = { ...file.origin, model };
}

/** Whether a JSON object is lm-evaluation-harness's aggregated results: `results` by task, beside `versions`, `configs` or `config`. */
export function isLmEvalResults(record: unknown): record is Record<string, unknown> {
  return (
    isObject(record) &&
    isObject(record.results) &&
    Object.values(record.results).some(isObject) &&
    (isObject(record.versions) || isObject(record.configs) || isObject(record.config))
  );
}

/** The one line for lm-evaluation-harness's aggregated results read as a result file: what they report, and that the rows are its samples. */
export function resultsWithoutSamples(path: string, results: Record<string, unknown>): ResultFileError {
  const byTask = Object.entries(results.results as Record<string, unknown>).filter(([, value]) =>
    isObject(value),
  ) as Array<[string, Record<string, unknown>]>;
  const metrics = byTask.slice(0, 4).map(([task, values]) => {
    const shownValues = Object.entries(values)
      .filter(
        ([key, value]) => !key.includes('_stderr') && typeof value === 'number' && Number.isFinite(value),
      )
      .slice(0, 3)
      .map(([key, value]) => `${key} ${(value as number).toFixed(4)}`);
    return `${task}${shownValues.length > 0 ? ` ${shownValues.join(', ')}` : ''}`;
  });
  const version = typeof results.lm_eval_version === 'string' ? `lm-eval ${results.lm_eval_version}, ` : '';
  const more = byTask.length > 4 ? `; and ${byTask.length - 4} more` : '';
  return fileError(
    path,
    `lm-evaluation-harness results without samples (${version}${byTask.length} task(s): ${metrics.join('; ')}${more}): these are aggregates, and the commands need each document's outcome, which --log_samples writes beside them (samples_<task>_<date>.jsonl)`,
  );
}
