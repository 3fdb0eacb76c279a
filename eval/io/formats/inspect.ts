import { fileError, ResultFileError } from '../errors.ts';
import type { ResultFile, ResultRow } from '../resultFile.ts';
import { gradedCount } from '../scores.ts';
import {
  MAX_TEXT_BYTES,
  MAX_TEXT_LABEL,
  RowBudget,
  type LineReader,
  type RandomAccess,
  type RowLimit,
} from '../source.ts';
import { archiveJson } from '../zip.ts';
import { JsonDocument } from './document.ts';
import { harnessOf, originOf, reportedValues, resultScores } from './inspectHeader.ts';
import { firstFew, idOf, isObject, list, shownJson } from './json.ts';
import { getOrAdd } from '../../../lib/collections.ts';

/**
 * Inspect evaluation logs (inspect_ai, `inspect_ai/log/_log.py`: `EvalLog`, `EvalSample`, `Score`)
 * as `.json` or as the `.eval` zip archive, one row per sample: task = `id`, sample = `epoch - 1`,
 * passed = one scorer's value read as `value_to_float` (`inspect_ai/scorer/_metric.py`) reads it
 * (docs/METRICS.md, "Inspect").
 */

export interface InspectOptions extends RowLimit {
  /** The scorer whose value is the outcome; required when the samples carry several. */
  scorer?: string;
  /** How to read partial credit ("P"); 0.5, as Inspect's accuracy, when absent. */
  partialAs?: 'pass' | 'fail';
}

/** Inspect's key for a legacy single `score` before the scorer's name is known (`_log.py`). */
const SCORER_PLACEHOLDER = '88F74D2C';

/** A score's value as kept: null, a boolean, a number or a short string as it is; anything else as its refusal shows it. */
type KeptScore = null | undefined | boolean | number | string | { unreadable: string };

/** The longest string value kept as it is: every value Inspect reads as a string is short. */
const MAX_SCORE_CHARS = 1000;

function keptScore(score: unknown): KeptScore {
  const value = isObject(score) ? score.value : undefined;
  if (value === undefined || value === null || typeof value === 'boolean' || typeof value === 'number')
    return value;
  if (typeof value === 'string' && value.length <= MAX_SCORE_CHARS) return value;
  if (typeof value === 'string' && FINITE_NUMBER.test(value)) return Number(value);
  return { unreadable: shownJson(value) };
}

/**
 * What the reader keeps of one sample (its messages and events are let go at once): an id or epoch
 * that is not one as a message shows it, its scorers' names (one array shared by the samples that
 * have the same), their values, and its index in `samples` or its archive entry.
 */
interface SampleSummary {
  id: number | string | { shown: string };
  epoch: number | { shown: string };
  scorers: readonly string[];
  values: KeptScore[];
  errored: boolean;
  where: number | string;
}

/** The samples of one log as they are read, each summarised and counted in the budget (a row of its id's and values' characters). */
class Summaries {
  readonly list: SampleSummary[] = [];
  private readonly scorerLists = new Map<string, readonly string[]>();

  constructor(readonly budget: RowBudget) {}

  add(record: Record<string, unknown>, where: number | string): void {
    const { id, epoch } = record;
    const scores = isObject(record.scores)
      ? record.scores
      : isObject(record.score)
        ? { [SCORER_PLACEHOLDER]: record.score }
        : {};
    const names = Object.keys(scores);
    const scorers = getOrAdd(this.scorerLists, names.join('\u0000'), () => names);
    const values = names.map((name) => keptScore(scores[name]));
    const summary: SampleSummary = {
      id: typeof id === 'number' || typeof id === 'string' ? id : { shown: shownJson(id) },
      epoch: typeof epoch === 'number' ? epoch : { shown: shownJson(epoch) },
      scorers,
      values,
      errored: record.error != null,
      where,
    };
    let chars = (typeof summary.id === 'string' ? summary.id.length : 0) + 8 * values.length;
    for (const value of values)
      chars += typeof value === 'string' ? value.length : isObject(value) ? value.unreadable.length : 0;
    this.budget.row(0, chars);
    this.list.push(summary);
  }
}

type Reading = { value: number; partial?: true } | { missing: true } | { refused: string };

