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

/** A row without `turn` is turn 0 of its sample, so it collides with an explicit turn 0. */
function rowKey(row: ResultRow): string {
  return JSON.stringify([row.run ?? null, row.task, row.sample, row.turn ?? 0]);
}

/**
 * Groups rows into a per-task 0/1 matrix in sample order. Nothing is dropped silently: duplicated
 * (task, sample[, turn]) rows keep their first occurrence and are listed with their lines, gaps in
 * sample indices and uneven sample counts are listed too. With `run`, only that run's rows count.
 * For multi-turn rows the sample's outcome is its last turn's `passed` (the final answer); a row
 * without `turn` counts as turn 0. Task ids are compared as strings (the reader makes them so).
 */
export function groupOutcomes(rows: readonly ResultRow[], { run }: { run?: string } = {}): GroupedOutcomes {
  const runs = [
    ...new Set(rows.map((row) => row.run).filter((value): value is string => value !== undefined)),
  ];
  const issues: Issue[] = [];
  const withoutRun = rows.filter((row) => row.run === undefined);
  if (run === undefined && runs.length > 1) {
    issues.push({
      kind: 'multiple-runs',
      message: `the file holds ${runs.length} runs (${runs.join(', ')}); choose one`,
      tasks: [],
      lines: [],
    });
  } else if (run === undefined && runs.length === 1 && withoutRun.length > 0) {
    issues.push({
      kind: 'multiple-runs',
      message: `${rows.length - withoutRun.length} row(s) carry run '${runs[0]}' and ${withoutRun.length} carry none (first on line ${withoutRun[0]?.line}); give every row a run or none, or choose run '${runs[0]}'`,
      tasks: [],
      lines: withoutRun.slice(0, 10).map(({ line }) => line),
    });
  }
  const chosen = run === undefined ? rows : rows.filter((row) => row.run === run);
  const seen = new Map<string, ResultRow>();
  const duplicates: Array<[ResultRow, ResultRow]> = [];
  const byTask = new Map<string, Map<number, { turn: number; passed: boolean }>>();
  const multiTurn = chosen.some((row) => row.turn !== undefined);
  for (const row of chosen) {
    const key = rowKey(row);
    const first = seen.get(key);
    if (first !== undefined) {
      duplicates.push([first, row]);
      continue;
    }
    seen.set(key, row);
    let samples = byTask.get(row.task);
    if (samples === undefined) byTask.set(row.task, (samples = new Map()));
    const turn = row.turn ?? 0;
    const previous = samples.get(row.sample);
    if (previous === undefined || turn > previous.turn) samples.set(row.sample, { turn, passed: row.passed });
  }
  if (duplicates.length > 0) {
    const shown = duplicates
      .slice(0, 5)
      .map(
        ([first, again]) =>
          `task '${again.task}' sample ${again.sample}${again.turn !== undefined ? ` turn ${again.turn}` : ''} on lines ${first.line} and ${again.line}`,
      );
    issues.push({
      kind: 'duplicate',
      message: `${duplicates.length} duplicated row(s): ${shown.join('; ')}${duplicates.length > 5 ? '; ...' : ''}`,
      tasks: [...new Set(duplicates.map(([, again]) => again.task))],
      lines: duplicates.map(([, again]) => again.line),
    });
  }
  const tasks: TaskOutcomes[] = [];
  for (const [task, samples] of byTask) {
    const indices = [...samples.keys()].sort((a, b) => a - b);
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
