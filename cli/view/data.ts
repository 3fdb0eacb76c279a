import type { TranscriptTurn } from '../../agent/index.ts';
import { DEFAULT_REPLICATES, mean, passAtK } from '../../eval/index.ts';
import {
  batchOf,
  describeBenchmark,
  groupOutcomes,
  groupScores,
  isGraded,
  refuseGraded,
  ResultFileError,
  type Origin,
  type ResultFile,
  type ResultFormat,
} from '../../eval/io/index.ts';
import { compareResults } from '../../eval/report/compare.ts';
import { computeMetrics, meanScoreEstimate, metricsStream } from '../../eval/report/metrics.ts';
import type { Estimate } from '../../eval/report/resample.ts';
import { StatisticsError } from '../../lib/errors.ts';
import { Rng } from '../../lib/rng.ts';
import { defaultKs } from '../commands/metrics.ts';
import { getOrAdd } from '../../lib/collections.ts';

/**
 * What the episode viewer shows of a result file, computed here (in Node) and shipped to the
 * page as data: the page only lays it out. Every string in it comes from the file and is
 * untrusted; the page sets them as text, never as markup.
 */
export interface ViewerData {
  /** One file, or two to pair episode by episode (`tinyagent view A --compare B`). */
  files: FileView[];
  /** With two files: how their episodes pair, and B - A as `tinyagent compare` prints it. */
  pairing: string | null;
  difference: PairedDifference | null;
  /** Whether the page may ask the server for a sample's detail (`sample?file=&task=&sample=`): false with --out. */
  details: boolean;
  /** A folder of logs (`tinyagent view DIR`): the page lists them to open one; `files` is empty then. */
  folder: FolderView | null;
}

/** B - A of two files, in A's task order, as `tinyagent compare A B` computes it with its defaults. */
export interface PairedDifference {
  /** Per task of A: B's pass@1 minus A's, or null when B does not have the task. */
  perTask: Array<number | null>;
  /** The mean difference over the common tasks and its interval (low and high null below 2 tasks, or where every task has the same difference); null when compare refuses the pair. */
  mean: (Estimate & { level: number; commonTasks: number }) | null;
  /** Why there is no difference (graded scores, no common task), one line; null otherwise. */
  problem: string | null;
}

/** The result files of a folder, as the readers' detection found them; notes: what was left out. */
export interface FolderView {
  path: string;
  logs: LogView[];
  notes: string[];
}

export interface LogView {
  /** The path inside the folder. */
  name: string;
  /** The page of the file, relative to the list (`log/3/index.html`), or null when it could not be read. */
  href: string | null;
  format: string | null;
  benchmark: string | null;
  origin: Origin;
  score: { name: 'pass@1' | 'mean score'; value: number } | null;
  /** How many units (`vocabulary.units`) and rows. */
  tasks: number;
  rows: number;
  vocabulary: Vocabulary | null;
  problem: string | null;
}

/**
 * Each tool's own words for what the viewer lists, so that a file reads as its tool shows it:
 * an Inspect log holds samples (by id) run for epochs (numbered from 1), an lm-evaluation-harness
 * file documents (doc_id) scored once each, HumanEval and the project's rows tasks and samples.
 */
export type Vocabulary = ReturnType<typeof words>;

/**
 * `unit`: what the rows group into (the reader's `task`); `repeat`: one row of a unit (the
 * reader's `sample`), null where a unit has one row; `firstRepeat`: the tool's number of the
 * first repeat (1 for Inspect's epochs); `row`: one row.
 */
const words = (unit: string, repeat: string | null, firstRepeat: number, row: string) => ({
  unit,
  units: `${unit}s`,
  repeat,
  firstRepeat,
  row,
  rows: `${row}s`,
});
const TASKS = words('task', 'sample', 0, 'episode');
const INSPECT = words('sample', 'epoch', 1, 'epoch');
export const VOCABULARY: Record<ResultFormat, Vocabulary> = {
  jsonl: TASKS,
  csv: TASKS,
  humaneval: words('task', 'sample', 0, 'sample'),
  'inspect-json': INSPECT,
  'inspect-eval': INSPECT,
  // lm-evaluation-harness logs one sample (a line of samples_*.jsonl) per document and filter
  'lm-eval': words('document', null, 0, 'sample'),
};

export type FileView = ReturnType<typeof fileView>;
export type TaskView = FileView['tasks'][number];
export type EpisodeView = ReturnType<typeof episodeView>;

/** The longest field value shown, in characters. */
const MAX_FIELD = 2000;

function jsonText(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_FIELD ? `${text.slice(0, MAX_FIELD)}... (${text.length} characters)` : text;
}

