/**
 * The report of 17.7 (experiments/17.7.ts): pass@k of three checkpoints against the blind guess,
 * the tasks that narrow (Figure 17.3), each beside the book.
 */
import { passAtK } from '../../eval/index.ts';
import type { Numbers177 as Numbers } from '../../analysis/index.ts';
import { bandPanelsSvg, type BandPanel } from '../figures.ts';
import {
  interval,
  markdownTable,
  oursAgainstBook,
  pct,
  section,
  subsection,
  table,
  topOps,
  type Report,
} from '../markdown.ts';

type Agent = Numbers['agents'][number];
type Narrowing = Numbers['narrowing'][number];

const BOOK = {
  k1Lead: 0.7,
  k16: '0.958 (step 80) vs 0.941 (base)',
  k32: 'base overtakes: 0.998 vs 0.988',
  step20: 'at or above both at every k',
  band: "step 80's task-level band covers the base agent's curve at k >= 16",
  speed: 'speed 10/64 (base), 13/64 (step 20), 3/64 (step 80); step 80 first edit fix_comparison 59 of 64',
  speedPassAt32: "speed: step 80 about 0.88, the base agent's essentially 1",
};
/** The k of the book's per-task comparison: the crossing of its mean curves. */
const TASK_K = 32;

interface Context {
  run: string;
  episodes: number;
  /** The checkpoints compared: the base agent's step, an early one, the trained one. */
  agents: readonly number[];
}

/**
 * Figure 17.3: left the mean pass@k curves with their bands, right the narrowing task that falls
 * furthest from its peak to step 80, its own pass@k at each compared checkpoint (no right panel
 * when no task narrows).
 */
function passAtKFigure({ agents, reference, narrowing }: Numbers, { episodes, agents: steps }: Context) {
  const dropOf = (row: Narrowing) =>
    Math.max(...row.trajectory.map((point) => point.successes)) -
    row.trajectory[row.trajectory.length - 1]!.successes;
  const shown = narrowing.reduce<Narrowing | undefined>(
    (best, row) => (best === undefined || dropOf(row) > dropOf(best) ? row : best),
    undefined,
  );
  const taskCurve = (successes: number) =>
    Array.from({ length: episodes }, (_, i) => ({ x: i + 1, y: passAtK(episodes, successes, i + 1) }));
  const blindGuess = {
    name: 'blind guess 1 - 0.8^k',
    points: reference.map((point) => ({ x: point.k, y: point.y })),
  };
  const right: BandPanel[] =
    shown === undefined
      ? []
      : [
          {
            title: `The narrowing task alone: ${shown.task} (${shown.runDir})`,
            xTitle: 'k',
            yTitle: 'pass@k',
            xScale: 'log',
            series: steps.map((step) => ({
              name: `step ${step}: ${shown.trajectory.find((point) => point.step === step)!.successes}/${episodes}`,
              points: taskCurve(shown.trajectory.find((point) => point.step === step)!.successes),
            })),
            dashed: [blindGuess],
          },
        ];
  return bandPanelsSvg([
    {
      title: `Mean unbiased pass@k over the held-out tasks (${episodes} episodes each)`,
      xTitle: 'k',
      yTitle: 'pass@k',
      xScale: 'log',
      series: agents.map((agent) => ({
        name: `step ${agent.step}`,
        points: agent.curve.map((point) => ({
          x: point.k,
          y: point.mean,
          low: point.low ?? NaN,
          high: point.high ?? NaN,
        })),
      })),
      dashed: [blindGuess],
    },
    ...right,
  ]);
}

/** Whether any task narrows, and where it was found: in the run itself or only in its seeds' runs. */
function narrowingSentence({ narrowing, searched }: Numbers, run: string): string {
  if (narrowing.length === 0)
    return `No held-out task narrows: every task has at least as many successes at step 80 as at step 0 in ${run}${searched.length > 0 ? ` and in ${searched.join(', ')}` : ''}, so the base agent does not overtake at large k here.`;
  // The seeds' runs are searched only when the run itself narrows no task.
  return `Narrowing, found from the data (tasks with fewer successes at step 80 than at step 0)${searched.length > 0 ? `: none in ${run}; in its seeds' runs:` : ':'}`;
}

