import { ResultFileError } from '../errors.ts';
import type { Origin, ReportedValue, ResultFile, ResultRow } from '../resultFile.ts';
import {
  checkRowCount,
  MAX_TEXT_BYTES,
  MAX_TEXT_LABEL,
  type LineReader,
  type RandomAccess,
  type RowLimit,
} from '../source.ts';
import { entryBytes, zipEntries, type ZipEntry } from '../zip.ts';
import { idOf, isObject, jsonErrorWhere, list, parsePythonJson } from './json.ts';

/**
 * Inspect evaluation logs (UKGovernmentBEIS/inspect_ai, `inspect_ai/log/_log.py`: `EvalLog`,
 * `EvalSample`, `Score`), both as Inspect writes them:
 *
 * - `.json`: one `EvalLog` object with its `samples`;
 * - `.eval`: a zip archive (`inspect_ai/log/_recorders/eval.py`) holding `header.json` (the
 *   `EvalLog` without samples; `_journal/start.json` until the evaluation finishes) and one entry
 *   per sample, `samples/<id>_epoch_<epoch>.json` (or, chunked, `samples/<id>_epoch_<epoch>/sample.json`).
 *   Entries are deflated (Inspect before 0.3.206) or zstd-compressed (0.3.206 on); a name written
 *   twice (a sample logged again) is read from its last entry, as Inspect does.
 *
 * Each sample is a row:
 * - task: the sample's `id` (an integer or a string, compared as a string: ids 1 and "1" in one
 *   log are refused, as they would be one task here);
 * - sample: `epoch - 1` (epochs count from 1);
 * - passed: the value of one scorer in `scores`: `--scorer NAME`, required when the samples carry
 *   several, read as Inspect's `value_to_float` reads it (`inspect_ai/scorer/_metric.py`): "C"
 *   1, "P" (partial credit) 0.5, "I" and "N" (no answer) 0, true/false and numbers as numbers,
 *   strings "yes"/"true" 1 and "no"/"false" 0 (any case), a string of a finite number as that
 *   number. When every value is 0 or 1 the rows are pass/fail; otherwise every row carries its
 *   `score` (graded: pass@k is not defined, the mean score is). `partialAs` reads "P" as pass or
 *   fail instead. A list, a dict or another string is refused (Inspect warns and counts it 0).
 *
 * Samples that errored (`error`) or that the scorer left unscored (no value, or NaN) have no
 * outcome and are left out, as Inspect's metrics leave them out; a note counts them.
 */

export interface InspectOptions extends RowLimit {
  /** The scorer whose value is the outcome; required when the samples carry several. */
  scorer?: string;
  /** How to read partial credit ("P"); 0.5, as Inspect's accuracy, when absent. */
  partialAs?: 'pass' | 'fail';
}

/** Inspect's key for a legacy single `score` before the scorer's name is known (`_log.py`). */
const SCORER_PLACEHOLDER = '88F74D2C';

/**
 * What the reader keeps of one sample once it is read: its id, epoch, scores and whether it
 * errored. A sample's messages and events (most of a log) are let go at once, so that memory
 * follows the largest sample, not the log.
 */
interface SampleSummary {
  id: unknown;
  epoch: unknown;
  /** The sample's `scores`, or its legacy single `score`. */
  scores: unknown;
  score: unknown;
  errored: boolean;
  /** Where the sample is, for messages: `samples[3]` or an archive entry's name. */
  where: string;
}

const summaryOf = (record: Record<string, unknown>, where: string): SampleSummary => ({
  id: record.id,
  epoch: record.epoch,
  scores: record.scores,
  score: record.score,
  errored: record.error != null,
  where,
});

