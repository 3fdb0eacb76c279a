/** The report of the coverage simulation (experiments/coverage.ts): one row per interval method and design. */
import { blocks, count, pct, reading, section, table, withSE, type Report } from './markdown.ts';

/** One interval method at one design: its coverage over the simulations, with its Monte Carlo SE. */
export interface CoverageRow {
  method: string;
  design: string;
  nominal: number;
  coverage: number;
  se: number;
  missedHigh: number;
  missedLow: number;
  meanWidth: number;
  /** The known truth; null for the episode bootstrap, whose truth is each sample's own tasks' mean. */
  truth: number | null;
  flagged: boolean;
}

/** The numbers this report reads (experiments/coverage.ts's `main` returns them). */
export type Numbers = {
  simulations: number;
  reps: number;
  draws: number;
  flagBelow: number;
  rows: CoverageRow[];
};

export function report({ simulations, reps, draws, flagBelow, rows }: Numbers): Report {
  const flagged = rows.filter((row) => row.flagged);
  return {
    markdown: blocks(
      section(
        `Coverage of nominal-95% intervals (${count(simulations)} simulations each; bootstraps of ${count(reps)} replicates, posteriors of ${count(draws)} draws)`,
        table(rows, {
          method: (row) => row.method,
          design: (row) => row.design,
          nominal: (row) => pct(row.nominal),
          'coverage ± MC SE': (row) => withSE(row.coverage, row.se),
          'missed high': (row) => pct(row.missedHigh),
          'missed low': (row) => pct(row.missedLow),
          'mean width': (row) => pct(row.meanWidth),
          truth: (row) => (row.truth === null ? "each sample's tasks" : pct(row.truth)),
          [`below ${pct(flagBelow)}`]: (row) => (row.flagged ? '**flagged**' : ''),
        }),
        reading(
          flagged.length === 0
            ? `every method covers at least ${pct(flagBelow)} at the designs the results use.`
            : `${flagged.map((row) => `${row.method} (${row.design}) covers ${pct(row.coverage)}`).join('; ')}: below ${pct(flagBelow)}, so where the results report ${flagged.length === 1 ? 'it' : 'them'} the interval is narrower than its nominal level says. "Missed high" counts intervals wholly above the truth, "missed low" wholly below it. The MC SE is sqrt(c (1 - c) / ${count(simulations)}); a bootstrap of ${count(reps)} replicates moves a percentile endpoint by a little of the interval's width, which the coverage includes.`,
        ),
      ),
    ),
  };
}
