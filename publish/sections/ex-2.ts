/** The report of exercise 2 (experiments/ex-2.ts): 17.7 at n = 256, per-task counts by checkpoint, where narrowing starts. */
import { basename } from 'node:path';
import type { NumbersEx2 as Numbers } from '../../analysis/index.ts';
import { lineChartSvg, type Figure } from '../figures.ts';
import { pct, reading, section, subsection, table, type Report } from '../markdown.ts';

/** The chance that k samples all miss, 1 - pass@k, readable when it is tiny. */
const miss = (passAtK: number) => (1 - passAtK === 0 ? '0' : (1 - passAtK).toExponential(1));
const kText = (k: number | null, maxK: number) => (k === null ? `none up to ${maxK}` : `k = ${k}`);

type Run = Numbers['runs'][number];

function runSubsection(
  measured: Run,
  { maxK, shownKs }: { maxK: number; shownKs: readonly number[] },
): string {
  return subsection(
    measured.run,
    table(measured.curves, [
      ['step', (row) => row.step],
      ...shownKs.map((k) => {
        const cell = ({ curve }: (typeof measured.curves)[number]) => {
          const point = curve[k - 1]!;
          return point.low === null
            ? pct(point.mean)
            : `${pct(point.mean)} [${pct(point.low)}, ${pct(point.high as number)}]`;
        };
        return [`k=${k}`, cell] as const;
      }),
    ]),
    `Base overtakes step 80 at ${kText(measured.crossing.step80, maxK)}; step 40 at ${kText(measured.crossing.step40, maxK)}; step 20 at ${kText(measured.crossing.step20, maxK)}.`,
    `Coverage lost (pass@${maxK} lower at step 80 than at step 0): ${
      measured.coverage
        .filter((row) => row.lost)
        .map((row) => `${row.task} (miss chance ${miss(row.base)} -> ${miss(row.step80)})`)
        .join(', ') || 'none'
    }.`,
    measured.narrowing.length === 0
      ? 'No task has a lower success rate at step 80 than at step 0.'
      : table(measured.narrowing, {
          'narrowing task': (row) => row.task,
          'success rate, steps 0 to 80': (row) => row.rates.map(pct).join(' '),
          'starts to fall at step': (row) => (row.fallsAt === null ? 'no fall' : row.fallsAt),
          '95% bootstrap interval': (row) => `[${row.low ?? 'no fall'}, ${row.high ?? 'no fall'}]`,
          'replicates without a fall': (row) => pct(row.noFallShare),
        }),
    measured.falls.some((fall) => fall.significant)
      ? table(
          measured.falls.filter((fall) => fall.significant),
          {
            'falls during training (Holm < 0.05)': (row) => row.task,
            from: (row) => `step ${row.from.step}: ${row.from.successes}/${row.from.episodes}`,
            to: (row) => `step ${row.to.step}: ${row.to.successes}/${row.to.episodes}`,
            "Fisher's exact p": (row) => row.p.toExponential(1),
            'Holm p': (row) => row.holmP.toExponential(1),
          },
        )
      : `No task falls between checkpoints by Fisher's exact test, Holm over the run's ${measured.falls.length} falls.`,
  );
}

async function runFigures(
  runs: readonly Run[],
  { curveEpisodes, shownKs }: { curveEpisodes: number; shownKs: readonly number[] },
): Promise<Record<string, Figure>> {
  const figures: Record<string, Figure> = {};
  const first = runs[0]!;
  figures['ex-2-passk.svg'] = await lineChartSvg({
    title: `Mean unbiased pass@k over held-out tasks, ${basename(first.run)} (n = ${curveEpisodes})`,
    xTitle: 'k',
    yTitle: 'pass@k',
    xScale: 'log',
    series: first.curves.map((row) => ({
      name: `step ${row.step}`,
      points: row.curve
        .filter((point) => shownKs.includes(point.k))
        .map((point) => ({ x: point.k, y: point.mean })),
    })),
  });
  for (const measured of runs) {
    const tasks = measured.checkpoints[0]!.perTask.map((count) => count.name);
    figures[`ex-2-counts-${basename(measured.run)}.svg`] = await lineChartSvg({
      title: `Per-task success rate by checkpoint, ${basename(measured.run)}`,
      xTitle: 'GRPO step',
      yTitle: 'success rate',
      yDomain: [0, 1],
      legendTitle: 'task',
      series: tasks.map((task) => ({
        name: task,
        points: measured.checkpoints.map((checkpoint) => {
          const count = checkpoint.perTask.find((c) => c.name === task)!;
          return { x: checkpoint.step, y: count.successes / count.episodes };
        }),
      })),
    });
  }
  return figures;
}

export async function report({ curveEpisodes, otherEpisodes, maxK, runs }: Numbers): Promise<Report> {
  const shownKs = [1, 2, 4, 8, 16, 32, 64, 128].filter((k) => k <= maxK);
  const markdown = section(
    `pass@k at ${curveEpisodes} episodes per held-out task (steps 0, 20, 40, 80; the other checkpoints at ${otherEpisodes})`,
    ...runs.map((measured) => runSubsection(measured, { maxK, shownKs })),
    reading(
      `a band where every task's pass@k is 1 (at large k) is the exact interval over the tasks, as in 17.7: the bootstrap has no spread there, and a band of no width would claim certainty. The crossing is the first k at which the base agent, which guesses widely, has a higher mean pass@k than step 80: where its samples reach the tasks step 80 has stopped solving. pass@k is unbiased at any n, so more episodes move the crossing only by making the counts less noisy. Coverage at k = ${maxK} is shown as the chance that ${maxK} samples miss the task (1 - pass@${maxK}); a task loses coverage in earnest only when its count at step 80 is near 0. The onset of a fall is the change point after the peak of the task's rates; its interval comes from redrawing every checkpoint's count from its binomial (changePointBootstrap). A task can also fall during training and end above the base agent: every fall of a task's rate from a checkpoint to the next low point is tested one-sided by Fisher's exact test on the two counts, with Holm's correction over every fall of the run.`,
    ),
  );
  return { markdown, figures: await runFigures(runs, { curveEpisodes, shownKs }) };
}