/** Integers as runs: [1, 2, 3, 7] -> '1 to 3, 7'. */
function runsOf(ks: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < ks.length;) {
    let j = i;
    while (j + 1 < ks.length && ks[j + 1] === ks[j]! + 1) j += 1;
    parts.push(i === j ? String(ks[i]) : `${ks[i]} to ${ks[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/** Where step 20 falls below the other two curves, from the per-k comparison. */
function step20Text({ step20Below }: Numbers): string {
  const { base, step80 } = step20Below;
  if (base.length === 0 && step80.length === 0) return 'at or above both at every k';
  return [
    base.length > 0 ? `below the base agent at k = ${runsOf(base)}` : 'never below the base agent',
    step80.length > 0 ? `below step 80 at k = ${runsOf(step80)}` : 'never below step 80',
  ].join('; ');
}

/** Whether step 80's band reaches the base curve at k >= 16, from the per-k comparison. */
function bandText({ step80BandAtLargeK }: Numbers): string {
  if (step80BandAtLargeK.length === 0) return 'no k >= 16 measured';
  const covered = step80BandAtLargeK.filter((point) => point.covers).map((point) => point.k);
  const at16 = step80BandAtLargeK[0]!;
  const first = `at k = ${at16.k} the band ${interval(at16)} against the base agent's ${pct(at16.base)}`;
  return covered.length === step80BandAtLargeK.length
    ? `covers it at every k >= 16 (${first})`
    : `covers it at k = ${covered.length > 0 ? runsOf(covered) : 'none'} only (${first})`;
}

/** Each task's successes and pass@k at k = TASK_K for every agent (when there are that many episodes). */
function perTaskTable(agents: readonly Agent[], { run, episodes }: Context): string[] {
  if (episodes < TASK_K) return [];
  return [
    `Per task in ${run}: pass@${TASK_K} from each checkpoint's ${episodes} episodes (the book: ${BOOK.speedPassAt32}).`,
    table(agents[0]!.perTask, [
      ['task', (count) => count.name],
      ...agents.map((agent) => {
        const cell = (_: unknown, j: number) => {
          const { successes } = agent.perTask[j]!;
          return `${successes}/${episodes}, ${pct(passAtK(episodes, successes, TASK_K))}`;
        };
        return [`step ${agent.step}: successes, pass@${TASK_K}`, cell] as const;
      }),
    ]),
  ];
}

function narrowingSubsection(row: Narrowing, episodes: number): string {
  const count = (step: number) => row.trajectory.find((point) => point.step === step)?.successes;
  const [first, last] = [count(0), count(80)];
  return subsection(
    `${row.task} in ${row.runDir}: peaks at step ${row.peakStep}, ${row.fallsAt === null ? 'does not fall after its peak' : `starts to fall at step ${row.fallsAt}`}`,
    table(row.trajectory, {
      step: (point) => point.step,
      successes: (point) => `${point.successes}/${episodes}`,
      'first edits': (point) => topOps(point.firstEdit),
    }),
    ...(first !== undefined && last !== undefined && episodes >= TASK_K
      ? [
          `pass@${TASK_K} from these counts: step 0 ${pct(passAtK(episodes, first, TASK_K))}, step 80 ${pct(passAtK(episodes, last, TASK_K))}.`,
        ]
      : []),
  );
}

export async function report(numbers: Numbers, context: Context): Promise<Report> {
  const { agents, reference, narrowing, crossing } = numbers;
  const { run, episodes } = context;
  const [base, early, late] = agents as [Agent, Agent, Agent];
  const at = (agent: Agent, k: number) => agent.curve[Math.min(k, episodes) - 1]!.mean;
  const markdown = section(
    `Unbiased pass@k, ${episodes} episodes per held-out task (task-level 95% bootstrap bands in the figure)`,
    markdownTable(
      ['k', 'base (step 0)', 'step 20', 'step 80', 'blind guess 1 - 0.8^k'],
      [1, 2, 4, 8, 16, 32, 64]
        .filter((k) => k <= episodes)
        .map((k) => [k, pct(at(base, k)), pct(at(early, k)), pct(at(late, k)), pct(reference[k - 1]!.y)]),
    ),
    oursAgainstBook([
      ['step 80 lead at k = 1', pct(at(late, 1) - at(base, 1)), String(BOOK.k1Lead)],
      ['k = 16', `${pct(at(late, 16))} (step 80) vs ${pct(at(base, 16))} (base)`, BOOK.k16],
      [
        'first k where the base agent overtakes step 80',
        crossing === null ? 'none up to k = ' + episodes : String(crossing),
        BOOK.k32,
      ],
      ['step 20 against the base agent and step 80', step20Text(numbers), BOOK.step20],
      ["step 80's task-level band and the base agent's curve, k >= 16", bandText(numbers), BOOK.band],
    ]),
    ...perTaskTable(agents, context),
    narrowingSentence(numbers, run),
    ...narrowing.map((row) => narrowingSubsection(row, episodes)),
    `Book: ${BOOK.speed}. Reading: RL concentrates the first edit on the op the training tasks rewarded; where a held-out task's surface resembles another type's training tasks, that concentration is wrong every time, and pass@k at large k (which rewards trying many ops) falls below the guessing base agent's.`,
  );
  return { markdown, figures: { '17.3-passk.svg': await passAtKFigure(numbers, context) } };
}
