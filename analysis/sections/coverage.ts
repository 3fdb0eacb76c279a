/**
 * The numbers of `npm run exp:coverage` (experiments/coverage.ts): the coverage of every interval
 * method the results report (coverageMethods.ts's METHODS) at its design, in each world
 * (coverageWorld.ts), and the Wilson interval's exact coverage over the rates a claim can show.
 */
import { intervalCoverage, wilsonInterval } from '../../eval/index.ts';
import { progressBar } from '../../lib/progress.ts';
import type { Rng } from '../../lib/rng.ts';
import { shareSE } from '../book.ts';
import { draw, METHODS, type Sizes } from '../coverageMethods.ts';
import type { World } from '../coverageWorld.ts';
import { methodLabel } from '../intervalMethods.ts';

/** The level every reported interval claims. */
const NOMINAL = 0.95;

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
      // The share of samples whose interval fell back to the exact one (every unit alike).
      exact: exact / simulations,
      // The episode bootstrap's truth is each sample's own tasks' mean: no one number (null).
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

/**
 * What exp:coverage reports: per method its coverage in every world (the stream `coverage/<world>`
 * of `rng`), flagged when below `flagBelow` in either; and Wilson's exact coverage.
 */
export function coverageNumbers({
  worlds,
  simulations,
  sizes,
  flagBelow,
  rng: parent,
}: {
  worlds: readonly World[];
  simulations: number;
  sizes: Sizes;
  flagBelow: number;
  rng: Rng;
}) {
  const rng = parent.fork('coverage');
  const byWorld = worlds.map((world) => simulate(world, simulations, sizes, rng.fork(world.name)));
  const rows = METHODS.map((entry, m) => {
    const inWorlds = byWorld.map((results) => results[m]!);
    return {
      id: entry.id,
      method: methodLabel(entry.id),
      design: entry.design,
      nominal: NOMINAL,
      worlds: inWorlds,
      flagged: inWorlds.some((world) => world.coverage < flagBelow),
    };
  });
  return { simulations, ...sizes, flagBelow, rows, wilson: wilsonCoverage() };
}

export type NumbersCoverage = ReturnType<typeof coverageNumbers>;
