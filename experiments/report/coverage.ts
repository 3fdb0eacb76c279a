/** The report of the coverage simulation (experiments/coverage.ts): one row per interval method and design. */
import type { main } from '../coverage.ts';
import { blocks, count, pct, reading, section, table, withSE, type Report } from './markdown.ts';

type Numbers = Awaited<ReturnType<typeof main>>;

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
