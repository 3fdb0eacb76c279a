/** The report of exercise 6 (experiments/ex-6.ts): common random numbers against separate generators. */
import type { NumbersEx6 as Numbers } from '../../analysis/index.ts';
import { lineChartSvg } from '../figures.ts';
import { pct, reading, section, signed, table, type Report } from '../markdown.ts';

const v = (value: number) => value.toExponential(2);

export async function report({
  repetitions,
  episodesPerTask,
  rows,
  shared,
  separate,
  ratio,
  varianceRatioTest,
  independence,
}: Numbers): Promise<Report> {
  const designs = [
    ['one generator (common random numbers)', shared],
    ['separate generators', separate],
  ] as const;
  const markdown = section(
    `Step 80 - step 60, ${repetitions} repetitions of each design (${episodesPerTask} episodes per held-out task)`,
    table(designs, {
      design: (row) => row[0],
      'mean difference': (row) => signed(row[1].meanDifference),
      'SE (SD over repetitions)': (row) => `${pct(row[1].se)} ± ${pct(row[1].seOfSE)}`,
      'Var A (step 60)': (row) => v(row[1].varA),
      'Var B (step 80)': (row) => v(row[1].varB),
      Cov: (row) => v(row[1].cov),
      correlation: (row) => row[1].correlation.toFixed(2),
      'p (correlation 0)': (row) => row[1].correlationP.toFixed(3),
      'sqrt(Var A + Var B - 2 Cov)': (row) => pct(row[1].formulaSE),
      "predicted from each repetition's episodes": (row) => pct(row[1].predictedSE),
    }),
    reading(
      `sharing the generator makes the two checkpoints meet the same renamed tasks and the same sampling draws, so their evaluations move together (correlation ${shared.correlation.toFixed(2)}); the covariance term removes ${v(2 * shared.cov)} of the ${v(shared.varA + shared.varB)} the two variances add. sqrt(Var A + Var B - 2 Cov) over the same repetitions is the SD of the differences by algebra, so it checks nothing; the check is the formula applied to each repetition's own episodes (per task, the variance of the paired episode differences, or of each side's episodes with Cov 0), which predicts ${pct(shared.predictedSE)} and ${pct(separate.predictedSE)} against the ${pct(shared.se)} ± ${pct(shared.seOfSE)} and ${pct(separate.se)} ± ${pct(separate.seOfSE)} measured across repetitions. The SE is ${ratio.toFixed(2)} times smaller with one generator; the Pitman-Morgan test of the two designs' variances (paired by their shared step 60) gives p = ${varianceRatioTest.p.toFixed(2)}, so ${repetitions} repetitions do not tell the ratio from 1.`,
    ),
    reading(
      `with separate generators the covariance is zero in expectation; the measured correlation ${separate.correlation.toFixed(2)} has p = ${separate.correlationP.toFixed(3)} against 0 (t test, ${repetitions - 2} df). Whether the two seeds of a repetition are independent: the scripted ${independence.policy} policy, whose outcomes come from the episodes' seeds alone, played on the same two seed keys over ${independence.repetitions} repetitions has correlation ${independence.correlation.toFixed(3)} (p = ${independence.p.toFixed(2)}). ${independence.p >= 0.05 ? `The ${separate.correlation.toFixed(2)} is a chance excess of ${repetitions} pairs, not a shared generator.` : 'The seeds share numbers: the separate design is not separate.'}`,
    ),
  );
  const figure = await lineChartSvg({
    title: 'Step 80 - step 60 by repetition: one generator against separate generators',
    xTitle: 'repetition',
    yTitle: 'difference in pass@1',
    series: [
      {
        name: 'one generator',
        points: rows.map((row) => ({ x: row.repetition, y: row.step80Shared - row.step60 })),
      },
      {
        name: 'separate generators',
        points: rows.map((row) => ({ x: row.repetition, y: row.step80Separate - row.step60 })),
      },
    ],
  });
  return { markdown, figures: { 'ex-6-differences.svg': figure } };
}
