/** The report of exercise 6 (experiments/ex-6.ts): common random numbers against separate generators. */
import { lineChartSvg } from '../figures.ts';
import { blocks, pct, reading, section, signed, table, type Report } from './markdown.ts';

/** The step-80 minus step-60 differences over the repetitions, and their standard errors. */
export interface Differences {
  differences: number[];
  meanDifference: number;
  se: number;
  seOfSE: number;
  varA: number;
  varB: number;
  cov: number;
  correlation: number;
  formulaSE: number;
}

/**
 * The numbers this report reads: what experiments/ex-6.ts's `main` returns, declared here so
 * that the report depends on the numbers alone, not on the experiment's code.
 */
export type Numbers = {
  repetitions: number;
  episodesPerTask: number;
  rows: { repetition: number; step60: number; step80Shared: number; step80Separate: number }[];
  shared: Differences;
  separate: Differences;
  ratio: number;
};
const v = (value: number) => value.toExponential(2);

export async function report({
  repetitions,
  episodesPerTask,
  rows,
  shared,
  separate,
  ratio,
}: Numbers): Promise<Report> {
  const designs = [
    ['one generator (common random numbers)', shared],
    ['separate generators', separate],
  ] as const;
  const markdown = blocks(
    section(
      `Step 80 - step 60, ${repetitions} repetitions of each design (${episodesPerTask} episodes per held-out task)`,
      table(designs, {
        design: (row) => row[0],
        'mean difference': (row) => signed(row[1].meanDifference),
        'SE (SD over repetitions)': (row) => `${pct(row[1].se)} ± ${pct(row[1].seOfSE)}`,
        'Var A (step 60)': (row) => v(row[1].varA),
        'Var B (step 80)': (row) => v(row[1].varB),
        Cov: (row) => v(row[1].cov),
        correlation: (row) => row[1].correlation.toFixed(2),
        'sqrt(Var A + Var B - 2 Cov)': (row) => pct(row[1].formulaSE),
      }),
      reading(
        `sharing the generator makes the two checkpoints meet the same renamed tasks and the same sampling draws, so their evaluations move together (correlation ${shared.correlation.toFixed(2)} against ${separate.correlation.toFixed(2)}); the covariance term then removes ${v(2 * shared.cov)} of the ${v(shared.varA + shared.varB)} the two variances add, and the SE of the difference is ${ratio.toFixed(2)} times smaller than with separate generators, whose covariance is zero in expectation (measured ${v(separate.cov)}). Var A and Var B estimate the same variances in both designs: pairing makes neither evaluation less noisy, only their difference.`,
      ),
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