/** The harness fields of an `EvalSpec` and `EvalPlan`: what generated the samples. */
function harnessOf(log: Record<string, unknown>): Record<string, unknown> {
  const spec = log.eval as Record<string, unknown>;
  const config = isObject(spec.config) ? spec.config : {};
  const harness: Record<string, unknown> = { tool: 'inspect_ai' };
  const packages = isObject(spec.packages) ? spec.packages : {};
  if (packages.inspect_ai !== undefined) harness.version = packages.inspect_ai;
  for (const key of ['task', 'task_version', 'model', 'model_base_url', 'solver'])
    if (spec[key] !== undefined && spec[key] !== null) harness[key] = spec[key];
  for (const key of ['model_generate_config', 'model_args', 'task_args', 'solver_args'])
    if (isObject(spec[key]) && Object.keys(spec[key]).length > 0) harness[key] = spec[key];
  if (isObject(spec.dataset) && spec.dataset.name != null) harness.dataset = spec.dataset.name;
  if (isObject(spec.revision) && spec.revision.commit != null) harness.revision = spec.revision.commit;
  for (const key of [
    'epochs',
    'epochs_reducer',
    'limit',
    'message_limit',
    'token_limit',
    'time_limit',
    'working_limit',
  ])
    if (config[key] !== undefined && config[key] !== null) harness[key] = config[key];
  if (isObject(log.plan)) {
    const steps = Array.isArray(log.plan.steps)
      ? log.plan.steps
          .map((step) => (isObject(step) ? step.solver : undefined))
          .filter((name) => name !== undefined)
      : [];
    if (steps.length > 0) harness.plan = steps;
    if (isObject(log.plan.config) && Object.keys(log.plan.config).length > 0)
      harness.plan_config = log.plan.config;
  }
  return harness;
}

/** The log's model, date (`stats.completed_at`, else `eval.created`) and status, where they are text. */
function originOf(log: Record<string, unknown>): Origin {
  const spec = log.eval as Record<string, unknown>;
  const completed = isObject(log.stats) ? log.stats.completed_at : undefined;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const date = text(completed) ?? text(spec.created);
  const [model, status] = [text(spec.model), text(log.status)];
  return {
    ...(model === undefined ? {} : { model }),
    ...(date === undefined ? {} : { date }),
    ...(status === undefined ? {} : { status }),
  };
}

/** `results.scores` (or the legacy `results.scorer` with `results.metrics`) as [name, metrics, reducer]. */
function resultScores(
  log: Record<string, unknown>,
): Array<{ name: string; metrics: Record<string, unknown>; reducer: unknown }> {
  const results = log.results;
  if (!isObject(results)) return [];
  if (Array.isArray(results.scores)) {
    return results.scores.filter(isObject).map((score) => ({
      name: String(score.name),
      metrics: isObject(score.metrics) ? score.metrics : {},
      reducer: score.reducer,
    }));
  }
  if (isObject(results.scorer))
    return [
      {
        name: String(results.scorer.name),
        metrics: isObject(results.metrics) ? results.metrics : {},
        reducer: undefined,
      },
    ];
  return [];
}

/** A sample's scores by scorer name; a legacy single `score` goes to the first scorer of the results. */
function scoresOf(sample: SampleSummary, firstScorer: string | undefined): Record<string, unknown> {
  const scores: Record<string, unknown> = isObject(sample.scores)
    ? { ...sample.scores }
    : isObject(sample.score)
      ? { [SCORER_PLACEHOLDER]: sample.score }
      : {};
  if (SCORER_PLACEHOLDER in scores) {
    scores[firstScorer ?? 'score'] = scores[SCORER_PLACEHOLDER];
    delete scores[SCORER_PLACEHOLDER];
  }
  return scores;
}

type Reading = { value: number; partial?: true } | { missing: true } | { refused: string };

/** A string of a finite decimal number (Inspect's `is_finite_number`, `inspect_ai/_util/text.py`, tries `float`). */
const FINITE_NUMBER = /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i;

/** A score's value as a number, as Inspect's `value_to_float` reads it (see the module comment). */
function readValue(score: unknown, partialAs: 'pass' | 'fail' | undefined): Reading {
  const value = isObject(score) ? score.value : undefined;
  if (value === undefined || value === null) return { missing: true };
  if (typeof value === 'boolean') return { value: value ? 1 : 0 };
  if (typeof value === 'number') return Number.isFinite(value) ? { value } : { missing: true };
  if (value === 'C') return { value: 1 };
  if (value === 'I' || value === 'N') return { value: 0 };
  if (value === 'P')
    return partialAs === undefined ? { value: 0.5 } : { value: partialAs === 'pass' ? 1 : 0, partial: true };
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    if (lower === 'yes' || lower === 'true') return { value: 1 };
    if (lower === 'no' || lower === 'false') return { value: 0 };
    if (FINITE_NUMBER.test(value)) return { value: Number(value) };
  }
  return {
    refused: `${JSON.stringify(value)} is not a score Inspect's value_to_float reads (C, P, I, N, a number, yes/no, true/false)`,
  };
}

