import { count } from '../../lib/text.ts';
import { StatisticsError } from '../../lib/errors.ts';
import { groupOutcomes, type GroupedOutcomes, type TaskOutcomes } from '../io/outcomes.ts';
import type { ResultFile } from '../io/resultFile.ts';
import { prefixPassAtK } from '../passAtK.ts';
import { pairedStandardError } from '../paired.ts';
import { GENERATION_FIELD, formatHarnessValue, harnessDifferences } from './harness.ts';
import { multiTurnReport, type MultiTurnReport } from './multiTurn.ts';
import { taskPassAtK, tasksMissingFrom } from './compare.ts';

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
const meanOf = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const fewestSamples = (tasks: readonly TaskOutcomes[]) =>
  tasks.reduce((fewest, { outcomes }) => Math.min(fewest, outcomes.length), Infinity);
/** The first `most` names, `...` marking more. */
const listed = (names: readonly string[], most: number) =>
  `${names.slice(0, most).join(', ')}${names.length > most ? ', ...' : ''}`;

/** Unbiased pass@k per task of the tasks that have at least k samples. */
function perTask(tasks: readonly TaskOutcomes[], k: number): Map<string, number> {
  return new Map(
    tasks
      .filter(({ outcomes }) => outcomes.length >= k)
      .map(({ task, outcomes }) => [task, taskPassAtK(outcomes, k)]),
  );
}