/** A string of a decimal number (Inspect's `is_finite_number`, `inspect_ai/_util/text.py`, tries `float`). */
const FINITE_NUMBER = /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i;

/** The strings `value_to_float` reads as 1 or 0 as they are, or (yes, no, true, false) in any case. */
const WORDS = new Map(Object.entries({ C: 1, I: 0, N: 0, yes: 1, true: 1, no: 0, false: 0 }));

const INFINITE =
  'an infinite score (a number past the largest double reads as Infinity), so the mean score is not defined';

/**
 * A score's value as a number, as Inspect's `value_to_float` reads it. An infinite value is
 * refused however it is written (`1e309`, `Infinity`, `"1e309"`): a mean over it is not defined.
 */
function readValue(value: KeptScore, partialAs: 'pass' | 'fail' | undefined): Reading {
  if (value === undefined || value === null) return { missing: true };
  if (typeof value === 'boolean') return { value: value ? 1 : 0 };
  if (value === 'P')
    return partialAs === undefined ? { value: 0.5 } : { value: partialAs === 'pass' ? 1 : 0, partial: true };
  const word = typeof value === 'string' ? (WORDS.get(value) ?? WORDS.get(value.toLowerCase())) : undefined;
  if (word !== undefined) return { value: word };
  if (typeof value === 'number' || (typeof value === 'string' && FINITE_NUMBER.test(value))) {
    const number = Number(value);
    if (Number.isFinite(number)) return { value: number };
    return { refused: `${typeof value === 'string' ? JSON.stringify(value) : value}: ${INFINITE}` };
  }
  const shown = typeof value === 'string' ? JSON.stringify(value) : value.unreadable;
  return {
    refused: `${shown} is not a score Inspect's value_to_float reads (C, P, I, N, a number, yes/no, true/false)`,
  };
}

/** A sample summary checked, ready to be a row: `where` as messages say it, `key` its id as Inspect sorts. */
type CheckedSample = Omit<SampleSummary, 'epoch' | 'where'> & {
  where: string;
  task: string;
  epoch: number;
  key: string;
};

/** One sample's id and epoch checked (refused with where it is), a legacy `score` named for `firstScorer`. */
function checkedSample(sample: SampleSummary, path: string, firstScorer: string | undefined): CheckedSample {
  const { id, epoch } = sample;
  // `samples[3]` or `entry 'samples/3_epoch_1.json'`
  const where = typeof sample.where === 'number' ? `samples[${sample.where}]` : `entry '${sample.where}'`;
  const fail = (field: string, detail: string): never => {
    throw new ResultFileError(path, 0, field, `${where}: ${detail}`);
  };
  const shown = (value: unknown) => (isObject(value) ? (value.shown as string) : JSON.stringify(value));
  const task = idOf(id) ?? fail('id', `expected an integer or a string, got ${shown(id)}`);
  if (typeof epoch !== 'number' || !Number.isSafeInteger(epoch) || epoch < 1)
    fail('epoch', `expected an integer from 1, got ${shown(epoch)}`);
  // a legacy single `score` named for the first scorer of the results; else the array the samples share
  const scorers = sample.scorers.includes(SCORER_PLACEHOLDER)
    ? sample.scorers.map((name) => (name === SCORER_PLACEHOLDER ? (firstScorer ?? 'score') : name))
    : sample.scorers;
  // Inspect's sample order (`sort_samples`): integer ids zero-padded, so that 2 comes before 10
  const key = typeof id === 'number' ? String(id).padStart(20, '0') : String(id);
  return { ...sample, where, task, epoch: epoch as number, scorers, key };
}

