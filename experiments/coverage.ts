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
import {
  betaBinomialMeanPosterior,
  binomialPmf,
  episodeBootstrapCI,
  mean,
  noiseStandardDeviations,
  percentileOfSorted,
  probabilityOfImprovementInterval,
  sampleBinomial,
  sampleVariance,
  stratifiedBootstrap,
  interquartileMean,
  taskBootstrapCI,
  welchInterval,
  wilsonInterval,
} from '../eval/index.ts';
import { progressBar } from '../lib/progress.ts';
import { Rng } from '../lib/rng.ts';
import { compareSeedScores, loadResults, readPlan, sharedSeeds, taskRates } from '../study/index.ts';
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
  CREDIBLE_INTERVAL_METHOD,
  EPISODE_BOOTSTRAP_METHOD,
  TASK_BOOTSTRAP_METHOD,
} from './coverageNotes.ts';
import { report } from './report/coverage.ts';
import { join } from 'node:path';

const SECOND_STUDY = 'studies/entropy-0-8';
const NOMINAL = 0.95;
/** Below this a method is flagged: more than about 4 MC SEs under 0.95 at 2,000 simulations. */
export const FLAG_BELOW = 0.93;

/** The truth: rows[seed][task] pass rates of each recipe and step. */
interface World {
  step80: number[][];
  step0: number[][];
  second80: number[][];
  /** Row indices [first, second] of the seeds the two studies share (`sharedSeeds`, as `study compare` pairs them). */
  shared: Array<[number, number]>;
}

/** One simulated data set of every design, drawn together. */
interface Sample {
  study: { step80: number[][]; step0Independent: number[][]; a: number[]; b: number[]; narrows: number };
  evaluation: { successes: number[]; trials: number; tasks: number[] };
  compare: { a: number[]; b: number[]; pairs: Array<{ seed: number; a: number; b: number }> };
}

type Interval = { low: number; high: number };
interface Sizes {
  reps: number;
  draws: number;
}
/**
 * One interval method at one design: its interval of one sample and the truth it claims to cover.
 * A new method is one entry.
 */
interface Entry {
  method: string;
  design: string;
  interval: (sample: Sample, sizes: Sizes, rng: Rng) => Interval;
  truth: (world: World, sample: Sample) => number;
  /** The truth is the sample's own (the episode bootstrap's: these tasks' mean), not the world's. */
  perSample?: true;
}

const STUDY = '16 seeds x 10 tasks x 64 episodes';
const EVALUATION = '10 tasks x 32 episodes';
const COMPARE = '16 + 8 seeds';

const seedMean = (row: readonly number[]) => mean(row);
/** 17.4's split of two evaluations per seed, for the percentile bootstrap that the chi-square interval replaced (kept to show why). */
function trainingNoise(a: readonly number[], b: readonly number[]) {
  const evaluation = mean(a.map((value, i) => (value - b[i]!) ** 2 / 2));
  const seedMeans = a.map((value, i) => (value + b[i]!) / 2);
  return {
    training: Math.sqrt(Math.max(0, sampleVariance(seedMeans) - evaluation / 2)),
    evaluation: Math.sqrt(evaluation),
  };
}
/** The percentile bootstrap over seeds that the noise SDs had before the chi-square interval. */
function seedBootstrap(
  n: number,
  statistic: (indices: number[]) => number,
  reps: number,
  rng: Rng,
): Interval {
  const replicates = Float64Array.from({ length: reps }, () =>
    statistic(Array.from({ length: n }, () => rng.int(n))),
  ).sort();
  return { low: percentileOfSorted(replicates, 0.025), high: percentileOfSorted(replicates, 0.975) };
}
/** The percentile bootstrap over a sample's 16 seeds of one of the two noise SDs. */
const noiseInterval = (s: Sample, which: 'training' | 'evaluation', reps: number, rng: Rng) =>
  seedBootstrap(
    s.study.a.length,
    (ix) =>
      trainingNoise(
        ix.map((i) => s.study.a[i]!),
        ix.map((i) => s.study.b[i]!),
      )[which],
    reps,
    rng,
  );
