import { DEFAULT_REPLICATES } from '../bootstrap.ts';
import { perTaskBootstrapCI } from '../clusterBootstrap.ts';
import type { RandomSource } from '../random.ts';
import { ResultFileError } from '../io/errors.ts';
import type { ResultRow } from '../io/resultFile.ts';
import type { TaskOutcomes } from '../io/outcomes.ts';
import { getOrAdd } from '../../lib/collections.ts';

const MAX_LISTED = 10;
/** How a `selected` field may say yes or no. */
const YES: unknown[] = [true, 'true', 1, '1'];
const NO: unknown[] = [false, 'false', 0, '0'];

/**
 * Selected accuracy: when a selector picks one final answer per task among its candidates, the
 * share of tasks whose picked answer is correct, with its task-level bootstrap interval (null
 * below 2 tasks; where every pick scored alike, the exact interval over the tasks, `method`
 * 'exact over tasks', as `perTaskBootstrapCI` gives it). It is not pass@k: pass@n asks whether a
 * correct candidate exists, selected accuracy whether the selector found it (the pass@k note,
 * "若系统还要用一个排序器挑出最终答案，需要另外评测'被选中的答案是否正确'"). `coverage` is pass@n on
 * the same candidates, `gap` = coverage - selected accuracy, `lost` the tasks the selector lost.
 *
 * From the rows' `selected` field (true on the one sample picked for its task); undefined when no
 * row carries one. A ResultFileError names a task without exactly one selected sample, or a
 * `selected` that is not a boolean.
 *
 * @example the pass@k note's four tasks with a selector that picks A's 2nd, B's 2nd, C's 1st and
 *   D's 1st candidate: selected accuracy 0.5 against pass@10 0.75 (samples/blog-selected.jsonl)
 */
export function selectedAccuracy(
  file: { path: string; rows: readonly ResultRow[] },
  tasks: readonly TaskOutcomes[],
  { level = 0.95, reps = DEFAULT_REPLICATES, rng }: { level?: number; reps?: number; rng: RandomSource },
) {
  const picks = new Map<string, Array<{ sample: number; passed: boolean; line: number }>>();
  let any = false;
  for (const row of file.rows) {
    const value = row.extra?.['selected'];
    if (value === undefined) continue;
    any = true;
    const selected = YES.includes(value);
    if (!selected && !NO.includes(value))
      throw new ResultFileError(
        file.path,
        row.line,
        'selected',
        `expected true or false, got ${JSON.stringify(value)}`,
      );
    if (!selected) continue;
    const list = getOrAdd(picks, row.task, () => []);
    // One sample's turns share its selection: a sample counts once (its last row's).
    const at = list.findIndex((pick) => pick.sample === row.sample);
    list[at < 0 ? list.length : at] = { sample: row.sample, passed: row.passed, line: row.line };
  }
  if (!any) return undefined;
  const outcomes: number[] = [];
  const lost: string[] = [];
  let covered = 0;
  for (const { task, outcomes: taskOutcomes } of tasks) {
    const list = picks.get(task) ?? [];
    if (list.length !== 1)
      throw new ResultFileError(
        file.path,
        list[1]?.line ?? 0,
        'selected',
        `task '${task}' has ${list.length} selected samples${list.length > 1 ? ` (lines ${list.map((pick) => pick.line).join(', ')})` : ''}; a selector picks one answer per task`,
      );
    const hasCorrect = taskOutcomes.some((outcome) => outcome === 1);
    if (hasCorrect) covered += 1;
    const passed = list[0]!.passed;
    outcomes.push(passed ? 1 : 0);
    if (hasCorrect && !passed) lost.push(task);
  }
  const estimate = outcomes.reduce((sum, value) => sum + value, 0) / outcomes.length;
  const interval = outcomes.length >= 2 ? perTaskBootstrapCI(outcomes, { reps, level, rng }) : undefined;
  const coverage = covered / tasks.length;
  return {
    estimate,
    low: interval?.low ?? null,
    high: interval?.high ?? null,
    ...(interval?.method === 'exact over tasks' ? { method: interval.method } : {}),
    coverage,
    gap: coverage - estimate,
    lost: lost.slice(0, MAX_LISTED),
    lostCount: lost.length,
  };
}

export type SelectedAccuracy = NonNullable<ReturnType<typeof selectedAccuracy>>;