/** Refuses a (task, epoch) that two samples share: one sample logged twice, or ids 1 and "1". */
function refuseDuplicates(samples: readonly CheckedSample[], path: string): void {
  const seen = new Map<string, CheckedSample>();
  for (const sample of samples) {
    const key = `${sample.task}\u0000${sample.epoch}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw new ResultFileError(
        path,
        0,
        'id',
        JSON.stringify(first.id) === JSON.stringify(sample.id)
          ? `sample ${JSON.stringify(sample.id)} epoch ${sample.epoch} appears twice (${first.where} and ${sample.where})`
          : `sample ids ${JSON.stringify(first.id)} and ${JSON.stringify(sample.id)} are one task here (task ids are compared as strings); rename one`,
      );
    }
    seen.set(key, sample);
  }
}

/** The scorer of the outcomes (`--scorer`, else the only one), and every scorer of the samples. */
function chosenScorer(
  samples: readonly CheckedSample[],
  path: string,
  requested: string | undefined,
): { scorer: string; names: string[] } {
  const names = [...new Set(samples.flatMap(({ scorers }) => scorers))];
  if (names.length === 0) {
    const errored = samples.filter((sample) => sample.errored).length;
    throw new ResultFileError(
      path,
      0,
      'scores',
      errored === samples.length
        ? `every sample errored (${errored}); nothing was scored`
        : `no sample carries a score (scores are empty or absent on all ${samples.length}); score the log with \`inspect score\` first`,
    );
  }
  if (requested === undefined) {
    if (names.length > 1)
      throw fileError(path, `the samples carry ${names.length} scorers (${list(names)}); pass --scorer NAME`);
    return { scorer: names[0]!, names };
  }
  if (!names.includes(requested))
    throw fileError(path, `--scorer '${requested}': no sample has this scorer (the log's: ${list(names)})`);
  return { scorer: requested, names };
}

/**
 * A row per sample with a value from `scorer` (refusing a value that is no score, or no row at all),
 * and the notes on the samples left out, the partial credit read as pass or fail, and graded scores.
 */
