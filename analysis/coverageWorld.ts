/**
 * The two worlds `npm run exp:coverage` simulates in (docs/CLAIMS.md, section 7). The observed
 * world is the committed studies themselves: a simulated seed is one of the study's seeds, its
 * per-task pass rates taken as the truth, so no seed can be worse than the worst observed. The
 * fitted world is a population of seeds drawn from a model fitted to the same data: each task's
 * rates over seeds a beta distribution (method of moments, the binomial noise of 64 episodes taken
 * out), the tasks of a seed tied by one shared normal factor (a Gaussian copula) whose weight makes
 * the SD of the seed means match the study's, less its evaluation noise.
 */
import betaQuantile from '@stdlib/stats-base-dists-beta-quantile';
import {
  mean,
  normalCdfStandard,
  sampleStandardDeviation,
  sampleStandardNormal,
  sampleVariance,
} from '../eval/index.ts';
import { InputError } from '../lib/errors.ts';
import { Rng } from '../lib/rng.ts';
import { loadResults, readPlan, sharedSeeds, taskRates, type StudyResults } from '../study/index.ts';
import { recordOf } from '../lib/collections.ts';
import { SELECTION_FIGURES, seedSelection } from './claims.ts';

/** A world: the truth every simulated sample is drawn from, rows[seed][task] of pass rates. */
export interface World {
  name: 'observed' | 'fitted';
  step80: number[][];
  /** Step 0 of the same seeds (row i is row i's seed at step 0). */
  step0: number[][];
  /** The second recipe's step 80. */
  second80: number[][];
  /** Row indices [first, second] of the seeds the two recipes share (`sharedSeeds`, as `study compare` pairs them). */
  shared: Array<[number, number]>;
  /** 17.8's figures, one value per seed: the population a sample's seeds are drawn from. */
  selection: Record<(typeof SELECTION_FIGURES)[number], number[]>;
}

/** Seeds in the fitted world's population. */
const POPULATION = 4000;
/** Episodes per task of the studies the worlds are fitted to. */
const EPISODES = 64;

/** The observed world: the two studies' seeds as they are. */
function observedWorld(first: StudyResults, second: StudyResults): World {
  return {
    name: 'observed',
    step80: taskRates(first, 80),
    step0: taskRates(first, 0),
    second80: taskRates(second, 80),
    shared: sharedSeeds(first, second).map((seed) => [first.seeds.indexOf(seed), second.seeds.indexOf(seed)]),
    selection: recordOf(SELECTION_FIGURES, (figure) =>
      first.seeds.map((seed) => seedSelection(first, seed)[figure]),
    ),
  };
}

/** A task's beta distribution over seeds, by the method of moments on its observed rates less their binomial noise. */
function fitBeta(rates: readonly number[]): { a: number; b: number } {
  const floor = 0.5 / EPISODES;
  const centre = Math.min(1 - floor, Math.max(floor, mean(rates)));
  const binomial = mean(rates.map((rate) => (rate * (1 - rate)) / (EPISODES - 1)));
  // At least a hair of spread: a task every seed solves alike is still a distribution.
  const spread = Math.max(1e-4, sampleVariance(rates) - binomial);
  const variance = Math.min(spread, 0.99 * centre * (1 - centre));
  const common = (centre * (1 - centre)) / variance - 1;
  return { a: centre * common, b: (1 - centre) * common };
}

/** The SD of a study's seed means less its evaluation noise: what the copula's weight must reproduce. */
function seedMeanSpread(rows: readonly number[][]): number {
  const tasks = rows[0]!.length;
  const evaluation = mean(
    rows.map((row) => mean(row.map((rate) => (rate * (1 - rate)) / (EPISODES - 1))) / tasks),
  );
  return Math.sqrt(Math.max(0, sampleVariance(rows.map((row) => mean(row))) - evaluation));
}

/**
 * A population of seeds from one step's rows: per task a fitted beta, tied within a seed by the
 * weight rho of one shared standard normal (u = Phi(sqrt(rho) z + sqrt(1 - rho) e)), rho found by
 * bisection on the same normals (the seed-mean SD rises with rho) to match `seedMeanSpread`.
 */
function fittedRows(rows: readonly number[][], rng: Rng): number[][] {
  const tasks = rows[0]!.length;
  const betas = Array.from({ length: tasks }, (_, t) => fitBeta(rows.map((row) => row[t]!)));
  const shared = Array.from({ length: POPULATION }, () => sampleStandardNormal(rng));
  const own = Array.from({ length: POPULATION }, () =>
    Array.from({ length: tasks }, () => sampleStandardNormal(rng)),
  );
  const population = (rho: number) =>
    shared.map((z, s) =>
      betas.map(({ a, b }, t) =>
        betaQuantile(normalCdfStandard(Math.sqrt(rho) * z + Math.sqrt(1 - rho) * own[s]![t]!), a, b),
      ),
    );
  const target = seedMeanSpread(rows);
  const spreadAt = (rho: number) => sampleStandardDeviation(population(rho).map((row) => mean(row)));
  let [low, high] = [0, 0.999];
  if (spreadAt(high) <= target) return population(high);
  if (spreadAt(low) >= target) return population(low);
  for (let i = 0; i < 30; i += 1) {
    const middle = (low + high) / 2;
    if (spreadAt(middle) < target) low = middle;
    else high = middle;
  }
  return population((low + high) / 2);
}

/**
 * 17.8's figures in the fitted world: each a population drawn from its observed per-seed values
 * as a point mass at 0 (the share of seeds exactly at 0: a pick that is the validation pick
 * scores no advantage) and a normal fitted to the rest.
 */
function fittedValues(values: readonly number[], rng: Rng): number[] {
  const zeros = values.filter((value) => Math.abs(value) < 1e-12).length / values.length;
  const rest = values.filter((value) => Math.abs(value) >= 1e-12);
  const centre = rest.length === 0 ? 0 : mean(rest);
  const sd = rest.length < 2 ? 0 : sampleStandardDeviation(rest);
  return Array.from({ length: POPULATION }, () =>
    rng.next() < zeros ? 0 : centre + sd * sampleStandardNormal(rng),
  );
}

/** The fitted world: populations of seeds drawn from models of the two studies. */
function fittedWorld(observed: World, rng: Rng): World {
  return {
    name: 'fitted',
    step80: fittedRows(observed.step80, rng.fork('step80')),
    step0: fittedRows(observed.step0, rng.fork('step0')),
    second80: fittedRows(observed.second80, rng.fork('second80')),
    // A seed the two recipes share: a row of each population, drawn apart.
    shared: Array.from({ length: POPULATION }, (_, i): [number, number] => [i, i]),
    selection: recordOf(SELECTION_FIGURES, (figure) =>
      fittedValues(observed.selection[figure], rng.fork(`selection/${figure}`)),
    ),
  };
}

/** Both worlds of the committed studies. */
export function loadWorlds(firstStudy: string, secondStudy: string, seed: number): World[] {
  const first = loadResults(readPlan(firstStudy));
  const second = loadResults(readPlan(secondStudy));
  const observed = observedWorld(first, second);
  if (observed.shared.length === 0)
    throw new InputError(
      `coverage: ${firstStudy} and ${secondStudy} share no seed (the same seed from the same base agent, evaluated on the same episodes), so the paired comparison's coverage cannot be simulated; run both studies with the same code`,
    );
  return [observed, fittedWorld(observed, new Rng(seed).fork('fitted-world'))];
}