/** Recomputes prefix and unbiased pass@1..n from one batch: both must be monotone. */
function sameBatchEvidence(
  label: string,
  tasks: readonly TaskOutcomes[],
  reported: Record<string, number> | undefined,
): { evidence: string[]; mismatch: boolean } {
  const n = fewestSamples(tasks);
  const ks = [...new Set([1, 2, 5, 10, n].filter((k) => k <= n))];
  const prefix = ks.map((k) => meanOf(tasks.map(({ outcomes }) => prefixPassAtK(outcomes, k))));
  const unbiased = ks.map((k) => meanOf([...perTask(tasks, k).values()]));
  const evidence = [
    `${label}: recomputed from the raw rows over ${count(tasks.length, 'task')}: prefix pass@k ${ks.map((k, i) => `k=${k} ${percent(prefix[i]!)}`).join(', ')}; unbiased ${ks.map((k, i) => `k=${k} ${percent(unbiased[i]!)}`).join(', ')} (monotone by construction)`,
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
function sharedSamples(a: readonly TaskOutcomes[], b: readonly TaskOutcomes[]) {
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

/**
 * The batches of the pass@1 and the pass@k, with the labels the evidence names them by: FILE and
 * FILE2, the first two runs of FILE, or FILE twice (`oneBatch`: the same samples).
 */
function batchesOf(first: ResultFile, second: ResultFile | undefined) {
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
type Batches = ReturnType<typeof batchesOf>;

/** The k of the pass@k: the one asked for, refused above the fewest samples a task has, else that fewest. */
function chooseK(groupB: GroupedOutcomes, label: string, requestedK: number | undefined): number {
  const nB = fewestSamples(groupB.tasks);
  if (requestedK !== undefined && requestedK > nB) {
    const short = groupB.tasks.filter(({ outcomes }) => outcomes.length === nB).map(({ task }) => task);
    throw new StatisticsError(
      `k = ${requestedK} exceeds the samples per task of ${label}: ${short.length === 1 ? 'task' : 'tasks'} ${listed(short, 5)} ${short.length === 1 ? 'has' : 'have'} only ${nB}, and pass@${requestedK} needs at least ${count(requestedK, 'sample')} of every task`,
    );
  }
  return requestedK ?? nB;
}

/** The line for tasks at different positions in the two batches; undefined when the order agrees. */
function orderIssue({ groupA, groupB }: Batches, k: number): string | undefined {
  const namesA = groupA.tasks.map(({ task }) => task);
  const namesB = groupB.tasks.map(({ task }) => task);
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
function dataIssuesOf(batches: Batches, k: number): { issues: string[]; unpaired: number } {
  const { groupA, groupB, labels, oneBatch } = batches;
  const issues = (oneBatch ? [groupA] : [groupA, groupB]).flatMap(({ issues: found }, i) =>
    found.map((issue) => `${labels[i]}: ${issue.kind}: ${issue.message}`),
  );
  const onlyA = tasksMissingFrom(groupA.tasks, groupB.tasks);
  const onlyB = tasksMissingFrom(groupB.tasks, groupA.tasks);
  if (onlyA.length > 0)
    issues.push(
      `tasks only in ${labels[0]}: ${listed(onlyA, 10)} (the two numbers average different task sets)`,
    );
  if (onlyB.length > 0) issues.push(`tasks only in ${labels[1]}: ${listed(onlyB, 10)}`);
  if (!oneBatch) {
    const order = orderIssue(batches, k);
    if (order !== undefined) issues.push(order);
  }
  return { issues, unpaired: onlyA.length + onlyB.length };
}

export interface Finding {
  explanation: 'same-batch' | 'different-runs' | 'different-harness' | 'multi-turn' | 'before-after';
  title: string;
  /** true: the data supports it; false: ruled out; null: cannot tell from the data. */
  supported: boolean | null;
  evidence: string[];
}

/** The before/after checklist: true ticked, false failed, null cannot tell. */
type Checklist = Array<{ item: string; ok: boolean | null; detail: string }>;

/** Finding 1: both numbers from one batch, where an inversion is a bug in aggregation or alignment. */
function sameBatchFinding(
  batches: Batches,
  k: number,
  inverted: boolean,
  reported: Record<string, number> | undefined,
): { finding: Finding; sameBatch: boolean; mismatch: boolean; unpaired: number } {
  const { groupA, groupB, labels, oneBatch } = batches;
  const { issues: dataIssues, unpaired } = dataIssuesOf(batches, k);
  const { shared, agree } = oneBatch ? { shared: 0, agree: 0 } : sharedSamples(groupA.tasks, groupB.tasks);
  const sameBatch = oneBatch || (shared > 0 && agree === shared);
  const label = oneBatch ? labels[0] : `${labels[1]} (batch of the pass@k)`;
  const batch = sameBatchEvidence(label, groupB.tasks, reported);
  const evidence = [
    oneBatch
      ? 'one batch: pass@1 and pass@k come from the same samples'
      : shared > 0
        ? `${agree} of ${shared} shared (task, sample) outcomes agree${sameBatch ? ': the same batch' : ': different samples, so not one batch'}`
        : 'no (task, sample) pairs in common',
    ...batch.evidence,
    ...dataIssues,
  ];
  const finding: Finding = {
    explanation: 'same-batch',
    title: '1. Same batch: an inversion is a bug in aggregation or alignment',
    supported: sameBatch ? inverted || batch.mismatch || dataIssues.length > 0 : dataIssues.length > 0,
    evidence,
  };
  return { finding, sameBatch, mismatch: batch.mismatch, unpaired };
}

/** Finding 2: two different runs, the gap between them weighed against its run-to-run standard error. */
function differentRunsFinding({ groupA, groupB, labels }: Batches, k: number, inverted: boolean): Finding {
  const rates1 = perTask(groupA.tasks, 1);
  const ratesK = perTask(groupB.tasks, k);
  const common = [...rates1.keys()].filter((name) => ratesK.has(name));
  const a1 = common.map((name) => rates1.get(name)!);
  const bk = common.map((name) => ratesK.get(name)!);
  const gap = common.length === 0 ? 0 : meanOf(bk) - meanOf(a1);
  const runToRun = common.length > 1 ? pairedStandardError(a1, bk) : null;
  const z = runToRun !== null && runToRun > 0 ? gap / runToRun : null;
  const withinNoise = z !== null && Math.abs(z) < 2;
  return {
    explanation: 'different-runs',
    title: '2. Different runs: no containment, the inversion may be sampling error',
    supported: inverted ? (runToRun === null ? null : withinNoise) : false,
    evidence: [
      common.length === 0
        ? `pass@${k} (${labels[1]}) and pass@1 (${labels[0]}) share no task: the two numbers average different task sets and cannot be compared task by task`
        : `pass@${k} (${labels[1]}) - pass@1 (${labels[0]}) on ${common.length} common tasks = ${gap >= 0 ? '+' : ''}${gap.toFixed(3)}`,
      runToRun === null
        ? `run-to-run task-level SE: n/a: ${count(common.length, 'common task')}, a standard error needs at least 2`
        : `run-to-run task-level SE of that difference (sd of per-task differences / sqrt N) = ${runToRun.toFixed(3)}, so the gap is ${z === null ? 'n/a (every task differs by the same amount)' : `${z.toFixed(2)} SE`}`,
      runToRun === null
        ? 'cannot tell whether the gap is sampling error'
        : withinNoise
          ? 'within 2 SE: two independent runs this size can invert by chance'
          : 'beyond 2 SE: sampling error alone is an unlikely explanation',
    ],
  };
}

/** How the recorded harnesses differ: the fields, the generation ones, whether both are recorded. */
function compareHarness(first: ResultFile, second: ResultFile | undefined, oneBatch: boolean) {
  const differences = oneBatch ? [] : harnessDifferences(first.harness, second?.harness ?? first.harness);
  const recorded = oneBatch || (first.harness !== undefined && second?.harness !== undefined);
  const generation = differences.filter(({ field }) => GENERATION_FIELD.test(field));
  return { differences, generation, recorded };
}
type HarnessComparison = ReturnType<typeof compareHarness>;

/** Finding 3: two harnesses, that is two decoding policies, behind the two numbers. */
function harnessFinding(
  { differences, recorded }: HarnessComparison,
  first: ResultFile,
  { labels, oneBatch }: Batches,
): Finding {
  return {
    explanation: 'different-harness',
    title: '3. Different harness: two decoding policies, not pass@1 vs pass@k of one',
    supported: oneBatch ? false : !recorded ? null : differences.length > 0,
    evidence: oneBatch
      ? ['one batch shares one harness']
      : !recorded
        ? [
            `harness not recorded for ${first.harness === undefined ? labels[0] : labels[1]}: record it (header line or FILE.harness.json) to rule this out`,
          ]
        : differences.length === 0
          ? ['the recorded harnesses agree field by field']
          : differences.map(
              ({ field, a, b }) =>
                `${field}: ${formatHarnessValue(a)} vs ${formatHarnessValue(b)}${GENERATION_FIELD.test(field) ? '  <- changes the generation policy' : ''}`,
            ),
  };
}

/** The multi-turn views of the batches whose rows carry `turn`, by label. */
function multiTurnViews(
  first: ResultFile,
  second: ResultFile | undefined,
  { groupA, groupB, labels, oneBatch }: Batches,
): Record<string, MultiTurnReport> {
  const multiTurn: Record<string, MultiTurnReport> = {};
  if (groupA.multiTurn) multiTurn[labels[0]] = multiTurnReport(first.rows);
  if (!oneBatch && groupB.multiTurn && second !== undefined)
    multiTurn[labels[1]] = multiTurnReport(second.rows);
  return multiTurn;
}

/** The evidence lines of one multi-turn view: per-turn accuracy, success by turn, first failures. */
function turnEvidence(label: string, view: MultiTurnReport): string[] {
  return [
    `${label}: ${view.conversations} conversations; per-turn accuracy ${view.perTurn.map(({ turn, passed, stillGoing }) => `t${turn + 1} ${passed}/${stillGoing}`).join(', ')} (denominator: conversations still going at that turn)`,
    `${label}: whole-conversation success ${percent(view.wholeConversation)}; succeeded by turn k ${view.succeededByTurn.map((value, i) => `k=${(view.perTurn[i]?.turn ?? i) + 1} ${percent(value)}`).join(', ')} (monotone); final answer ${percent(view.finalAnswer)} (not monotone: ${view.brokenLater === 1 ? '1 conversation was' : `${view.brokenLater} conversations were`} right at some turn and ended wrong)`,
    `${label}: first failure at turn ${Object.entries(view.firstFailure)
      .map(([turn, count]) => `${turn === 'none' ? 'never' : Number(turn) + 1}: ${count}`)
      .join(', ')}`,
  ];
}

/** Finding 4: turns of one conversation counted as independent attempts. */
function multiTurnFinding(multiTurn: Record<string, MultiTurnReport>): Finding {
  const evidence = Object.entries(multiTurn).flatMap(([label, view]) => turnEvidence(label, view));
  return {
    explanation: 'multi-turn',
    title: '4. Multi-turn: ten turns of one conversation are not ten attempts',
    supported: evidence.length > 0,
    evidence: evidence.length > 0 ? evidence : ['no `turn` field: every sample is a fresh attempt'],
  };
}

/** The checklist for a regression claim: recomputed, one generation setting, paired by task, intervals. */
function beforeAfterChecklist(
  { differences, generation, recorded }: HarnessComparison,
  first: ResultFile,
  oneBatch: boolean,
  unpaired: number,
): Checklist {
  const sameGreedy =
    first.harness !== undefined &&
    !differences.some(({ field }) => /greedy|do_?sample|temperature/i.test(field));
  return [
    {
      item: 'recomputed from raw samples',
      ok: true,
      detail: 'every number above is recomputed from the rows',
    },
    {
      item: 'same greedy / sampling setting for both',
      ok: oneBatch ? true : recorded ? sameGreedy : null,
      detail: recorded
        ? generation.length === 0
          ? 'no generation field differs'
          : `differs: ${generation.map(({ field }) => field).join(', ')}`
        : 'harness not recorded',
    },
    {
      item: 'paired by task id',
      ok: unpaired === 0,
      detail: `${count(unpaired, 'task')} in only one result`,
    },
    {
      item: 'task-level intervals',
      ok: null,
      detail: 'run `tinyagent compare A B` for the paired difference with its task-level interval',
    },
  ];
}

/** Finding 5: the before/after checklist, ticked, as evidence. */
function beforeAfterFinding(checklist: Checklist): Finding {
  return {
    explanation: 'before-after',
    title: '5. Before/after: same greedy and sampled settings for both checkpoints, paired by task',
    supported: null,
    evidence: checklist.map(
      ({ item, ok, detail }) => `[${ok === true ? 'x' : ok === false ? ' ' : '?'}] ${item}: ${detail}`,
    ),
  };
}

/** The one-sentence conclusion: no inversion, or the explanations (1-4) the data supports. */
function conclusionOf(
  findings: readonly Finding[],
  numbers: { passAt1: number; passAtK: number; k: number; inverted: boolean },
): string {
  const supported = findings.filter(
    ({ supported: value, explanation }) => value === true && explanation !== 'before-after',
  );
  return !numbers.inverted && supported.length === 0
    ? `no inversion: pass@${numbers.k} ${percent(numbers.passAtK)} >= pass@1 ${percent(numbers.passAt1)}`
    : supported.length === 0
      ? 'inverted, and no explanation is supported by the data: record the harness of both results and rerun paired on the same tasks'
      : `${numbers.inverted ? 'inverted' : 'not inverted, but'}: the data supports ${supported.map(({ title }) => title.split(':')[0]).join(' and ')}`;
}

/**
 * The pass@k-inversion diagnosis of METRICS.md: given one batch (FILE) or the pass@1 source and
 * the pass@k source (FILE, FILE2), says which explanation the data supports, with evidence.
 * `reportedMismatch` is whether a `reported` number disagrees with the raw rows (or names a k
 * above the samples per task): a failed check.
 */
export function diagnose(
  first: ResultFile,
  second: ResultFile | undefined,
  { k: requestedK, reported }: { k?: number; reported?: Record<string, number> } = {},
) {
  const batches = batchesOf(first, second);
  const { groupA, groupB, labels, oneBatch } = batches;
  const k = chooseK(groupB, labels[1], requestedK);
  const passAt1 = meanOf([...perTask(groupA.tasks, 1).values()]);
  const passAtKValue = meanOf([...perTask(groupB.tasks, k).values()]);
  const numbers = { passAt1, passAtK: passAtKValue, k, inverted: passAtKValue < passAt1 };
  const same = sameBatchFinding(batches, k, numbers.inverted, reported);
  const harness = compareHarness(first, second, oneBatch);
  const multiTurn = multiTurnViews(first, second, batches);
  const checklist = beforeAfterChecklist(harness, first, oneBatch, same.unpaired);
  const findings = [
    same.finding,
    ...(oneBatch || same.sameBatch ? [] : [differentRunsFinding(batches, k, numbers.inverted)]),
    harnessFinding(harness, first, batches),
    multiTurnFinding(multiTurn),
    beforeAfterFinding(checklist),
  ];
  return {
    sources: oneBatch ? [labels[0]] : labels,
    numbers,
    findings,
    checklist,
    conclusion: conclusionOf(findings, numbers),
    reportedMismatch: same.mismatch,
    ...(Object.keys(multiTurn).length > 0 ? { multiTurn } : {}),
  };
}

export type DiagnosisReport = ReturnType<typeof diagnose>;