const isWordList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((word) => typeof word === 'string');

/** A row's `transcript` as turns, or why it is not (the file is untrusted: its shape is checked). */
function readTranscript(value: unknown): { turns: TranscriptTurn[] | null; problem: string | null } {
  if (value === undefined) return { turns: null, problem: null };
  const isTurn = (turn: unknown) =>
    typeof turn === 'object' &&
    turn !== null &&
    isWordList((turn as Record<string, unknown>).observation) &&
    isWordList((turn as Record<string, unknown>).action);
  if (!Array.isArray(value) || !value.every(isTurn))
    return {
      turns: null,
      problem: `not a list of turns ({observation: [words], action: [words]}): ${jsonText(value)}`,
    };
  return {
    turns: value.map((turn: TranscriptTurn) => ({ observation: turn.observation, action: turn.action })),
    problem: null,
  };
}

function episodeView(row: ResultFile['rows'][number]) {
  const extra = row.extra ?? {};
  const { turns, problem } = readTranscript(extra.transcript);
  const op = extra.firstEditOp;
  return {
    sample: row.sample,
    turn: row.turn ?? null,
    run: row.run ?? null,
    line: row.line,
    passed: row.passed,
    /** The graded score (Inspect's partial credit 0.5, an f1), or null for a 0/1 outcome. */
    score: row.score ?? null,
    /** The env's first edit op ('(none)': never edited), or null when the file does not record one. */
    firstEditOp:
      op === undefined ? null : typeof op === 'string' ? op : op === null ? '(none)' : jsonText(op),
    /** The row's other fields as the file holds them (values as JSON, long ones clipped). */
    fields: Object.entries(extra)
      .filter(([key]) => key !== 'transcript')
      .map(([key, value]): [string, string] => [key, jsonText(value)]),
    transcript: turns,
    transcriptProblem: problem,
    /** Two episodes with the same env seed saw the same renamed task. */
    envSeed: extra.envSeed === undefined ? null : jsonText(extra.envSeed),
  };
}

/**
 * The defaults of `tinyagent metrics` and `tinyagent compare` (--level, --reps, --seed 0), and the
 * streams their bootstraps draw from: the viewer's intervals are theirs, number for number.
 */
const LEVEL = 0.95;

/** A file's one number for a list of files: the mean over units of pass@1, or of the mean score when graded. */
export function headlineScore(file: ResultFile): NonNullable<LogView['score']> {
  if (isGraded(file.rows))
    return { name: 'mean score', value: mean(groupScores(file.rows).map(({ scores }) => mean(scores))) };
  return {
    name: 'pass@1',
    value: mean(groupOutcomes(file.rows).tasks.map(({ outcomes }) => mean(outcomes))),
  };
}

/** The viewer's view of one file read by `readResults`. */
export function fileView(file: ResultFile) {
  const grouped = groupOutcomes(file.rows);
  const fewest = grouped.tasks.reduce((least, { outcomes }) => Math.min(least, outcomes.length), Infinity);
  // Graded scores (not all 0 or 1) have no pass@k, a mean score instead.
  const graded = isGraded(file.rows);
  const ks = graded ? [] : defaultKs(fewest);
  const rowsByTask = new Map<string, EpisodeView[]>();
  for (const row of file.rows) getOrAdd(rowsByTask, row.task, () => []).push(episodeView(row));
  const meanScores = graded
    ? new Map(groupScores(file.rows).map(({ task, scores }) => [task, mean(scores)]))
    : undefined;
  const tasks = grouped.tasks.map(({ task, outcomes }) => {
    const successes = outcomes.reduce((sum, outcome) => sum + outcome, 0);
    return {
      task,
      /** The task's samples as pass@k counts them (a multi-turn sample by its last turn). */
      samples: outcomes.length,
      successes,
      passAtK: ks.map((k) => passAtK(outcomes.length, successes, k)),
      meanScore: meanScores?.get(task) ?? null,
      episodes: rowsByTask.get(task) ?? [],
    };
  });
  const bootstrap = { level: LEVEL, reps: DEFAULT_REPLICATES, rng: metricsStream() };
  const scored = graded
    ? meanScoreEstimate(
        tasks.map(({ meanScore }) => meanScore!),
        bootstrap,
      )
    : null;
  const report = graded ? null : computeMetrics(grouped.tasks, { ks, ...bootstrap });
  const episodes = tasks.flatMap((task) => task.episodes);
  return {
    path: file.path,
    format: file.format,
    vocabulary: VOCABULARY[file.format],
    benchmark: file.benchmark === undefined ? null : describeBenchmark(file.benchmark),
    origin: file.origin ?? {},
    /** What the reader chose or left out, and the rows' issues (duplicates, gaps). */
    notes: [...(file.notes ?? []), ...grouped.issues.map((issue) => issue.message)],
    harness: Object.entries(file.harness ?? {}).map(([key, value]): [string, string] => [
      key,
      jsonText(value),
    ]),
    ks,
    graded,
    /** Graded: the mean over tasks of each task's mean score, with its task-level interval. */
    meanScore: scored === null ? null : { estimate: scored.estimate, low: scored.low, high: scored.high },
    /** The mean over tasks of each task's pass@k, as `tinyagent metrics FILE` prints it. */
    passAtK: report === null ? [] : ks.map((k) => report.passAtK[k]!),
    level: LEVEL,
    /** How many rows carry a transcript. */
    transcripts: episodes.filter((episode) => episode.transcript !== null).length,
    hasFirstEditOp: episodes.some((episode) => episode.firstEditOp !== null),
    tasks,
  };
}

