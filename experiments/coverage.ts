/**
 * Coverage of every interval the project reports, at the designs its results use.
 *
 * Question: does each nominal-95% interval cover a known truth 95% of the time at the sizes the
 *   results report it at? The world is the committed studies themselves: a simulated seed is one
 *   of studies/default-16's 16 seeds drawn at random (one of studies/entropy-0-8's 8 for the
 *   second recipe), its per-task pass rates at step 0 and 80 taken as the truth, and every
 *   evaluation episode a fresh Bernoulli draw from them. So every truth is exact (binomial sums
 *   over the seeds and tasks), and the simulated data have the study's own spread between seeds,
 *   its collapsed tasks and its ties at 1. Designs: 16 seeds x 10 tasks x 64 episodes (the
 *   study: the claims, the IQM, P(improvement), the noise SDs); 10 tasks x 32 episodes (one
 *   checkpoint's evaluation: 17.1, 17.5, 17.8, ex-3, ex-4; tasks drawn from the study's 160
 *   step-80 task rates, the truth their mean); 16 + 8 seeds (`study compare`, paired on 8).
 * Command: npm run exp:coverage [-- --seed S --smoke --out DIR]
 * Runtime: 2 min 20 s of one core (measured user time: 2,000 simulations, bootstraps of 1,000
 *   replicates, posteriors of 2,000 draws; MC SE of a coverage near 0.95 about 0.005); smoke: seconds.
 * Output: results/coverage.json, results/coverage.md.
 */
import { mean, sampleBinomial } from '../eval/index.ts';
import { progressBar } from '../lib/progress.ts';
import { Rng } from '../lib/rng.ts';
import { loadResults, readPlan, sharedSeeds, taskRates } from '../study/index.ts';
import {
  DEFAULT_STUDY,
  isMain,
  parseStatisticsOptions,
  ROOT,
  runScript,
  shareSE,
  writeResults,
} from './common.ts';
import {
  COMPARE,
  EVALUATION,
  METHODS,
  STUDY,
  type Sample,
  type Sizes,
  type World,
} from './coverageMethods.ts';
import { report } from './report/coverage.ts';
import { join } from 'node:path';

const SECOND_STUDY = 'studies/entropy-0-8';
const NOMINAL = 0.95;
/** Below this a method is flagged: more than about 4 MC SEs under 0.95 at 2,000 simulations. */
export const FLAG_BELOW = 0.93;

export { improvementTruth, METHODS, mixtureIqm, narrowingRate } from './coverageMethods.ts';

/** One sample of every design from the world; each seed a study seed drawn at random, each episode a fresh draw. */
export function draw(world: World, rng: Rng): Sample {
  const pick = (rows: number[][]) => rows[rng.int(rows.length)]!;
  const score = (row: readonly number[], n: number) => row.map((p) => sampleBinomial(n, p, rng) / n);
  const seeds = Array.from({ length: 16 }, () => rng.int(world.step80.length));
  const step80 = seeds.map((s) => score(world.step80[s]!, 64));
  const step0 = seeds.map((s) => score(world.step0[s]!, 64));
  const repeat = seeds.map((s) => score(world.step80[s]!, 64));
  // The claim whose Wilson interval is measured: some task's step-80 count below its step-0 count.
  const narrowing = step80.map((row, i) => row.some((rate, t) => rate < step0[i]![t]!));
  const narrows = narrowing.filter(Boolean).length;
  // The 8-seed design is the first 8 of these 16 seeds: no draw of its own.
  const narrows8 = narrowing.slice(0, 8).filter(Boolean).length;
  const pool = world.step80.flat();
  const tasks = Array.from({ length: 10 }, () => pool[rng.int(pool.length)]!);
  const successes = tasks.map((p) => sampleBinomial(32, p, rng));
  const passAt1 = (row: readonly number[]) => mean(score(row, 64));
  const shared = Array.from({ length: 8 }, () => world.shared[rng.int(world.shared.length)]!);
  return {
    study: {
      step80,
      step0Independent: Array.from({ length: 16 }, () => score(pick(world.step0), 64)),
      a: step80.map(mean),
      b: repeat.map(mean),
      narrows,
      narrows8,
    },
    evaluation: { successes, trials: 32, tasks },
    compare: {
      a: Array.from({ length: 16 }, () => passAt1(pick(world.step80))),
      b: Array.from({ length: 8 }, () => passAt1(pick(world.second80))),
      pairs: shared.map(([i, j], k) => ({
        seed: k,
        a: passAt1(world.step80[i]!),
        b: passAt1(world.second80[j]!),
      })),
    },
  };
}

function loadWorld(): World {
  const first = loadResults(readPlan(join(ROOT, DEFAULT_STUDY)));
  const second = loadResults(readPlan(join(ROOT, SECOND_STUDY)));
  const shared = sharedSeeds(first, second).map(
    (seed) => [first.seeds.indexOf(seed), second.seeds.indexOf(seed)] as [number, number],
  );
  return {
    step80: taskRates(first, 80),
    step0: taskRates(first, 0),
    second80: taskRates(second, 80),
    shared,
  };
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
  const world = loadWorld();
  const rng = new Rng(seed).fork('coverage');
  const tally = METHODS.map(() => ({ covered: 0, high: 0, low: 0, width: 0 }));
  // The world's truths once; a per-sample truth (the episode bootstrap's) with each sample.
  const first = draw(world, rng.fork('sample/0'));
  const truths = METHODS.map((entry) => entry.truth(world, first));
  const bar = progressBar('coverage', simulations);
  for (let sim = 0; sim < simulations; sim++) {
    const sample = sim === 0 ? first : draw(world, rng.fork(`sample/${sim}`));
    METHODS.forEach((entry, m) => {
      const truth = entry.perSample === true ? entry.truth(world, sample) : truths[m]!;
      const { low, high } = entry.interval(sample, sizes, rng.fork(`${entry.method}/${sim}`));
      const row = tally[m]!;
      // Missed high: the whole interval above the truth; missed low: below it.
      if (low > truth) row.high += 1;
      else if (high < truth) row.low += 1;
      else row.covered += 1;
      row.width += (high - low) / simulations;
    });
    bar.tick(sim + 1);
  }
  bar.done();
  const rows = METHODS.map((entry, m) => {
    const { covered, high, low, width } = tally[m]!;
    const coverage = covered / simulations;
    return {
      method: entry.method,
      design: entry.design,
      nominal: NOMINAL,
      coverage,
      se: shareSE(coverage, simulations),
      missedHigh: high / simulations,
      missedLow: low / simulations,
      meanWidth: width,
      // The episode bootstrap's truth is each sample's own tasks' mean: no one number.
      truth: entry.perSample === true ? null : truths[m]!,
      flagged: coverage < FLAG_BELOW,
    };
  });
  const numbers = { simulations, ...sizes, flagBelow: FLAG_BELOW, rows };
  writeResults(outDir, {
    section: 'coverage',
    title: 'Coverage of the intervals the project reports',
    seed,
    smoke,
    config: {
      simulations,
      ...sizes,
      studies: [DEFAULT_STUDY, SECOND_STUDY],
      designs: [STUDY, EVALUATION, COMPARE],
    },
    numbers,
    echo: isMain(import.meta.url),
    ...report(numbers),
  });
  return numbers;
}

if (isMain(import.meta.url))
  await runScript('exp:coverage', () => main(parseStatisticsOptions(process.argv.slice(2))));
