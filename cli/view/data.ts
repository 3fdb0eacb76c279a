import type { TranscriptTurn } from '../../agent/index.ts';
import { mean, passAtK } from '../../eval/index.ts';
import {
  describeBenchmark,
  groupOutcomes,
  groupScores,
  isGraded,
  type ResultFile,
} from '../../eval/io/index.ts';

/**
 * What the episode viewer shows of a result file, computed here (in Node) and shipped to the
 * page as data: the page only lays it out. Every string in it comes from the file and is
 * untrusted; the page sets them as text, never as markup.
 */
export interface ViewerData {
  /** One file, or two to pair episode by episode (`tinyagent view A --compare B`). */
  files: FileView[];
  /** With two files: how their episodes pair (by task and sample; common random numbers when the env seeds match). */
  pairing: string | null;
  /**
   * Whether the page may ask the viewer's server for one sample's detail as its tool records it
   * (`sample?file=&task=&sample=`, eval/io/formats/detail.ts): true when served, false for a
   * page written to disk with --out, which holds the outcomes only.
   */
  details: boolean;
  /** A folder of logs (`tinyagent view DIR`): the page lists them to open one; `files` is empty then. */
  folder: FolderView | null;
}

/** The result files of a folder, as the readers' detection found them. */
export interface FolderView {
  path: string;
  logs: LogView[];
  /** What was left out of the list (files past the cap, folders too deep). */
  notes: string[];
}

export interface LogView {
  /** The file's path inside the folder. */
  name: string;
  /** The page of the file, relative to the list (`log/3/index.html`), or null when it could not be read. */
  href: string | null;
  format: string | null;
  benchmark: string | null;
  tasks: number;
  rows: number;
  /** Why the readers could not read it (one line), or null. */
  problem: string | null;
}

export interface FileView {
  path: string;
  format: string;
  /** The benchmark the file records, in words, or null. */
  benchmark: string | null;
  /** What the reader chose or left out, and the rows' structural issues (duplicates, gaps). */
  notes: string[];
  /** The harness, one `field: value` pair each (values as JSON). */
  harness: Array<[string, string]>;
  /** The k of pass@k: 1, 5, 10 (those at most the fewest samples of a task) and that fewest, as `metrics`; none for graded scores. */
  ks: number[];
  /** Whether the rows carry graded scores (not all 0 or 1): pass@k is not defined, the mean score is. */
  graded: boolean;
  /** The mean over tasks of each task's mean score, for graded scores; null otherwise. */
  meanScore: number | null;
  /** Mean over tasks of each task's unbiased pass@k, aligned with `ks`. */
  passAtK: number[];
  /** How many rows carry a transcript. */
  transcripts: number;
  /** Whether the rows carry `firstEditOp` (files of `tinyagent eval --out`). */
  hasFirstEditOp: boolean;
  tasks: TaskView[];
}

export interface TaskView {
  task: string;
  /** The task's samples as pass@k counts them (a multi-turn sample by its last turn). */
  samples: number;
  successes: number;
  /** Unbiased pass@k (eval/passAtK.ts), aligned with the file's `ks`. */
  passAtK: number[];
  /** The mean of the task's graded scores; null when the file's scores are 0/1. */
  meanScore: number | null;
  /** Every row of the task, in file order. */
  episodes: EpisodeView[];
}

export interface EpisodeView {
  sample: number;
  turn: number | null;
  run: string | null;
  line: number;
  passed: boolean;
  /** The graded score (Inspect's partial credit 0.5, an f1), or null for a 0/1 outcome. */
  score: number | null;
  /** The env's first edit op ('(none)': never edited), or null when the file does not record one. */
  firstEditOp: string | null;
  /** The row's other fields as the file holds them (values as JSON, long ones clipped). */
  fields: Array<[string, string]>;
  /** The turns, when the row holds a well-formed transcript. */
  transcript: TranscriptTurn[] | null;
  /** Why a `transcript` field is not shown as turns. */
  transcriptProblem: string | null;
  /** The env seed (as JSON), when the file records one: two episodes with the same one saw the same renamed task. */
  envSeed: string | null;
}

/** The longest field value shown, in characters. */
const MAX_FIELD = 2000;

function clipText(text: string): string {
  return text.length > MAX_FIELD ? `${text.slice(0, MAX_FIELD)}... (${text.length} characters)` : text;
}

function jsonText(value: unknown): string {
  return clipText(JSON.stringify(value) ?? String(value));
}

const isWordList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((word) => typeof word === 'string');