export const METHODS: Entry[] = [
  {
    method: 'Wilson, a claim over seeds',
    design: STUDY,
    interval: (s) => wilsonInterval(s.study.narrows, 16),
    truth: (w) => narrowingRate(w.step80, w.step0),
  },
  {
    method: 'stratified-bootstrap IQM (step 80)',
    design: STUDY,
    interval: (s, z, rng) =>
      stratifiedBootstrap(s.study.step80, (scores) => [interquartileMean(scores)], { reps: z.reps, rng })[0]!,
    truth: (w) => mixtureIqm(w.step80),
  },
  {
    method: 'P(step 80 > step 0), stratified bootstrap',
    design: STUDY,
    interval: (s, z, rng) =>
      probabilityOfImprovementInterval(s.study.step80, s.study.step0Independent, { reps: z.reps, rng }),
    truth: (w) => improvementTruth(w.step80, w.step0),
  },
  {
    method: 'training-noise SD, chi-square (reported)',
    design: STUDY,
    interval: (s) => noiseStandardDeviations(s.study.a, s.study.b).training,
    truth: (w) => trainingSdTruth(w.step80),
  },
  {
    method: 'evaluation-noise SD, chi-square (reported)',
    design: STUDY,
    interval: (s) => noiseStandardDeviations(s.study.a, s.study.b).evaluation,
    truth: (w) => evaluationSdTruth(w.step80, 64),
  },
  {
    method: 'training-noise SD, percentile bootstrap (replaced)',
    design: STUDY,
    interval: (s, z, rng) => noiseInterval(s, 'training', z.reps, rng),
    truth: (w) => trainingSdTruth(w.step80),
  },
  {
    method: 'evaluation-noise SD, percentile bootstrap (replaced)',
    design: STUDY,
    interval: (s, z, rng) => noiseInterval(s, 'evaluation', z.reps, rng),
    truth: (w) => evaluationSdTruth(w.step80, 64),
  },
  {
    method: TASK_BOOTSTRAP_METHOD,
    design: EVALUATION,
    interval: (s, z, rng) => taskBootstrapCI(s.evaluation, { reps: z.reps, rng }),
    truth: (w) => mean(w.step80.flat()),
  },
  {
    method: EPISODE_BOOTSTRAP_METHOD,
    design: EVALUATION,
    interval: (s, z, rng) => episodeBootstrapCI(s.evaluation, { reps: z.reps, rng }),
    truth: (_, s) => mean(s.evaluation.tasks),
    perSample: true,
  },
  {
    method: CREDIBLE_INTERVAL_METHOD,
    design: EVALUATION,
    interval: (s, z, rng) =>
      betaBinomialMeanPosterior({
        successes: s.evaluation.successes,
        trials: s.evaluation.successes.map(() => s.evaluation.trials),
        draws: z.draws,
        rng,
      }),
    truth: (w) => mean(w.step80.flat()),
  },
  {
    method: 'Welch interval of B - A',
    design: COMPARE,
    interval: (s) => welchInterval(s.compare.a, s.compare.b),
    truth: (w) => mean(w.second80.map(seedMean)) - mean(w.step80.map(seedMean)),
  },
  {
    method: 'bootstrap over seeds of B - A',
    design: COMPARE,
    interval: (s, z, rng) => compareSeedScores(s.compare.a, s.compare.b, [], { rng, reps: z.reps }).bootstrap,
    truth: (w) => mean(w.second80.map(seedMean)) - mean(w.step80.map(seedMean)),
  },
  {
    method: 'paired t interval of B - A (8 shared seeds)',
    design: COMPARE,
    interval: (s, z, rng) =>
      compareSeedScores(s.compare.a, s.compare.b, s.compare.pairs, { rng, reps: 1 }).paired!,
    truth: (w) => mean(w.shared.map(([i, j]) => seedMean(w.second80[j]!) - seedMean(w.step80[i]!))),
  },
];