function scorerRows(
  samples: readonly CheckedSample[],
  scorer: string,
  path: string,
  partialAs: InspectOptions['partialAs'],
): { rows: ResultRow[]; notes: string[] } {
  const rows: ResultRow[] = [];
  const errored: string[] = [];
  const unscored: string[] = [];
  let partial = 0;
  for (const sample of samples) {
    const label = `id ${JSON.stringify(sample.id)} epoch ${sample.epoch}`;
    const reading = readValue(sample.values[sample.scorers.lastIndexOf(scorer)], partialAs);
    if ('refused' in reading)
      throw fileError(path, `${sample.where}: scorer '${scorer}' of sample ${label}: ${reading.refused}`);
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
  const graded = gradedCount(rows);
  if (rows.length === 0)
    throw fileError(
      path,
      `no sample has a value from scorer '${scorer}' (${errored.length} errored, ${unscored.length} unscored)`,
    );
  const notes: string[] = [];
  const shown = (labels: string[]) => firstFew(labels, 5, ', ', String);
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
      `${partial} partial-credit score(s) "P" read as ${partialAs} (Inspect's accuracy counts them 0.5)`,
    );
  if (graded > 0)
    notes.push(
      `graded scores: ${graded} of ${rows.length} values are not 0 or 1 (read as Inspect's value_to_float reads them: C 1, P 0.5, I and N 0, numbers as they are), so each row carries its score; --partial-as pass|fail reads P as 0/1`,
    );
  return { rows, notes };
}

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
  const parsed = samples.map((sample) => checkedSample(sample, path, scored[0]?.name));
  parsed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.epoch - b.epoch));
  refuseDuplicates(parsed, path);
  const { scorer, names } = chosenScorer(parsed, path, options.scorer);
  const read = scorerRows(parsed, scorer, path, options.partialAs);
  notes.unshift(
    `outcome: scorer '${scorer}'${names.length > 1 ? ` (the log's scorers: ${list(names)})` : ''}; task = sample id, sample = epoch - 1`,
  );
  notes.push(...read.notes);
  const { reported, unchecked } = reportedValues(log, scored, scorer, samples.length);
  if (unchecked.length > 0)
    notes.push(
      `results.scores['${scorer}'] reports ${firstFew(unchecked, 5, ', ', String)}, not checked against the rows: only accuracy, mean and stderr are recomputed here${reported.length === 0 ? ', and the log reports none of them for this scorer' : ''}`,
    );
  const task = log.eval.task;
  return {
    path,
    format,
    rows: read.rows,
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

/** The members of an `EvalLog` the rows and the file's origin use: the rest (reductions, ...) is let go. */
const LOG_MEMBERS = new Set(['version', 'status', 'eval', 'plan', 'results', 'stats']);

/** An Inspect `.json` log read one member and one sample at a time: each sample summarised and let go. */
export class InspectLog {
  readonly log: Record<string, unknown> = {};
  private readonly summaries: Summaries;
  private notObject: number | undefined;
  readonly budget: RowBudget;

  constructor(
    private readonly path: string,
    private readonly options: InspectOptions = {},
  ) {
    this.budget = new RowBudget(path, options);
    this.summaries = new Summaries(this.budget);
  }

  member(key: string, value: unknown): void {
    if (LOG_MEMBERS.has(key)) this.log[key] = value;
  }

  sample(value: unknown, index: number): void {
    if (!isObject(value)) {
      this.notObject ??= index;
      return;
    }
    this.summaries.add(value, index);
  }

  /** The rows, once the whole log is read. */
  rows(): ResultFile {
    if (!isObject(this.log.eval))
      throw fileError(this.path, 'not an Inspect log (expected a JSON object with eval and samples)');
    if (this.notObject !== undefined)
      throw fileError(this.path, `samples[${this.notObject}]: expected an object`);
    return inspectRows(this.log, this.summaries.list, this.path, 'inspect-json', this.options);
  }
}

/**
 * An Inspect `.json` log over many lines, read by InspectLog, at most MAX_TEXT_BYTES of it (the size
 * it was once parsed whole at); `parsed` is a log written on one line that detection parsed already.
 */
export function inspectJsonReader(
  path: string,
  options: InspectOptions = {},
  parsed?: { line: number; value: unknown },
): LineReader<ResultFile> {
  const log = new InspectLog(path, options);
  const document = new JsonDocument({
    path,
    maxBytes: log.budget.maxBytes,
    each: 'samples',
    member: (key, value) => log.member(key, value),
    element: (value, _line, index) => log.sample(value, index),
  });
  let bytes = 0;
  return {
    line(text, line) {
      if (parsed !== undefined) {
        if (line > parsed.line && text.trim() !== '')
          throw fileError(path, 'not valid JSON (more text after the log)', line);
        return;
      }
      bytes += Buffer.byteLength(text) + 1;
      if (bytes > MAX_TEXT_BYTES) throw tooLargeLog(path);
      document.line(text, line);
    },
    end() {
      if (parsed === undefined) document.end();
      else if (isObject(parsed.value))
        for (const [key, member] of Object.entries(parsed.value)) {
          if (key === 'samples' && Array.isArray(member))
            member.forEach((sample, i) => log.sample(sample, i));
          else log.member(key, member);
        }
      return log.rows();
    },
  };
}

/** The one line for a `.json` log too large to read. */
export const tooLargeLog = (path: string) =>
  fileError(
    path,
    `a JSON document over ${MAX_TEXT_LABEL}, more than one string can hold, so it cannot be parsed whole; write the Inspect log as .eval (inspect log convert --to eval), which is read one sample at a time`,
  );

const SAMPLE_ENTRY = /^samples\/.+_epoch_\d+(\.json|\/sample\.json)$/;

/** An Inspect `.eval` log: the zip archive's header and sample entries, read one entry at a time from `source`. */
export function readInspectArchive(
  source: RandomAccess,
  path: string,
  options: InspectOptions = {},
): ResultFile {
  const budget = new RowBudget(path, options);
  const { byName, read } = archiveJson(source, path, budget.maxBytes);
  const headerName = ['header.json', '_journal/start.json'].find((name) => byName.has(name));
  if (headerName === undefined)
    throw fileError(
      path,
      'a zip archive without header.json or _journal/start.json: not an Inspect .eval log',
    );
  const log = read(headerName);
  if (!isObject(log)) throw fileError(path, `entry '${headerName}': expected a JSON object`);
  const samples = new Summaries(budget);
  for (const name of byName.keys()) {
    if (!SAMPLE_ENTRY.test(name)) continue;
    const record = read(name);
    if (!isObject(record)) throw fileError(path, `entry '${name}': expected a JSON object`);
    samples.add(record, name);
  }
  const file = inspectRows(log, samples.list, path, 'inspect-eval', options);
  if (headerName !== 'header.json')
    (file.notes as string[]).push(
      'no header.json: the evaluation had not finished when the archive was last written; read the samples flushed so far',
    );
  return file;
}
