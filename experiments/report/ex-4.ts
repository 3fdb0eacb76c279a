/** The report of exercise 4 (experiments/ex-4.ts): the held-out-type experiment for every bug type. */
import type { BootstrapInterval } from '../../eval/index.ts';
import { lineChartSvg } from '../figures.ts';
import { blocks, interval, pct, reading, section, signed, table, topOps, type Report } from './markdown.ts';

/** One checkpoint of one run, on its bug type's held-out tasks. */
export interface Checkpoint {
  step: number;
  passAt1: number;
  interval: BootstrapInterval;
  rates: number[];
  firstEdits: Record<string, number>;
  firstEditEntropy: number | null;
  firstEditRight: number;
}

/**
 * The numbers this report reads: what experiments/ex-4.ts's `main` returns, declared here so
 * that the report depends on the numbers alone, not on the experiment's code.
 */
export type Numbers = {
  episodes: number;
  rows: {
    type: 'zero' | 'compare' | 'off_by_one' | 'negation' | 'min_max';
    run: string;
    base: Checkpoint;
    trained: Checkpoint;
    difference: { estimate: number; low: number; high: number };
    belowBase: boolean;
  }[];
};
const bits = (value: number | null) => (value === null ? 'n/a' : value.toFixed(2));

export async function report({ episodes, rows }: Numbers): Promise<Report> {
  const below = rows.filter((row) => row.belowBase);
  const markdown = blocks(
    section(
      `Each bug type held out in turn: its six tasks, ${episodes} episodes each, base agent (step 0) against step 30`,
      table(rows, {
        'unseen type': (row) => row.type,
        'base pass@1 [task interval]': (row) =>
          `${pct(row.base.passAt1)} ${interval(row.base.interval.low, row.base.interval.high)}`,
        'step 30 pass@1 [task interval]': (row) =>
          `${pct(row.trained.passAt1)} ${interval(row.trained.interval.low, row.trained.interval.high)}`,
        'step 30 - base [paired interval]': (row) =>
          `${signed(row.difference.estimate)} ${interval(row.difference.low, row.difference.high, signed)}`,
        'below base': (row) => (row.belowBase ? 'yes' : 'no'),
        'first-edit entropy, base (bits)': (row) => bits(row.base.firstEditEntropy),
        'step 30 (bits)': (row) => bits(row.trained.firstEditEntropy),
        'first edit right, base / step 30': (row) =>
          `${pct(row.base.firstEditRight)} / ${pct(row.trained.firstEditRight)}`,
        'step 30 first edits': (row) => topOps(row.trained.firstEdits),
      }),
      reading(
        `step 30 is below the base agent, with a paired interval below 0, on ${below.length} of ${rows.length} unseen types${below.length > 0 ? ` (${below.map((row) => row.type).join(', ')})` : ''}. The entropy of the first edit says how widely a policy still guesses on a type it never trained on: if training collapses it onto the four rewarded repairs, the entropy falls and so does the share of episodes whose first edit happens to be the unseen type's repair (one edit per episode: a wrong first edit fails). The table and the figure show, type by type, whether the entropy fell and whether the pass rate fell with it.`,
      ),
    ),
  );
  const figure = await lineChartSvg({
    title: 'Unseen type: change in first-edit entropy against change in pass@1 (step 30 - base)',
    xTitle: 'first-edit entropy, step 30 - base (bits)',
    yTitle: 'pass@1, step 30 - base',
    legendTitle: 'unseen type',
    series: rows.map((row) => ({
      name: row.type,
      points: [
        {
          x: (row.trained.firstEditEntropy ?? 0) - (row.base.firstEditEntropy ?? 0),
          y: row.difference.estimate,
        },
      ],
    })),
  });
  return { markdown, figures: { 'ex-4-entropy-vs-drop.svg': figure } };
}
