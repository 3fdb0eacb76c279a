import { count } from '../../lib/text.ts';
import { StatisticsError } from '../../lib/errors.ts';
import { groupOutcomes, type GroupedOutcomes, type TaskOutcomes } from '../io/outcomes.ts';
import type { ResultFile } from '../io/resultFile.ts';
import { passAtK, prefixPassAtK } from '../passAtK.ts';

/**
 * The two batches a diagnosis (diagnose.ts) compares and what their rows show: per-task pass@k,
 * the rows' issues, tasks in only one batch or in another order, and the samples they share.
 */

const successes = (outcomes: Uint8Array) => outcomes.reduce((sum, value) => sum + value, 0);
export const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
export const meanOf = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** Unbiased pass@k per task of the tasks that have at least k samples. */
export function perTask(tasks: readonly TaskOutcomes[], k: number): Map<string, number> {
  return new Map(
    tasks
      .filter(({ outcomes }) => outcomes.length >= k)
      .map(({ task, outcomes }) => [task, passAtK(outcomes.length, successes(outcomes), k)]),
  );
}

/** One evidence line per issue groupOutcomes found in a batch. */
function issueEvidence(label: string, grouped: GroupedOutcomes): string[] {
  return grouped.issues.map((issue) => `${label}: ${issue.kind}: ${issue.message}`);
}

/** Recomputes prefix and unbiased pass@1..n from one batch: both must be monotone. */
export function sameBatchEvidence(
  label: string,
  tasks: readonly TaskOutcomes[],
  reported: Record<string, number> | undefined,
): { evidence: string[]; mismatch: boolean } {
  const n = tasks.reduce((fewest, { outcomes }) => Math.min(fewest, outcomes.length), Infinity);
  const ks = [...new Set([1, 2, 5, 10, n].filter((k) => k <= n))];
  const prefix = ks.map((k) => meanOf(tasks.map(({ outcomes }) => prefixPassAtK(outcomes, k))));
  const unbiased = ks.map((k) => meanOf([...perTask(tasks, k).values()]));
  const evidence = [
    `${label}: recomputed from the raw rows over ${count(tasks.length, 'task')}: prefix pass@k ${ks.map((k, i) => `k=${k} ${percent(prefix[i] as number)}`).join(', ')}; unbiased ${ks.map((k, i) => `k=${k} ${percent(unbiased[i] as number)}`).join(', ')} (monotone by construction)`,
  ];
  let mismatch = false;
  for (const [key, value] of Object.entries(reported ?? {})) {
    const k = Number(key);
    if (k > n) {
      evidence.push(
        `reported pass@${k} = ${percent(value)} but tasks have only ${count(n, 'sample')}: k > n cannot come from this batch`,
      );
      mismatch = true;
      continue;
    }
    const recomputed = meanOf([...perTask(tasks, k).values()]);
    const off = Math.abs(recomputed - value) > 0.005;
    mismatch ||= off;
    evidence.push(
      `reported pass@${k} = ${percent(value)} vs recomputed ${percent(recomputed)}${off ? '  <- MISMATCH: the aggregation or the task alignment that produced the report is wrong' : ' (agrees)'}`,
    );
  }
  return { evidence, mismatch };
}

/** Rows of two batches that agree on every shared (task, sample) come from the same batch. */
export function sharedSamples(
  a: readonly TaskOutcomes[],
  b: readonly TaskOutcomes[],
): { shared: number; agree: number } {
  const byTask = new Map(b.map((task) => [task.task, task.outcomes]));
  let shared = 0;
  let agree = 0;
  for (const { task, outcomes } of a) {
    const other = byTask.get(task);
    if (other === undefined) continue;
    for (let i = 0; i < Math.min(outcomes.length, other.length); i++) {
      shared++;
      if (outcomes[i] === other[i]) agree++;
    }
  }
  return { shared, agree };
}

/** The two batches a diagnosis compares, with the labels its evidence names them by. */
export interface Batches {
  groupA: GroupedOutcomes;
  groupB: GroupedOutcomes;
  labels: [string, string];
  /** pass@1 and pass@k come from the same samples (groupB is groupA). */
  oneBatch: boolean;
}