/**
 * B - A of two files (A's tasks, in A's order): each task's pass@1 difference, and the mean
 * difference with its paired interval from eval's compareResults, with compare's defaults. A
 * pair compare refuses (graded scores, duplicated rows, several runs, no common task) has the
 * reason instead.
 */
function pairedDifference(
  files: readonly [ResultFile, ResultFile],
  [a, b]: readonly [FileView, FileView],
): PairedDifference {
  try {
    for (const file of files) refuseGraded(file, 'the paired comparison of pass rates');
    const report = compareResults(
      { tasks: batchOf(files[0], undefined), harness: files[0].harness, rows: files[0].rows },
      { tasks: batchOf(files[1], undefined), harness: files[1].harness, rows: files[1].rows },
      { level: LEVEL, reps: DEFAULT_REPLICATES, rng: new Rng(0).fork('compare/bootstrap') },
    );
    const inB = new Map(b.tasks.map((task) => [task.task, task]));
    const perTask = a.tasks.map((task) => {
      const other = inB.get(task.task);
      return other === undefined ? null : other.successes / other.samples - task.successes / task.samples;
    });
    const { estimate, low, high, level } = report.difference;
    return { perTask, mean: { estimate, low, high, level, commonTasks: report.commonTasks }, problem: null };
  } catch (error) {
    if (error instanceof ResultFileError || error instanceof StatisticsError)
      return { perTask: [], mean: null, problem: error.message };
    throw error;
  }
}

/** One line on how the rows of two files pair: by task and sample (in each tool's words), with or without matching env seeds. */
function pairingLine(a: FileView, b: FileView): string {
  const inB = new Map(b.tasks.map((task) => [task.task, task]));
  let paired = 0;
  let withSeeds = 0;
  let sameSeed = 0;
  for (const task of a.tasks) {
    const other = inB.get(task.task);
    if (other === undefined) continue;
    const bySample = new Map(other.episodes.map((episode) => [episode.sample, episode]));
    for (const episode of task.episodes) {
      const partner = bySample.get(episode.sample);
      if (partner === undefined) continue;
      paired += 1;
      if (episode.envSeed === null || partner.envSeed === null) continue;
      withSeeds += 1;
      if (episode.envSeed === partner.envSeed) sameSeed += 1;
    }
  }
  const { unit, repeat, rows } = a.vocabulary;
  const by = `${unit}${repeat === null ? '' : ` and ${repeat}`}`;
  if (paired === 0) return `no pairs: the files share no ${by}`;
  if (withSeeds === 0) return `${paired} ${rows} paired by ${by} (no env seeds recorded)`;
  if (sameSeed === paired)
    return `${paired} ${rows} paired by ${by}; common random numbers: the env seeds match on all of them`;
  return `${paired} ${rows} paired by ${by}; the env seeds match on ${sameSeed} of the ${withSeeds} that record one, so the others are not the same renamed task`;
}

/** The data of the page: one file, or two whose episodes the page pairs by task and sample (A's tasks, in A's order). */
export function viewerData(
  files: readonly ResultFile[],
  { details = false }: { details?: boolean } = {},
): ViewerData {
  const views = files.map(fileView);
  if (views.length !== 2) return { files: views, pairing: null, difference: null, details, folder: null };
  const [a, b] = views as [FileView, FileView];
  const inA = new Set(a.tasks.map((task) => task.task));
  const onlyB = b.tasks.filter((task) => !inA.has(task.task)).length;
  const left = onlyB === 0 ? '' : `; ${onlyB} ${b.vocabulary.units} only in B are not listed`;
  return {
    files: views,
    pairing: `${pairingLine(a, b)}${left}`,
    difference: pairedDifference(files as [ResultFile, ResultFile], [a, b]),
    details,
    folder: null,
  };
}
