import type { ResultRow } from './resultFile.ts';

/** One task's samples in generation order (1 passed, 0 failed). */
export interface TaskOutcomes {
  task: string;
  outcomes: Uint8Array;
}

export type IssueKind = 'duplicate' | 'gap' | 'uneven' | 'multiple-runs';

/** A structural problem in the rows, with the evidence to find it. */
export interface Issue {
  kind: IssueKind;
  message: string;
  tasks: string[];
  lines: number[];
}

export interface GroupedOutcomes {
  /** Tasks in order of first appearance in the file. */
  tasks: TaskOutcomes[];
  issues: Issue[];
  /** True when rows carry `turn`: each sample's outcome is then its last turn (final answer). */
  multiTurn: boolean;
  runs: string[];
}

/** What groupOutcomes keeps of a sample: its last turn's outcome, and the line of each (run, turn) seen. */
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
 * Groups rows into a per-task 0/1 matrix in sample order. Nothing is dropped silently: duplicated
 * (task, sample[, turn]) rows keep their first occurrence and are listed with their lines, gaps in
 * sample indices and uneven sample counts are listed too. With `run`, only that run's rows count.
 * For multi-turn rows the sample's outcome is its last turn's `passed` (the final answer); a row
 * without `turn` counts as turn 0. Task ids are compared as strings (the reader makes them so).
 */
export function groupOutcomes(rows: readonly ResultRow[], { run }: { run?: string } = {}): GroupedOutcomes {
  const runSet = new Set<string>();
  let withoutRunCount = 0;
  let firstWithoutRun: number | undefined;
  for (const row of rows) {
    if (row.run !== undefined) runSet.add(row.run);
    else {
      withoutRunCount++;
      firstWithoutRun ??= row.line;
    }
  }
  const runs = [...runSet];
  const issues: Issue[] = [];
  if (run === undefined && runs.length > 1) {
    issues.push({
      kind: 'multiple-runs',
      message: `the file holds ${runs.length} runs (${runs.join(', ')}); choose one`,
      tasks: [],
      lines: [],
    });
  } else if (run === undefined && runs.length === 1 && withoutRunCount > 0) {
    issues.push({
      kind: 'multiple-runs',
      message: `${rows.length - withoutRunCount} row(s) carry run '${runs[0]}' and ${withoutRunCount} carry none (first on line ${firstWithoutRun}); give every row a run or none, or choose run '${runs[0]}'`,
      tasks: [],
      lines: rows
        .filter((row) => row.run === undefined)
        .slice(0, 10)
        .map(({ line }) => line),
    });
  }
  const byTask = new Map<string, Map<number, SampleSeen>>();
  const duplicates: Array<{ row: ResultRow; firstLine: number }> = [];
  let multiTurn = false;
  for (const row of rows) {
    if (run !== undefined && row.run !== run) continue;
    if (row.turn !== undefined) multiTurn = true;
    let samples = byTask.get(row.task);
    if (samples === undefined) byTask.set(row.task, (samples = new Map()));
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
  if (duplicates.length > 0) {
    const shown = duplicates
      .slice(0, 5)
      .map(
        ({ row: again, firstLine }) =>
          `task '${again.task}' sample ${again.sample}${again.turn !== undefined ? ` turn ${again.turn}` : ''} on lines ${firstLine} and ${again.line}`,
      );
    issues.push({
      kind: 'duplicate',
      message: `${duplicates.length} duplicated row(s): ${shown.join('; ')}${duplicates.length > 5 ? '; ...' : ''}`,
      tasks: [...new Set(duplicates.map(({ row }) => row.task))],
      lines: duplicates.map(({ row }) => row.line),
    });
  }
  const tasks: TaskOutcomes[] = [];
  for (const [task, samples] of byTask) {
    const indices = [...samples.keys()];
    if (indices.some((index, i) => i > 0 && index < (indices[i - 1] as number)))
      indices.sort((a, b) => a - b);
    const last = indices[indices.length - 1] as number;
    if (last !== indices.length - 1) {
      const present = new Set(indices);
      const missing: number[] = [];
      for (let i = 0; i <= last && missing.length < 10; i++) if (!present.has(i)) missing.push(i);
      issues.push({
        kind: 'gap',
        message: `task '${task}' lacks sample index(es) ${missing.join(', ')} (has ${indices.length}, highest ${last})`,
        tasks: [task],
        lines: [],
      });
    }
    tasks.push({ task, outcomes: Uint8Array.from(indices, (index) => (samples.get(index)?.passed ? 1 : 0)) });
  }
  const sizes = tasks.map(({ outcomes }) => outcomes.length);
  const most = sizes.reduce((a, b) => Math.max(a, b), 0);
  const short = tasks.filter(({ outcomes }) => outcomes.length < most);
  if (short.length > 0) {
    issues.push({
      kind: 'uneven',
      message: `${short.length} task(s) have fewer samples than the others (max ${most}): ${short
        .slice(0, 8)
        .map(({ task, outcomes }) => `${task} (${outcomes.length})`)
        .join(', ')}${short.length > 8 ? ', ...' : ''}`,
      tasks: short.map(({ task }) => task),
      lines: [],
    });
  }
  return { tasks, issues, multiTurn, runs };
}