/** Inspect's sample order (`sort_samples`): integer ids zero-padded, so that 2 comes before 10. */
const sortKey = (id: unknown) => (typeof id === 'number' ? String(id).padStart(20, '0') : String(id));

/** The rows of an Inspect log from its header and its samples (shared by `.json` and `.eval`). */
function inspectRows(
  log: Record<string, unknown>,
  samples: SampleSummary[],
  path: string,
  format: 'inspect-json' | 'inspect-eval',
  options: InspectOptions,
): ResultFile {
  if (!isObject(log.eval)) throw new ResultFileError(path, 0, 'eval', 'missing: not an Inspect log');
  const scored = resultScores(log);
  const notes: string[] = [];
  if (log.status !== undefined && log.status !== 'success')
    notes.push(
      `the log's status is '${String(log.status)}': it holds the ${samples.length} samples written before the evaluation stopped`,
    );
  if (samples.length === 0)
    throw new ResultFileError(
      path,
      0,
      'samples',
      'none in this log (it was written without samples, or stopped before any finished)',
    );
  const parsed = samples.map((sample) => {
    const { id, epoch, where } = sample;
    const fail = (field: string, detail: string): never => {
      throw new ResultFileError(path, 0, field, `${where}: ${detail}`);
    };
    const task = idOf(id) ?? fail('id', `expected an integer or a string, got ${JSON.stringify(id)}`);
    if (typeof epoch !== 'number' || !Number.isSafeInteger(epoch) || epoch < 1)
      fail('epoch', `expected an integer from 1, got ${JSON.stringify(epoch)}`);
    return {
      id,
      errored: sample.errored,
      where,
      task,
      epoch: epoch as number,
      scores: scoresOf(sample, scored[0]?.name),
      key: sortKey(id),
    };
  });
  parsed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.epoch - b.epoch));
  const seen = new Map<string, (typeof parsed)[number]>();
  for (const sample of parsed) {
    const key = `${sample.task}\u0000${sample.epoch}`;
    const first = seen.get(key);
    if (first !== undefined) {
      const same = JSON.stringify(first.id) === JSON.stringify(sample.id);
      throw new ResultFileError(
        path,
        0,
        'id',
        same
          ? `sample ${JSON.stringify(sample.id)} epoch ${sample.epoch} appears twice (${first.where} and ${sample.where})`
          : `sample ids ${JSON.stringify(first.id)} and ${JSON.stringify(sample.id)} are one task here (task ids are compared as strings); rename one`,
      );
    }
    seen.set(key, sample);
  }
  const names = [...new Set(parsed.flatMap(({ scores }) => Object.keys(scores)))];
  if (names.length === 0) {
    const errored = parsed.filter((sample) => sample.errored).length;
    throw new ResultFileError(
      path,
      0,
      'scores',
      errored === parsed.length
        ? `every sample errored (${errored}); nothing was scored`
        : `no sample carries a score (scores are empty or absent on all ${parsed.length}); score the log with \`inspect score\` first`,
    );
  }
  let scorer = options.scorer;
  if (scorer === undefined) {
    if (names.length > 1)
      throw new ResultFileError(
        path,
        0,
        undefined,
        `the samples carry ${names.length} scorers (${list(names)}); pass --scorer NAME`,
      );
    scorer = names[0] as string;
  } else if (!names.includes(scorer))
    throw new ResultFileError(
      path,
      0,
      undefined,
      `--scorer '${scorer}': no sample has this scorer (the log's: ${list(names)})`,
    );
  const rows: ResultRow[] = [];
  const errored: string[] = [];
  const unscored: string[] = [];
  let partial = 0;
  for (const sample of parsed) {
    const label = `id ${JSON.stringify(sample.id)} epoch ${sample.epoch}`;
    const reading = readValue(sample.scores[scorer], options.partialAs);
    if ('refused' in reading)
      throw new ResultFileError(
        path,
        0,
        undefined,
        `${sample.where}: scorer '${scorer}' of sample ${label}: ${reading.refused}`,
      );
    if ('missing' in reading) {
      if (sample.errored) errored.push(label);
      else unscored.push(label);
      continue;
    }
    if (reading.partial === true) partial++;
    rows.push({
      task: sample.task,
      sample: sample.epoch - 1,
      passed: reading.value === 1,
      score: reading.value,
      line: rows.length + 1,
      extra: { id: sample.id, epoch: sample.epoch },
    });
  }
  const graded = rows.filter((row) => row.score !== 0 && row.score !== 1);
  if (graded.length === 0) for (const row of rows) delete row.score;
  if (rows.length === 0)
    throw new ResultFileError(
      path,
      0,
      undefined,
      `no sample has a value from scorer '${scorer}' (${errored.length} errored, ${unscored.length} unscored)`,
    );
  notes.unshift(
    `outcome: scorer '${scorer}'${names.length > 1 ? ` (the log's scorers: ${list(names)})` : ''}; task = sample id, sample = epoch - 1`,
  );
  const shown = (labels: string[]) => `${labels.slice(0, 5).join(', ')}${labels.length > 5 ? ', ...' : ''}`;
  if (errored.length > 0)
    notes.push(
      `${errored.length} sample(s) errored and have no score, left out as in Inspect's metrics: ${shown(errored)}`,
    );
  if (unscored.length > 0)
    notes.push(
      `${unscored.length} sample(s) have no value from scorer '${scorer}' (unscored), left out as in Inspect's metrics: ${shown(unscored)}`,
    );
  if (partial > 0)
    notes.push(
      `${partial} partial-credit score(s) "P" read as ${options.partialAs} (Inspect's accuracy counts them 0.5)`,
    );
  if (graded.length > 0)
    notes.push(
      `graded scores: ${graded.length} of ${rows.length} values are not 0 or 1 (read as Inspect's value_to_float reads them: C 1, P 0.5, I and N 0, numbers as they are), so each row carries its score; --partial-as pass|fail reads P as 0/1`,
    );
  // results.total_samples (dataset samples x epochs): fewer sample records than that means the
  // log holds part of its run (trimmed, or written with --log-samples off for some), so the
  // reported value is over samples the rows do not have
  const total = isObject(log.results) ? log.results.total_samples : undefined;
  const coverage =
    typeof total === 'number' && Number.isSafeInteger(total) && samples.length < total
      ? { held: samples.length, counted: total, unit: 'samples' as const, where: 'results.total_samples' }
      : undefined;
  const reported: ReportedValue[] = [];
  for (const score of scored.filter(({ name }) => name === scorer)) {
    for (const [name, metric] of Object.entries(score.metrics)) {
      // accuracy and mean are the mean of the values; stderr (inspect_ai/scorer/_metrics/std.py) its standard error
      const statistic =
        name === 'stderr' ? 'stderr' : name === 'accuracy' || name === 'mean' ? 'mean' : undefined;
      if (isObject(metric) && typeof metric.value === 'number' && statistic !== undefined) {
        reported.push({
          name,
          value: metric.value,
          where: `results.scores['${scorer}'].metrics.${name}${typeof score.reducer === 'string' ? ` (epochs reduced by ${score.reducer})` : ''}`,
          ...(statistic === 'stderr' ? { statistic } : {}),
          ...(coverage === undefined ? {} : { coverage }),
        });
      }
    }
  }
  const task = log.eval.task;
  return {
    path,
    format,
    rows,
    harness: harnessOf(log),
    harnessSource: 'log',
    notes,
    ...(reported.length > 0 ? { reported } : {}),
    benchmark:
      typeof task === 'string' && task !== ''
        ? { tool: 'Inspect', name: task, source: 'eval.task' }
        : { tool: 'Inspect' },
    origin: originOf(log),
  };
}

