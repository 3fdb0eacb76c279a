/** The report of the coverage simulation (experiments/coverage.ts): one row per interval method and design, both worlds. */
import type { NumbersCoverage as Numbers } from '../../analysis/index.ts';
import { blocks, count, pct, reading, section, table, withSE, type Report } from '../markdown.ts';

type CoverageRow = Numbers['rows'][number];

export function report({ simulations, reps, draws, flagBelow, rows, wilson }: Numbers): Report {
  const flagged = rows.filter((row) => row.flagged);
  const cell = (row: CoverageRow, world: 'observed' | 'fitted') => {
    const entry = row.worlds.find((candidate) => candidate.world === world)!;
    return `${withSE(entry.coverage, entry.se)} (high ${pct(entry.missedHigh)}, low ${pct(entry.missedLow)}; width ${pct(entry.meanWidth)}${entry.exact > 0 ? `; exact in ${pct(entry.exact)}` : ''})`;
  };
  return {
    markdown: blocks(
      section(
        `Coverage of nominal-95% intervals (${count(simulations)} simulations in each world; bootstraps of ${count(reps)} replicates, posteriors of ${count(draws)} draws)`,
        table(rows, {
          method: (row) => row.method,
          design: (row) => row.design,
          'observed world: coverage ± MC SE (missed high, low; mean width)': (row) => cell(row, 'observed'),
          'fitted world': (row) => cell(row, 'fitted'),
          'truth (observed; fitted)': (row) =>
            row.worlds
              .map((entry) => (entry.truth === null ? "each sample's tasks" : pct(entry.truth)))
              .join('; '),
          [`below ${pct(flagBelow)}`]: (row) => (row.flagged ? '**flagged**' : ''),
        }),
        reading(
          flagged.length === 0
            ? `every method covers at least ${pct(flagBelow)} in both worlds at the designs the results use.`
            : `${flagged.map((row) => `${row.method} (${row.design}) covers ${row.worlds.map((entry) => `${pct(entry.coverage)} ${entry.world}`).join(', ')}`).join('; ')}: below ${pct(flagBelow)} in a world, so where the results report ${flagged.length === 1 ? 'it' : 'them'} the interval is narrower than its nominal level says. The observed world draws seeds as the study's own rows, so no seed is worse than the worst observed; the fitted world draws them from a model of the same data, which can. "Missed high" counts intervals wholly above the truth, "missed low" wholly below it; "exact" the samples where every unit was alike and the exact interval stood in. The MC SE is sqrt(c (1 - c) / ${count(simulations)}).`,
        ),
      ),
      section(
        "The Wilson interval's exact coverage over the rates a claim can show",
        table(wilson[0]!.at, [
          ['true rate', (point) => pct(point.rate)],
          ...wilson.map(
            (entry) =>
              [`${entry.seeds} seeds`, (_: unknown, i: number) => pct(entry.at[i]!.coverage)] as const,
          ),
        ]),
        `The exact binomial coverage (no simulation), over rates every 0.001: lowest ${wilson.map((entry) => `${pct(entry.lowest.coverage)} at a rate of ${entry.lowest.rate.toFixed(3)} with ${entry.seeds} seeds`).join(', ')}; between 0.1 and 0.9 lowest ${wilson.map((entry) => `${pct(entry.lowestInside.coverage)} at ${entry.lowestInside.rate.toFixed(3)} (${entry.seeds} seeds)`).join(', ')}. A claim rate's standing reads the two-stage interval (docs/CLAIMS.md); the Wilson interval is printed beside it with its exact coverage at the observed rate.`,
      ),
    ),
  };
}
