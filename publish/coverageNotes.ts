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
import type { Numbers } from './sections/coverage.ts';

/** The ids of the interval methods reports and commands cite (experiments/coverageMethods.ts's METHODS). */
export const CLAIM_RATE_METHOD = 'claim-rate';
export const WILSON_METHOD = 'wilson';
export const MEAN_OVER_SEEDS_METHOD = 'mean-over-seeds';
export const TRAINING_SD_METHOD = 'training-sd';
export const EVALUATION_SD_METHOD = 'evaluation-sd';
export const IQM_METHOD = 'iqm';
export const PROFILE_METHOD = 'profile';
export const IMPROVEMENT_METHOD = 'improvement';
export const TASK_BOOTSTRAP_METHOD = 'task-bootstrap';
export const TASK_BOOTSTRAP_BOUNDARY_METHOD = 'task-bootstrap-boundary';
export const EPISODE_BOOTSTRAP_METHOD = 'episode-bootstrap';
export const CREDIBLE_INTERVAL_METHOD = 'credible-interval';
export const WELCH_METHOD = 'welch';
export const SEED_BOOTSTRAP_METHOD = 'seed-bootstrap-difference';
export const PAIRED_T_METHOD = 'paired-t';
/** A 17.8 figure's t interval over seeds, with its own per-seed values. */
export const selectionMethod = (figure: string) => `selection-${figure}`;
/** The same method at a recipe's 8 seeds (exp:recipe-claims). */
export const eightSeeds = (id: string) => `${id}-8`;

const SELECTION_LABELS: Record<string, string> = {
  winnersCurse: "17.8's winner's curse (ours)",
  winnersCurseReverse: "17.8's winner's curse the other way round",
  realAdvantage: "17.8's real advantage of the test pick",
  testSelectionGain: "17.8's test-selection gain",
  bookCurse: "17.8's winner's curse in the book's design",
};

/** What each method id prints as. */
export function methodLabel(id: string): string {
  const eight = id.endsWith('-8');
  const base = eight ? id.slice(0, -2) : id;
  const labels: Record<string, string> = {
    [CLAIM_RATE_METHOD]: 'two-stage interval of a claim rate over seeds',
    [WILSON_METHOD]: 'Wilson interval of a claim count over seeds',
    [MEAN_OVER_SEEDS_METHOD]: 't interval of a mean over seeds',
    [TRAINING_SD_METHOD]: 'training-noise SD, chi-square',
    [EVALUATION_SD_METHOD]: 'evaluation-noise SD, chi-square',
    [IQM_METHOD]: 'IQM over seeds x tasks, whole seeds redrawn',
    [PROFILE_METHOD]: 'performance profile at tau 0.5, whole seeds redrawn',
    [IMPROVEMENT_METHOD]: 'P(step 80 > step 0), whole seeds redrawn',
    [TASK_BOOTSTRAP_METHOD]: 'task (cluster) bootstrap of the mean',
    [TASK_BOOTSTRAP_BOUNDARY_METHOD]: 'task bootstrap of the mean, exact over tasks where it collapses',
    [EPISODE_BOOTSTRAP_METHOD]: 'episode bootstrap (of these tasks)',
    [CREDIBLE_INTERVAL_METHOD]: 'beta-binomial credible interval',
    [WELCH_METHOD]: 'Welch interval of B - A',
    [SEED_BOOTSTRAP_METHOD]: 'bootstrap over seeds of B - A',
    [PAIRED_T_METHOD]: 'paired t interval of B - A (8 shared seeds)',
    ...Object.fromEntries(
      Object.entries(SELECTION_LABELS).map(([figure, label]) => [
        selectionMethod(figure),
        `${label}, t over seeds`,
      ]),
    ),
  };
  const label = labels[base];
  if (label === undefined) throw new RangeError(`no coverage method '${id}'`);
  return eight ? `${label} (8 seeds)` : label;
}

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

/** The sentence for the methods `ids` (experiments/coverageMethods.ts's METHODS). */
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