/** Parses JSON text as Inspect writes it (NaN for an unscored value); `where` names it in errors. */
function parseJson(text: string, path: string, where: string): unknown {
  try {
    return parsePythonJson(text);
  } catch (error) {
    throw new ResultFileError(path, 0, undefined, `${where}not valid JSON (${jsonErrorWhere(error, text)})`);
  }
}

/**
 * An Inspect `.json` log: one `EvalLog` object, which has to be parsed whole, so it is read as a
 * text of at most MAX_TEXT_BYTES (an `.eval` log is read one sample at a time instead). `parsed`
 * is the value of a log written on one line that detection parsed already.
 */
export function inspectJsonReader(
  path: string,
  options: InspectOptions = {},
  parsed?: { line: number; value: unknown },
): LineReader<ResultFile> {
  const lines: string[] = [];
  let bytes = 0;
  return {
    line(text, line) {
      if (parsed !== undefined) {
        if (line > parsed.line && text.trim() !== '')
          throw new ResultFileError(path, line, undefined, 'not valid JSON (more text after the log)');
        return;
      }
      bytes += Buffer.byteLength(text) + 1;
      if (bytes > MAX_TEXT_BYTES) throw tooLargeLog(path);
      lines.push(text);
    },
    end: () =>
      parsedInspectJson(
        parsed !== undefined ? parsed.value : parseJson(lines.join('\n'), path, ''),
        path,
        options,
      ),
  };
}

