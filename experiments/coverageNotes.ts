/**
 * What `npm run exp:coverage` measured of the interval methods a report prints: one sentence
 * naming each method's simulated coverage at its design, and which fall below the flag, so that a
 * flagged interval is flagged where it is reported (results/coverage.md has the whole table).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../lib/errors.ts';
import { ROOT } from './common.ts';
import type { Numbers } from './report/coverage.ts';

/** The names of the interval methods other reports and commands cite (experiments/coverage.ts's METHODS rows). */
export const TASK_BOOTSTRAP_METHOD = 'task (cluster) bootstrap of the mean';
export const EPISODE_BOOTSTRAP_METHOD = 'episode bootstrap (of these tasks)';
export const CREDIBLE_INTERVAL_METHOD = 'beta-binomial credible interval';
export const IQM_METHOD = 'stratified-bootstrap IQM (step 80)';
export const IMPROVEMENT_METHOD = 'P(step 80 > step 0), stratified bootstrap';
export const WELCH_METHOD = 'Welch interval of B - A';
export const SEED_BOOTSTRAP_METHOD = 'bootstrap over seeds of B - A';
export const PAIRED_T_METHOD = 'paired t interval of B - A (8 shared seeds)';
/** The claims across recipes (exp:recipe-claims) at a recipe's 8 seeds. */
export const WILSON_8_METHOD = 'Wilson, a claim over seeds (8)';
export const TRAINING_SD_8_METHOD = 'training-noise SD, chi-square (reported) (8)';
/** A t interval over seeds of a mean of per-seed values: 17.8's figures over seeds (simulated with the seeds' step-80 pass@1 as the values). */
export const MEAN_OVER_SEEDS_METHOD = 't interval of a mean over seeds';

/** The committed coverage results. */
export const COVERAGE_FILE = join(ROOT, 'results', 'coverage.json');

type CoverageRow = Numbers['rows'][number];

function readCoverage(file: string): Numbers {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { numbers: Numbers }).numbers;
  } catch {
    throw new InputError(`${file} is not a coverage results file: rerun \`npm run exp:coverage\``);
  }
}

function rowOf(numbers: Numbers, method: string, file: string): CoverageRow {
  const row = numbers.rows?.find((candidate) => candidate.method === method);
  if (row === undefined)
    throw new InputError(`${file} has no coverage of '${method}': rerun \`npm run exp:coverage\``);
  return row;
}

/**
 * One method's measured coverage in a short clause for a command's output, with the design it
 * was simulated at: `design` is the caller's, and a design other than the simulated one is said
 * to be not simulated. Undefined when results/coverage.json is not there.
 */
export function coverageClause(
  method: string,
  design: string,
  file = COVERAGE_FILE,
): { text: string; coverage: number; se: number; design: string; flagged: boolean } | undefined {
  if (!existsSync(file)) return undefined;
  const numbers = readCoverage(file);
  const row = rowOf(numbers, method, file);
  const measured = `simulated coverage ${row.coverage.toFixed(3)} ± ${row.se.toFixed(3)} at ${row.design}`;
  const flag = row.flagged ? `, below ${numbers.flagBelow.toFixed(2)}: read it as too narrow` : '';
  const other = design === row.design ? '' : `; ${design} is not simulated`;
  return {
    text: `${measured}${flag}${other} (results/coverage.md)`,
    coverage: row.coverage,
    se: row.se,
    design: row.design,
    flagged: row.flagged,
  };
}

/** The sentence for `methods` (the `method` names of experiments/coverage.ts's METHODS). */
export function coverageNote(methods: readonly string[], file = COVERAGE_FILE): string {
  if (!existsSync(file))
    return 'The coverage of these intervals is not measured yet: run `npm run exp:coverage`.';
  const numbers = readCoverage(file);
  const rows = methods.map((method) => rowOf(numbers, method, file));
  const each = rows.map(
    (row) =>
      `${row.method} ${row.coverage.toFixed(3)} ± ${row.se.toFixed(3)} at ${row.design}${row.flagged ? ' (**below ' + numbers.flagBelow.toFixed(2) + '**)' : ''}`,
  );
  const flagged = rows.filter((row) => row.flagged);
  return `Coverage of these nominal-95% intervals, measured by simulation (\`npm run exp:coverage\`, results/coverage.md, ${numbers.simulations.toLocaleString('en-US')} simulations): ${each.join('; ')}.${flagged.length === 0 ? '' : ` The ${flagged.length === 1 ? 'one' : flagged.length} below ${numbers.flagBelow.toFixed(2)} ${flagged.length === 1 ? 'is' : 'are'} narrower than ${flagged.length === 1 ? 'its' : 'their'} nominal level says: read ${flagged.length === 1 ? 'it' : 'them'} as too narrow.`}`;
}