/** The batches of the pass@1 and the pass@k: FILE and FILE2, the first two runs of FILE, or FILE twice. */
export function batchesOf(first: ResultFile, second: ResultFile | undefined): Batches {
  let groupA = groupOutcomes(first.rows);
  let groupB: GroupedOutcomes;
  let labels: [string, string] = [first.path, second?.path ?? first.path];
  if (second !== undefined) groupB = groupOutcomes(second.rows);
  else if (groupA.runs.length > 1) {
    const [runA, runB] = groupA.runs as [string, string];
    groupB = groupOutcomes(first.rows, { run: runB });
    groupA = groupOutcomes(first.rows, { run: runA });
    labels = [`${first.path} run ${runA}`, `${first.path} run ${runB}`];
  } else groupB = groupA;
  return { groupA, groupB, labels, oneBatch: groupB === groupA };
}

/** The k of the pass@k: the one asked for, refused above the fewest samples a task has, else that fewest. */
export function chooseK(groupB: GroupedOutcomes, label: string, requestedK: number | undefined): number {
  const nB = groupB.tasks.reduce((fewest, { outcomes }) => Math.min(fewest, outcomes.length), Infinity);
  if (requestedK !== undefined && requestedK > nB) {
    const short = groupB.tasks.filter(({ outcomes }) => outcomes.length === nB).map(({ task }) => task);
    throw new StatisticsError(
      `k = ${requestedK} exceeds the samples per task of ${label}: ${short.length === 1 ? 'task' : 'tasks'} ${short.slice(0, 5).join(', ')}${short.length > 5 ? ', ...' : ''} ${short.length === 1 ? 'has' : 'have'} only ${nB}, and pass@${requestedK} needs at least ${count(requestedK, 'sample')} of every task`,
    );
  }
  return requestedK ?? nB;
}

/** The line for tasks at different positions in the two batches; undefined when the order agrees. */
function orderIssue(
  { groupA, groupB }: Batches,
  namesA: readonly string[],
  namesB: readonly string[],
  k: number,
): string | undefined {
  const misplaced = namesA.filter((name, i) => namesB[i] !== undefined && namesB[i] !== name).length;
  if (misplaced === 0) return undefined;
  const byIdA = perTask(groupA.tasks, 1);
  const byIdB = perTask(groupB.tasks, k);
  let impossible = 0;
  namesA.forEach((name, i) => {
    const other = namesB[i];
    if (other !== undefined && (byIdA.get(name) ?? 0) > 0 && byIdB.get(other) === 0) impossible++;
  });
  return `task order differs at ${misplaced} of ${Math.min(namesA.length, namesB.length)} positions: anything that aligns the two by position pairs different tasks${impossible > 0 ? ` (aligned by position, ${count(impossible, 'task')} would pass at k=1 and fail at k=${k})` : ''}`;
}

/** The rows' issues, tasks in only one batch and a differing task order; the count of unpaired tasks. */
export function dataIssuesOf(batches: Batches, k: number): { issues: string[]; unpaired: number } {
  const { groupA, groupB, labels, oneBatch } = batches;
  const issues = [...issueEvidence(labels[0], groupA), ...(oneBatch ? [] : issueEvidence(labels[1], groupB))];
  const namesA = groupA.tasks.map(({ task }) => task);
  const namesB = groupB.tasks.map(({ task }) => task);
  const setA = new Set(namesA);
  const setB = new Set(namesB);
  const onlyA = namesA.filter((name) => !setB.has(name));
  const onlyB = namesB.filter((name) => !setA.has(name));
  if (onlyA.length > 0)
    issues.push(
      `tasks only in ${labels[0]}: ${onlyA.slice(0, 10).join(', ')}${onlyA.length > 10 ? ', ...' : ''} (the two numbers average different task sets)`,
    );
  if (onlyB.length > 0)
    issues.push(
      `tasks only in ${labels[1]}: ${onlyB.slice(0, 10).join(', ')}${onlyB.length > 10 ? ', ...' : ''}`,
    );
  if (!oneBatch) {
    const order = orderIssue(batches, namesA, namesB, k);
    if (order !== undefined) issues.push(order);
  }
  return { issues, unpaired: onlyA.length + onlyB.length };
}