/** The one line for a `.json` log too large to parse whole. */
export const tooLargeLog = (path: string) =>
  new ResultFileError(
    path,
    0,
    undefined,
    `a JSON document over ${MAX_TEXT_LABEL}, more than one string can hold, so it cannot be parsed whole; write the Inspect log as .eval (inspect log convert --to eval), which is read one sample at a time`,
  );

/** An Inspect `.json` log already parsed (by parsePythonJson). */
export function parsedInspectJson(log: unknown, path: string, options: InspectOptions = {}): ResultFile {
  if (!isObject(log) || !isObject(log.eval))
    throw new ResultFileError(
      path,
      0,
      undefined,
      'not an Inspect log (expected a JSON object with eval and samples)',
    );
  const samples = Array.isArray(log.samples) ? log.samples : [];
  const summaries = samples.map((record, i): SampleSummary => {
    checkRowCount(path, 0, i, options);
    if (!isObject(record)) throw new ResultFileError(path, 0, undefined, `samples[${i}]: expected an object`);
    return summaryOf(record, `samples[${i}]`);
  });
  return inspectRows(log, summaries, path, 'inspect-json', options);
}

const SAMPLE_ENTRY = /^samples\/.+_epoch_\d+(\.json|\/sample\.json)$/;

/**
 * An Inspect `.eval` log: the zip archive's header and sample entries, read one entry at a time
 * from `source` (an open file, or a buffer), each sample let go once summarised.
 */
export function readInspectArchive(
  source: RandomAccess,
  path: string,
  options: InspectOptions = {},
): ResultFile {
  const entries = zipEntries(source, path);
  // a name written twice (a sample logged again) is read from its last entry, as Inspect does
  const byName = new Map<string, ZipEntry>(entries.map((entry) => [entry.name, entry]));
  const read = (name: string) => {
    const entry = byName.get(name) as ZipEntry;
    return parseJson(entryBytes(source, entry, path).toString('utf8'), path, `entry '${name}': `);
  };
  const headerName = byName.has('header.json')
    ? 'header.json'
    : byName.has('_journal/start.json')
      ? '_journal/start.json'
      : undefined;
  if (headerName === undefined)
    throw new ResultFileError(
      path,
      0,
      undefined,
      'a zip archive without header.json or _journal/start.json: not an Inspect .eval log',
    );
  const log = read(headerName);
  if (!isObject(log))
    throw new ResultFileError(path, 0, undefined, `entry '${headerName}': expected a JSON object`);
  const samples: SampleSummary[] = [];
  for (const name of byName.keys()) {
    if (!SAMPLE_ENTRY.test(name)) continue;
    const record = read(name);
    if (!isObject(record))
      throw new ResultFileError(path, 0, undefined, `entry '${name}': expected a JSON object`);
    checkRowCount(path, 0, samples.length, options);
    samples.push(summaryOf(record, `entry '${name}'`));
  }
  const file = inspectRows(log, samples, path, 'inspect-eval', options);
  if (headerName !== 'header.json')
    (file.notes as string[]).push(
      'no header.json: the evaluation had not finished when the archive was last written; read the samples flushed so far',
    );
  return file;
}