/** Score pmf of one task over a uniformly drawn seed: the mixture of Binomial(n, p_s) / n. */
function mixturePmf(rows: readonly number[][], task: number, n: number): Float64Array {
  const pmf = new Float64Array(n + 1);
  for (const row of rows) binomialPmf(n, row[task]!).forEach((mass, c) => (pmf[c]! += mass / rows.length));
  return pmf;
}

/** The IQM of the pooled score distribution (every task weighted alike): the mean of its quantile function over [0.25, 0.75]. */
export function mixtureIqm(rows: number[][], n = 64): number {
  const tasks = rows[0]!.length;
  const mass = new Float64Array(n + 1);
  for (let t = 0; t < tasks; t++) mixturePmf(rows, t, n).forEach((m, c) => (mass[c]! += m / tasks));
  let [below, sum] = [0, 0];
  for (let c = 0; c <= n; c++) {
    const overlap = Math.max(0, Math.min(below + mass[c]!, 0.75) - Math.max(below, 0.25));
    sum += overlap * (c / n);
    below += mass[c]!;
  }
  return sum / 0.5;
}

/** P(X > Y) + P(X = Y) / 2 per task, averaged over tasks (rliable's probability of improvement), of independent seeds. */
export function improvementTruth(x: number[][], y: number[][], n = 64): number {
  const tasks = x[0]!.length;
  let total = 0;
  for (let t = 0; t < tasks; t++) {
    const [px, py] = [mixturePmf(x, t, n), mixturePmf(y, t, n)];
    let cumulative = 0;
    for (let c = 0; c <= n; c++) {
      total += (px[c]! * (cumulative + py[c]! / 2)) / tasks;
      cumulative += py[c]!;
    }
  }
  return total;
}

/** P(some task's step-80 count is below its step-0 count) for a seed drawn at random, 64 episodes each. */
export function narrowingRate(step80: number[][], step0: number[][], n = 64): number {
  return mean(
    step80.map((row, s) => {
      let allHold = 1;
      row.forEach((p80, t) => {
        const [late, early] = [binomialPmf(n, p80), binomialPmf(n, step0[s]![t]!)];
        let atLeast = 0;
        let holds = 0;
        for (let c = n; c >= 0; c--) {
          atLeast += late[c]!;
          holds += early[c]! * atLeast;
        }
        allHold *= holds;
      });
      return 1 - allHold;
    }),
  );
}

/** SD of a seed's true pass@1 over the seeds (each seed equally likely). */
const trainingSdTruth = (rows: number[][]) => {
  const means = rows.map(seedMean);
  const centre = mean(means);
  return Math.sqrt(mean(means.map((value) => (value - centre) ** 2)));
};
/** sqrt E[Var(pass@1 | seed)] with n episodes per task. */
const evaluationSdTruth = (rows: number[][], n: number) =>
  Math.sqrt(mean(rows.map((row) => mean(row.map((p) => (p * (1 - p)) / n)) / row.length)));

/** One sample of every design from the world; each seed a study seed drawn at random, each episode a fresh draw. */
export function draw(world: World, rng: Rng): Sample {
  const pick = (rows: number[][]) => rows[rng.int(rows.length)]!;
  const score = (row: readonly number[], n: number) => row.map((p) => sampleBinomial(n, p, rng) / n);
  const seeds = Array.from({ length: 16 }, () => rng.int(world.step80.length));
  const step80 = seeds.map((s) => score(world.step80[s]!, 64));
  const step0 = seeds.map((s) => score(world.step0[s]!, 64));
  const repeat = seeds.map((s) => score(world.step80[s]!, 64));
  // The claim whose Wilson interval is measured: some task's step-80 count below its step-0 count.
  const narrows = step80.filter((row, i) => row.some((rate, t) => rate < step0[i]![t]!)).length;
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
  await runScript('exp:coverage', () => main(parseStatisticsOptions(process.argv.slice(2), { seed: 1 })));
