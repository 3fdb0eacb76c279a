/**
 * Coverage of every interval the project reports, at the designs its results use, in two worlds.
 *
 * Question: does each nominal-95% interval cover a known truth 95% of the time at the sizes the
 *   results report it at, in the world of the committed studies and in one fitted to them
 *   (experiments/coverageWorld.ts; docs/CLAIMS.md, section 7)? In each world every truth is exact
 *   (binomial sums over the world's seeds and tasks) and every episode a fresh Bernoulli draw.
 *   Designs: 16 seeds x 10 tasks x 64 episodes (the study: a claim's rate, the mean, IQM,
 *   profile and P(improvement) over seeds, the noise SDs, 17.8's figures) and its first 8 seeds
 *   (a recipe of exp:recipe-claims); 10 tasks x 32 episodes (one checkpoint's evaluation: 17.1,
 *   17.5, 17.8, ex-3, ex-4); 5 tasks x 1 sample (a small log at the boundary, where the task
 *   bootstrap falls back to the exact interval); 16 + 8 seeds (`study compare`). Beside them the
 *   Wilson interval's exact coverage over the rates a claim can show, at 16 and 8 seeds.
 * Command: npm run exp:coverage [-- --seed S --smoke --out DIR]
 * Runtime: minutes of one core (2,000 simulations per world, bootstraps of 1,000 replicates,
 *   posteriors of 2,000 draws; MC SE of a coverage near 0.95 about 0.005); smoke: seconds.
 * Output: results/coverage.json, results/coverage.md.
 */
import { intervalCoverage, wilsonInterval } from '../eval/index.ts';
import { progressBar } from '../lib/progress.ts';
import { Rng } from '../lib/rng.ts';
import { DEFAULT_STUDY, ROOT } from '../lib/paths.ts';
import { isMain, runScript } from '../lib/script.ts';
import { parseStatisticsOptions } from './common.ts';
import { shareSE } from '../publish/book.ts';
import { writeResults } from '../publish/results.ts';
import {
  BOUNDARY,
  COMPARE,
  draw,
  EVALUATION,
  METHODS,
  STUDY,
  STUDY8,
  type Sizes,
} from './coverageMethods.ts';
import { methodLabel } from '../publish/coverageNotes.ts';
import { loadWorlds, type World } from './coverageWorld.ts';
import { report } from '../publish/sections/coverage.ts';
import { join } from 'node:path';

const SECOND_STUDY = 'studies/entropy-0-8';
const NOMINAL = 0.95;
/** Below this a method is flagged: more than about 4 MC SEs under 0.95 at 2,000 simulations. */
export const FLAG_BELOW = 0.93;

export { improvementTruth, METHODS, mixtureIqm, narrowingRate } from './coverageMethods.ts';

/** Every method's coverage in one world: `simulations` samples, each method's interval of each. */
function simulate(world: World, simulations: number, sizes: Sizes, rng: Rng) {
  const tally = METHODS.map(() => ({ covered: 0, high: 0, low: 0, width: 0, exact: 0 }));
  const first = draw(world, rng.fork('sample/0'));
  // The world's truths once; a per-sample truth (the episode bootstrap's) with each sample.
  const truths = METHODS.map((entry) => entry.truth(world, first));
  const bar = progressBar(`coverage, ${world.name} world`, simulations);
  for (let sim = 0; sim < simulations; sim++) {
    const sample = sim === 0 ? first : draw(world, rng.fork(`sample/${sim}`));
    METHODS.forEach((entry, m) => {
      const truth = entry.perSample === true ? entry.truth(world, sample) : truths[m]!;
      const interval = entry.interval(sample, sizes, rng.fork(`${entry.id}/${sim}`));
      const row = tally[m]!;
      // Missed high: the whole interval above the truth; missed low: below it.
      if (interval.low > truth) row.high += 1;
      else if (interval.high < truth) row.low += 1;
      else row.covered += 1;
      row.width += (interval.high - interval.low) / simulations;
      if (interval.method !== undefined && interval.method !== 'percentile') row.exact += 1;
    });
    bar.tick(sim + 1);
  }
  bar.done();
  return METHODS.map((entry, m) => {
    const { covered, high, low, width, exact } = tally[m]!;
    const coverage = covered / simulations;
    return {
      world: world.name,
      coverage,
      se: shareSE(coverage, simulations),
      missedHigh: high / simulations,
      missedLow: low / simulations,
      meanWidth: width,
      /** The share of samples whose interval fell back to the exact one (every unit alike). */
      exact: exact / simulations,
      // The episode bootstrap's truth is each sample's own tasks' mean: no one number.
      truth: entry.perSample === true ? null : truths[m]!,
    };
  });
}

/**
 * The Wilson interval's exact coverage at 16 and 8 seeds over the rates a claim can show (Brown,
 * Cai & DasGupta 2001): at every 0.05 for the table, and its lowest over a grid of 0.001, which
 * finds the dips next to 0 and 1 (below the lower end of 1 of n, only a count of 0 covers).
 */
function wilsonCoverage() {
  const coverageAt = (seeds: number, rate: number) => ({
    rate,
    coverage: intervalCoverage(seeds, rate, wilsonInterval),
  });
  const lowestOf = (points: Array<{ rate: number; coverage: number }>) =>
    points.reduce((min, point) => (point.coverage < min.coverage ? point : min));
  return [16, 8].map((seeds) => {
    const fine = Array.from({ length: 999 }, (_, i) => coverageAt(seeds, (i + 1) / 1000));
    return {
      seeds,
      at: fine.filter((_, i) => (i + 1) % 50 === 0),
      lowest: lowestOf(fine),
      lowestInside: lowestOf(fine.filter((point) => point.rate >= 0.1 && point.rate <= 0.9)),
    };
  });
}

export async function main({
  seed = 1,
  smoke = false,
  outDir,
}: {
  seed?: number;
  smoke?: boolean;
  outDir: string;
}) {
  const simulations = smoke ? 20 : 2_000;
  const sizes: Sizes = smoke ? { reps: 100, draws: 200 } : { reps: 1_000, draws: 2_000 };
  const worlds = loadWorlds(join(ROOT, DEFAULT_STUDY), join(ROOT, SECOND_STUDY), seed);
  const rng = new Rng(seed).fork('coverage');
  const byWorld = worlds.map((world) => simulate(world, simulations, sizes, rng.fork(world.name)));
  const rows = METHODS.map((entry, m) => {
    const inWorlds = byWorld.map((results) => results[m]!);
    return {
      id: entry.id,
      method: methodLabel(entry.id),
      design: entry.design,
      nominal: NOMINAL,
      worlds: inWorlds,
      flagged: inWorlds.some((world) => world.coverage < FLAG_BELOW),
    };
  });
  const numbers = { simulations, ...sizes, flagBelow: FLAG_BELOW, rows, wilson: wilsonCoverage() };
  writeResults(outDir, {
    section: 'coverage',
    title: 'Coverage of the intervals the project reports',
    seed,
    smoke,
    config: {
      simulations,
      ...sizes,
      studies: [DEFAULT_STUDY, SECOND_STUDY],
      worlds: worlds.map((world) => world.name),
      designs: [STUDY, STUDY8, EVALUATION, BOUNDARY, COMPARE],
    },
    numbers,
    echo: isMain(import.meta.url),
    ...report(numbers),
  });
  return numbers;
}

if (isMain(import.meta.url))
  await runScript('exp:coverage', () => main(parseStatisticsOptions(process.argv.slice(2))));
