/**
 * What `npm run exp:coverage` measured of the interval methods a report prints: one sentence
 * naming each method's simulated coverage in both worlds at its design, and which fall below the
 * flag, so that a flagged interval is flagged where it is reported (results/coverage.md has the
 * whole table). Methods are cited by id; each id's label is what the reports print.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../lib/errors.ts';
import { ROOT } from '../lib/paths.ts';
import type { StudyComparison } from '../study/index.ts';
import {
  IMPROVEMENT_METHOD,
  PAIRED_T_METHOD,
  SEED_BOOTSTRAP_METHOD,
  WELCH_METHOD,
  type NumbersCoverage as Numbers,
} from '../analysis/index.ts';

export const COVERAGE_FILE = join(ROOT, 'results', 'coverage.json');

type CoverageRow = Numbers['rows'][number];

function readCoverage(file: string): Numbers {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { numbers: Numbers }).numbers;
  } catch {
    throw new InputError(`${file} is not a coverage results file: rerun \`npm run exp:coverage\``);
  }
}

function rowOf(numbers: Numbers, id: string, file: string): CoverageRow {
  const row = numbers.rows?.find((candidate) => candidate.id === id);
  if (row === undefined)
    throw new InputError(`${file} has no coverage of '${id}': rerun \`npm run exp:coverage\``);
  return row;
}

/** A row's coverage in both worlds, e.g. `0.942 ± 0.005 observed, 0.931 ± 0.006 fitted`. */
const bothWorlds = (row: CoverageRow) =>
  row.worlds
    .map((world) => `${world.coverage.toFixed(3)} ± ${world.se.toFixed(3)} ${world.world}`)
    .join(', ');

/**
 * One method's measured coverage in a short clause for a command's output, with the design it
 * was simulated at: `design` is the caller's, and a design other than the simulated one is said
 * to be not simulated. Undefined when results/coverage.json is not there.
 */
export function coverageClause(
  id: string,
  design: string,
  file = COVERAGE_FILE,
): { text: string; coverage: number; design: string; flagged: boolean } | undefined {
  if (!existsSync(file)) return undefined;
  const numbers = readCoverage(file);
  const row = rowOf(numbers, id, file);
  const measured = `simulated coverage ${bothWorlds(row)} at ${row.design}`;
  const flag = row.flagged ? `, below ${numbers.flagBelow.toFixed(2)} in a world: read it as too narrow` : '';
  const other = design === row.design ? '' : `; ${design} is not simulated`;
  return {
    text: `${measured}${flag}${other} (results/coverage.md)`,
    coverage: Math.min(...row.worlds.map((world) => world.coverage)),
    design: row.design,
    flagged: row.flagged,
  };
}

/** The sentence for the methods `ids` (analysis/coverageMethods.ts's METHODS). */
export function coverageNote(ids: readonly string[], file = COVERAGE_FILE): string {
  if (!existsSync(file))
    return 'The coverage of these intervals is not measured yet: run `npm run exp:coverage`.';
  const numbers = readCoverage(file);
  const rows = ids.map((id) => rowOf(numbers, id, file));
  const each = rows.map(
    (row) =>
      `${row.method} ${bothWorlds(row)} at ${row.design}${row.flagged ? ` (**below ${numbers.flagBelow.toFixed(2)}**)` : ''}`,
  );
  const flagged = rows.filter((row) => row.flagged);
  return `Coverage of these nominal-95% intervals, measured by simulation in the observed and a fitted world (\`npm run exp:coverage\`, results/coverage.md, ${numbers.simulations.toLocaleString('en-US')} simulations each): ${each.join('; ')}.${flagged.length === 0 ? '' : ` The ${flagged.length === 1 ? 'one' : flagged.length} below ${numbers.flagBelow.toFixed(2)} in a world ${flagged.length === 1 ? 'is' : 'are'} narrower than ${flagged.length === 1 ? 'its' : 'their'} nominal level says: read ${flagged.length === 1 ? 'it' : 'them'} as too narrow.`}`;
}

/**
 * One line per interval `tinyagent study compare` prints (Welch, the bootstrap over seeds, the
 * paired t when seeds are shared, P(B > A)) on what its coverage simulation measured, at the
 * design of the two studies (`16 + 8 seeds`); none when results/coverage.json is not there.
 */
export function studyComparisonCoverage(comparison: StudyComparison): string[] {
  const design = `${comparison.a.seeds} + ${comparison.b.seeds} seeds`;
  const intervals: Array<[string, string]> = [
    [WELCH_METHOD, 'Welch'],
    [SEED_BOOTSTRAP_METHOD, 'bootstrap over seeds'],
    ...(comparison.paired === null ? [] : [[PAIRED_T_METHOD, 'paired t'] as [string, string]]),
    [IMPROVEMENT_METHOD, 'P(B > A)'],
  ];
  return intervals.flatMap(([method, name]) => {
    const clause = coverageClause(method, design);
    return clause === undefined ? [] : [`coverage of ${name}: ${clause.text}`];
  });
}
