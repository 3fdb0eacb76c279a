import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ResultFileError } from '../errors.ts';
import { readBytes, type ReportedValue, type ResultFile, type ResultRow } from '../resultFile.ts';
import { checkRowCount, type LineReader, type RowLimit } from '../source.ts';
import { idOf, isObject, jsonLine, list, mixedFormat, parsePythonJson } from './json.ts';

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

/** What one line keeps of a logged sample once read: its document, filter and metric values. */
interface SampleLine {
  line: number;
  doc: unknown;
  filter: unknown;
  names: string[];
  values: Record<string, unknown>;
  repeats: number;
}

/**
 * Metrics whose value is a list pooled across documents by lm-evaluation-harness: IFEval's
 * `inst_level_*_acc` hold one bool per instruction of the prompt, and its `agg_inst_level_acc`
 * (lm_eval/tasks/ifeval/utils.py) is the mean of all instructions of all documents pooled.
 */
const POOLED_LIST = /^inst_level_/;

/** The lines of the chosen filter: every line when the file has one filter (or records none). */
function linesOfFilter(
  records: SampleLine[],
  path: string,
  filter: string | undefined,
): { lines: SampleLine[]; filter: string | undefined } {
  const filters = [
    ...new Set(
      records.map((record) => record.filter).filter((value): value is string => typeof value === 'string'),
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
  const lines = records.filter((record) => record.filter === filter);
  if (lines.length === 0)
    throw new ResultFileError(
      path,
      0,
      undefined,
      `--filter '${filter}': no line has this filter (the file's: ${list(filters)})`,
    );
  return { lines, filter };
}

interface SamplesRead {
  file: ResultFile;
  metric: string;
  filter: string | undefined;
  /** The documents the chosen lines hold. */
  documents: number;
}

/** The rows of lm-evaluation-harness sample lines (see lmEvalReader) with the metric and filter chosen. */
function samplesOf(records: SampleLine[], path: string, options: LmEvalOptions): SamplesRead {
  if (records.length === 0) throw new ResultFileError(path, 0, undefined, 'no result rows');
  const { lines, filter } = linesOfFilter(records, path, options.filter);
  const names = [...new Set(lines.flatMap(({ names: lineNames }) => lineNames))];
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
  const chosen = metric;
  const rows: ResultRow[] = [];
  let repeats = 1;
  let pooled = false;
  const documents = new Set<string>();
  for (const { line, doc, values, names: lineNames, repeats: lineRepeats } of lines) {
    const fail = (field: string, detail: string): never => {
      throw new ResultFileError(path, line, field, detail);
    };
    const task = idOf(doc) ?? fail('doc_id', `expected an integer or a string, got ${JSON.stringify(doc)}`);
    documents.add(task);
    if (!(chosen in values)) fail(chosen, `missing (this line's metrics: ${list(lineNames) || 'none'})`);
    const value = values[chosen];
    const notBinary = (shown: unknown): never =>
      fail(
        chosen,
        `${JSON.stringify(shown)} is not 0 or 1: each instruction's outcome must be 0/1${names.length > 1 ? ` (this file's metrics: ${list(names)}); pass --metric NAME` : ''}`,
      );
    if (Array.isArray(value)) {
      if (!POOLED_LIST.test(chosen))
        fail(
          chosen,
          `a list (${JSON.stringify(value).slice(0, 40)}), not one value per document: lm-evaluation-harness aggregates such a list with the task's own function, which this reader does not know (it reads IFEval's inst_level_* lists, pooled as agg_inst_level_acc pools them); choose a metric with one 0/1 per document with --metric`,
        );
      const bad = value.find((item) => !binary(item));
      if (value.length === 0 || bad !== undefined) notBinary(value.length === 0 ? value : bad);
      pooled = true;
      value.forEach((item, instruction) => {
        checkRowCount(path, line, rows.length, options);
        rows.push({ task: `${task}:${instruction}`, sample: 0, passed: item === 1 || item === true, line });
      });
    } else {
      const score = typeof value === 'boolean' ? Number(value) : value;
      if (typeof score !== 'number' || !Number.isFinite(score))
        fail(
          chosen,
          `${JSON.stringify(value)} is not a number: a metric's value per document is a number (0/1, or a graded score such as f1)`,
        );
      rows.push({ task, sample: 0, passed: score === 1, score: score as number, line });
    }
    repeats = Math.max(repeats, lineRepeats);
  }
  const graded = rows.filter((row) => row.score !== undefined && row.score !== 0 && row.score !== 1).length;
  if (graded === 0) for (const row of rows) delete row.score;
  const notes = [
    `outcome: '${chosen}'${filter === undefined ? '' : ` under filter '${filter}'`}, one line per document (doc_id)`,
  ];
  if (graded > 0)
    notes.push(
      `graded scores: '${chosen}' is not 0 or 1 on ${graded} of ${rows.length} documents, so each row carries its score`,
    );
  if (pooled)
    notes.push(
      `'${chosen}' holds one outcome per instruction of each prompt: each instruction is one task here (doc_id:index), so the mean accuracy is the mean over all instructions pooled, as lm-evaluation-harness's agg_inst_level_acc computes it; the instructions of one prompt share its response, so an interval over them is narrower than one over documents (prompt_level_* metrics give one outcome per document)`,
    );
  notes.push(
    repeats > 1
      ? `only one sample per task: the file holds up to ${repeats} responses per document (repeats) but lm-evaluation-harness records one '${chosen}' per document, after the filter has reduced them to one answer; pass@k for k > 1 and the spread within a task need each response's outcome`
      : `only one sample per task: lm-evaluation-harness scores each document once; pass@k for k > 1 and the spread within a task need several samples per task`,
  );
  return {
    file: { path, format: 'lm-eval', rows, notes },
    metric: chosen,
    filter,
    documents: documents.size,
  };
}

/**
 * The harness and the reported value of one task from the run's aggregated results, the JSON
 * file the harness writes beside the samples: `samples_<task>_<date>.jsonl` has
 * `results_<date>.json` (or `<name>_<date>.json` when --output_path named a file).
 */
function runResults(
  results: unknown,
  task: string,
  read: SamplesRead,
  where: string,
): Pick<ResultFile, 'harness' | 'reported'> {
  const { metric, filter, documents } = read;
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
  if (typeof value !== 'number') return { harness };
  const reported: ReportedValue[] = [{ name: metric, value, where: `${where}: results.${task}['${key}']` }];
  // the standard error beside it (lm_eval/api/metrics.py, mean_stderr for a mean): `<metric>_stderr,<filter>`
  const stderrKey = `${metric}_stderr,${filter ?? 'none'}`;
  const stderr =
    isObject(results.results) && isObject(results.results[task])
      ? results.results[task][stderrKey]
      : undefined;
  if (typeof stderr === 'number')
    reported.push({
      name: `${metric}_stderr`,
      value: stderr,
      where: `${where}: results.${task}['${stderrKey}']`,
      statistic: 'stderr',
    });
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
  return { harness, reported };
}

const SAMPLES_NAME = /^samples_(.+)_(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.jsonl(?:\.gz)?$/;

/**
 * lm-evaluation-harness `--log_samples` output, `samples_<task>_<date>.jsonl` (0.4.3 on; one line
 * per document and filter, written by `EvaluationTracker.save_results_samples` from the `example`
 * built in `lm_eval/evaluator.py`), read one line at a time, keeping only each line's document,
 * filter and metric values:
 *
 * - task: `doc_id` (the document's index in the task's split, read as its digits);
 * - passed: the chosen metric's value, which must be 0 or 1 (`exact_match`, `acc`, `acc_norm`, ...;
 *   true/false too): `--metric` when the line lists several (`metrics`), `--filter` when the
 *   document was scored under several filters (`filter`, e.g. `strict-match` and
 *   `flexible-extract`);
 * - sample: 0. The harness scores a document once, after its filter has reduced the `repeats`
 *   responses (`resps`) to one answer, so the file holds one outcome per document. IFEval's
 *   `inst_level_*` lists (one bool per instruction) are read as lm-evaluation-harness pools them:
 *   each instruction is one task, `doc_id:index`. Any other list is refused: how the harness
 *   aggregates it is the task's own function.
 *
 * The benchmark is the task of the file name. When the run's aggregated results are beside the
 * samples, the harness (model, its arguments, few-shot, generation settings, repeats, seeds,
 * versions), the reported value of the chosen metric, and the documents it counts are taken from
 * there.
 * @throws ResultFileError naming the line and field, or the flag to pass when the file is ambiguous.
 */
export function lmEvalReader(path: string, options: LmEvalOptions = {}): LineReader<ResultFile> {
  const records: SampleLine[] = [];
  let firstLine: number | undefined;
  return {
    line(text, line) {
      const record = jsonLine(text, line, path);
      if (record === undefined) return;
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
      checkRowCount(path, line, records.length, options);
      const names = metricNames(record);
      const values: Record<string, unknown> = {};
      for (const name of names) if (name in record) values[name] = record[name];
      records.push({
        line,
        doc: record.doc_id,
        filter: record.filter,
        names,
        values,
        repeats: responsesPerDocument(record),
      });
    },
    end: () => withRunResults(samplesOf(records, path, options), path),
  };
}

/** The file's benchmark (the task of its name) and what the run's results file beside it adds. */
function withRunResults(read: SamplesRead, path: string): ResultFile {
  const { file } = read;
  const name = SAMPLES_NAME.exec(basename(path));
  if (name === null) {
    // renamed: the task is not known, the tool still is (its doc_ids are its own numbering)
    file.benchmark = { tool: 'lm-evaluation-harness' };
    return file;
  }
  const [, task, date] = name as unknown as [string, string, string];
  // the name's date with its time's dashes as colons: 2026-08-20T10-15-02.318204 -> 2026-08-20T10:15:02.318204
  file.origin = { date: date.replace(/T(\d{2})-(\d{2})-(\d{2})/, 'T$1:$2:$3') };
  file.benchmark = {
    tool: 'lm-evaluation-harness',
    name: task,
    source: 'the file name samples_<task>_<date>',
  };
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
  const run = runResults(results, task, read, sibling);
  if (run.harness !== undefined) {
    file.harness = run.harness;
    file.harnessSource = 'log';
  }
  const model = isObject(results) ? results.model_name : undefined;
  if (typeof model === 'string' && model !== '') file.origin = { ...file.origin, model };
  if (run.reported !== undefined) file.reported = run.reported;
  (file.notes as string[]).push(
    `harness${run.reported !== undefined ? ' and reported value' : ''} from ${sibling} (task '${task}')`,
  );
  return file;
}