/** A row's `transcript` as turns, or why it is not (the file is untrusted: its shape is checked). */
function readTranscript(value: unknown): { turns: TranscriptTurn[] | null; problem: string | null } {
  if (value === undefined) return { turns: null, problem: null };
  if (
    Array.isArray(value) &&
    value.every(
      (turn) =>
        typeof turn === 'object' &&
        turn !== null &&
        isWordList((turn as Record<string, unknown>).observation) &&
        isWordList((turn as Record<string, unknown>).action),
    )
  ) {
    return {
      turns: value.map((turn: TranscriptTurn) => ({ observation: turn.observation, action: turn.action })),
      problem: null,
    };
  }
  return {
    turns: null,
    problem: `not a list of turns ({observation: [words], action: [words]}): ${jsonText(value)}`,
  };
}

function episodeView(row: ResultFile['rows'][number]): EpisodeView {
  const extra = row.extra ?? {};
  const { turns, problem } = readTranscript(extra.transcript);
  const op = extra.firstEditOp;
  return {
    sample: row.sample,
    turn: row.turn ?? null,
    run: row.run ?? null,
    line: row.line,
    passed: row.passed,
    score: row.score ?? null,
    firstEditOp:
      op === undefined ? null : typeof op === 'string' ? op : op === null ? '(none)' : jsonText(op),
    fields: Object.entries(extra)
      .filter(([key]) => key !== 'transcript')
      .map(([key, value]) => [key, jsonText(value)]),
    transcript: turns,
    transcriptProblem: problem,
    envSeed: extra.envSeed === undefined ? null : jsonText(extra.envSeed),
  };
}

/** The ks `tinyagent metrics` reports by default: 1, 5, 10 up to the fewest samples, and that fewest. */
function defaultKs(fewest: number): number[] {
  return [...new Set([...[1, 5, 10].filter((k) => k <= fewest), fewest])];
}

/** The viewer's view of one file read by `readResults`. */
export function fileView(file: ResultFile): FileView {
  const grouped = groupOutcomes(file.rows);
  const fewest = grouped.tasks.reduce((least, { outcomes }) => Math.min(least, outcomes.length), Infinity);
  const graded = isGraded(file.rows);
  const ks = graded ? [] : defaultKs(fewest);
  const rowsByTask = new Map<string, EpisodeView[]>();
  for (const row of file.rows) {
    let episodes = rowsByTask.get(row.task);
    if (episodes === undefined) rowsByTask.set(row.task, (episodes = []));
    episodes.push(episodeView(row));
  }
  const tasks = grouped.tasks.map(({ task, outcomes }): TaskView => {
    const successes = outcomes.reduce((sum, outcome) => sum + outcome, 0);
    return {
      task,
      samples: outcomes.length,
      successes,
      passAtK: ks.map((k) => passAtK(outcomes.length, successes, k)),
      meanScore: null,
      episodes: rowsByTask.get(task) ?? [],
    };
  });
  if (graded) {
    const scores = new Map(groupScores(file.rows).map(({ task, scores }) => [task, mean(scores)]));
    for (const task of tasks) task.meanScore = scores.get(task.task) ?? null;
  }
  const episodes = tasks.flatMap((task) => task.episodes);
  return {
    path: file.path,
    format: file.format,
    benchmark: file.benchmark === undefined ? null : describeBenchmark(file.benchmark),
    notes: [...(file.notes ?? []), ...grouped.issues.map((issue) => issue.message)],
    harness: Object.entries(file.harness ?? {}).map(([key, value]) => [key, jsonText(value)]),
    ks,
    graded,
    meanScore: graded ? mean(tasks.map((task) => task.meanScore!)) : null,
    passAtK: ks.map((_, i) => tasks.reduce((sum, task) => sum + task.passAtK[i]!, 0) / tasks.length),
    transcripts: episodes.filter((episode) => episode.transcript !== null).length,
    hasFirstEditOp: episodes.some((episode) => episode.firstEditOp !== null),
    tasks,
  };
}

/** One line on how the episodes of two files pair: by task and sample index, with or without matching env seeds. */
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
  if (paired === 0) return 'no episode pairs: the files share no task and sample index';
  if (withSeeds === 0) return `${paired} episodes paired by task and sample index (no env seeds recorded)`;
  if (sameSeed === paired)
    return `${paired} episodes paired by task and sample index; common random numbers: the env seeds match on all of them`;
  return `${paired} episodes paired by task and sample index; the env seeds match on ${sameSeed} of the ${withSeeds} that record one, so the others are not the same renamed task`;
}

/** The data of the page: one file, or two whose episodes the page pairs by task and sample (A's tasks, in A's order). */
export function viewerData(
  files: readonly ResultFile[],
  { details = false }: { details?: boolean } = {},
): ViewerData {
  const views = files.map(fileView);
  if (views.length !== 2) return { files: views, pairing: null, details, folder: null };
  const [a, b] = views as [FileView, FileView];
  const inA = new Set(a.tasks.map((task) => task.task));
  const onlyB = b.tasks.filter((task) => !inA.has(task.task)).length;
  const left = onlyB === 0 ? '' : `; ${onlyB} task(s) only in B are not listed`;
  return { files: views, pairing: `${pairingLine(a, b)}${left}`, details, folder: null };
}
