import type { ResultRow } from './resultFile.ts';
import { getOrAdd } from '../../lib/collections.ts';
import { firstFew } from './formats/json.ts';

/** One task's samples in generation order (1 passed, 0 failed). */
export interface TaskOutcomes {
  task: string;
  outcomes: Uint8Array;
}

/** A structural problem in the rows, with the evidence to find it. */
interface Issue {
  kind: 'duplicate' | 'gap' | 'uneven' | 'multiple-runs';
  message: string;
  lines: number[];
}

export type GroupedOutcomes = ReturnType<typeof groupOutcomes>;

/** What samplesOf keeps of a sample: its last turn's outcome, and the line of each (run, turn) seen. */
interface SampleSeen {
  turn: number;
  passed: boolean;
  /** The first (run, turn) key seen and its line; a map once there are several. */
  lines: Map<number | string, number> | number;
  firstKey: number | string;
}

/** A sample's (run, turn): a row without `turn` is turn 0, so it collides with an explicit turn 0. */
const turnKey = (row: ResultRow): number | string =>
  row.run === undefined ? (row.turn ?? 0) : `${row.run}\u0000${row.turn ?? 0}`;

/**
 * The runs the rows carry, in order of first appearance, and a 'multiple-runs' issue when no run
 * is chosen and the rows hold several, or give one to only some rows.
 */
function runsOf(rows: readonly ResultRow[], run: string | undefined): { runs: string[]; issues: Issue[] } {
  const runSet = new Set<string>();
  let withoutRunCount = 0;
  const withoutRunLines: number[] = []; // the first ten
  for (const row of rows) {
    if (row.run !== undefined) runSet.add(row.run);
    else if (withoutRunCount++ < 10) withoutRunLines.push(row.line);
  }
  const runs = [...runSet];
  if (run === undefined && runs.length > 1) {
    const message = `the file holds ${runs.length} runs (${runs.join(', ')}); choose one`;
    return { runs, issues: [{ kind: 'multiple-runs', message, lines: [] }] };
  }
  if (run === undefined && runs.length === 1 && withoutRunCount > 0) {
    const message = `${rows.length - withoutRunCount} row(s) carry run '${runs[0]}' and ${withoutRunCount} carry none (first on line ${withoutRunLines[0]}); give every row a run or none, or choose run '${runs[0]}'`;
    return { runs, issues: [{ kind: 'multiple-runs', message, lines: withoutRunLines }] };
  }
  return { runs, issues: [] };
}

/**
 * Each task's samples (tasks and samples in order of first appearance) with the outcome of each
 * sample's last turn, the rows that repeat a (task, sample, run, turn) seen before with the line
 * of the first, and whether any row carries a turn. With `run`, only that run's rows count.
 */
function samplesOf(rows: readonly ResultRow[], run: string | undefined) {
  const byTask = new Map<string, Map<number, SampleSeen>>();
  const duplicates: Array<{ row: ResultRow; firstLine: number }> = [];
  let multiTurn = false;
  for (const row of rows) {
    if (run !== undefined && row.run !== run) continue;
    if (row.turn !== undefined) multiTurn = true;
    const samples = getOrAdd(byTask, row.task, () => new Map());
    const turn = row.turn ?? 0;
    const key = turnKey(row);
    const seen = samples.get(row.sample);
    if (seen === undefined) {
      samples.set(row.sample, { turn, passed: row.passed, lines: row.line, firstKey: key });
      continue;
    }
    const firstLine =
      typeof seen.lines === 'number' ? (seen.firstKey === key ? seen.lines : undefined) : seen.lines.get(key);
    if (firstLine !== undefined) {
      duplicates.push({ row, firstLine });
      continue;
    }
    if (typeof seen.lines === 'number') seen.lines = new Map([[seen.firstKey, seen.lines]]);
    seen.lines.set(key, row.line);
    if (turn > seen.turn) {
      seen.turn = turn;
      seen.passed = row.passed;
    }
  }
  return { byTask, duplicates, multiTurn };
}

/** The 'duplicate' issue listing the repeated rows, if there are any. */
function duplicateIssues(duplicates: ReadonlyArray<{ row: ResultRow; firstLine: number }>): Issue[] {
  if (duplicates.length === 0) return [];
  const shown = firstFew(duplicates, 5, '; ', ({ row: again, firstLine }) => {
    const turn = again.turn !== undefined ? ` turn ${again.turn}` : '';
    return `task '${again.task}' sample ${again.sample}${turn} on lines ${firstLine} and ${again.line}`;
  });
  const message = `${duplicates.length} duplicated row(s): ${shown}`;
  return [{ kind: 'duplicate', message, lines: duplicates.map(({ row }) => row.line) }];
}

/**
 * Each task's 0/1 outcomes in sample-index order, and a 'gap' issue for each task that lacks an
 * index below its highest.
 */
function outcomesOf(byTask: ReadonlyMap<string, ReadonlyMap<number, SampleSeen>>) {
  const tasks: TaskOutcomes[] = [];
  const gaps: Issue[] = [];
  for (const [task, samples] of byTask) {
    const indices = [...samples.keys()];
    if (indices.some((index, i) => i > 0 && index < (indices[i - 1] as number)))
      indices.sort((a, b) => a - b);
    const last = indices[indices.length - 1] as number;
    if (last !== indices.length - 1) {
      const present = new Set(indices);
      const missing: number[] = [];
      for (let i = 0; i <= last && missing.length < 10; i++) if (!present.has(i)) missing.push(i);
      const message = `task '${task}' lacks sample index(es) ${missing.join(', ')} (has ${indices.length}, highest ${last})`;
      gaps.push({ kind: 'gap', message, lines: [] });
    }
    tasks.push({ task, outcomes: Uint8Array.from(indices, (index) => (samples.get(index)?.passed ? 1 : 0)) });
  }
  return { tasks, gaps };
}

/** The 'uneven' issue listing the tasks with fewer samples than the most any task has, if there are any. */
function unevenIssues(tasks: readonly TaskOutcomes[]): Issue[] {
  const most = tasks.reduce((largest, { outcomes }) => Math.max(largest, outcomes.length), 0);
  const short = tasks.filter(({ outcomes }) => outcomes.length < most);
  if (short.length === 0) return [];
  const shown = firstFew(short, 8, ', ', ({ task, outcomes }) => `${task} (${outcomes.length})`);
  const message = `${short.length} task(s) have fewer samples than the others (max ${most}): ${shown}`;
  return [{ kind: 'uneven', message, lines: [] }];
}

/**
 * Groups rows into a per-task 0/1 matrix (samplesOf, outcomesOf). Nothing is dropped silently:
 * duplicated rows, gaps in sample indices and uneven sample counts are listed as issues.
 */
export function groupOutcomes(rows: readonly ResultRow[], { run }: { run?: string } = {}) {
  const { runs, issues: runIssues } = runsOf(rows, run);
  const { byTask, duplicates, multiTurn } = samplesOf(rows, run);
  const { tasks, gaps } = outcomesOf(byTask);
  const issues = [...runIssues, ...duplicateIssues(duplicates), ...gaps, ...unevenIssues(tasks)];
  return { tasks, issues, multiTurn, runs };
}
