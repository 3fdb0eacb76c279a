/**
 * The interval methods `npm run exp:coverage` (experiments/coverage.ts) simulates, each at its
 * design with the truth it claims to cover, and the exact truths: binomial sums over the
 * committed studies' seeds and tasks.
 */
import {
  betaBinomialMeanPosterior,
  bootstrapCI,
  binomialPmf,
  episodeBootstrapCI,
  mean,
  meanTInterval,
  noiseStandardDeviations,
  percentileOfSorted,
  probabilityOfImprovementInterval,
  sampleVariance,
  stratifiedBootstrap,
  interquartileMean,
  taskBootstrapCI,
  welchInterval,
  wilsonInterval,
} from '../eval/index.ts';
import type { Rng } from '../lib/rng.ts';
import { compareSeedScores } from '../study/index.ts';
import {
  CREDIBLE_INTERVAL_METHOD,
  EPISODE_BOOTSTRAP_METHOD,
  MEAN_OVER_SEEDS_METHOD,
  TRAINING_SD_8_METHOD,
  WILSON_8_METHOD,
  IMPROVEMENT_METHOD,
  IQM_METHOD,
  PAIRED_T_METHOD,
  SEED_BOOTSTRAP_METHOD,
  TASK_BOOTSTRAP_METHOD,
  WELCH_METHOD,
} from './coverageNotes.ts';

/** The truth: rows[seed][task] pass rates of each recipe and step. */
export interface World {
  step80: number[][];
  step0: number[][];
  second80: number[][];
  /** Row indices [first, second] of the seeds the two studies share (`sharedSeeds`, as `study compare` pairs them). */
  shared: Array<[number, number]>;
}

/** One simulated data set of every design, drawn together. */
export interface Sample {
  study: {
    step80: number[][];
    step0Independent: number[][];
    a: number[];
    b: number[];
    narrows: number;
    /** The claim's count over the first 8 of the 16 seeds (the 8-seed design). */
    narrows8: number;
  };
  evaluation: { successes: number[]; trials: number; tasks: number[] };
  compare: { a: number[]; b: number[]; pairs: Array<{ seed: number; a: number; b: number }> };
}

export type Interval = { low: number; high: number };
export interface Sizes {
  reps: number;
  draws: number;
}
/**
 * One interval method at one design: its interval of one sample and the truth it claims to cover.
 * A new method is one entry.
 */
export interface Entry {
  method: string;
  design: string;
  interval: (sample: Sample, sizes: Sizes, rng: Rng) => Interval;
  truth: (world: World, sample: Sample) => number;
  /** The truth is the sample's own (the episode bootstrap's: these tasks' mean), not the world's. */
  perSample?: true;
}

export const STUDY = '16 seeds x 10 tasks x 64 episodes';
/** A recipe's study of 8 seeds (exp:recipe-claims), simulated as the first 8 seeds of each STUDY sample. */
export const STUDY8 = '8 seeds x 10 tasks x 64 episodes';
export const EVALUATION = '10 tasks x 32 episodes';
export const COMPARE = '16 + 8 seeds';

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
    method: IQM_METHOD,
    design: STUDY,
    interval: (s, z, rng) =>
      stratifiedBootstrap(s.study.step80, (scores) => [interquartileMean(scores)], { reps: z.reps, rng })[0]!,
    truth: (w) => mixtureIqm(w.step80),
  },
  {
    method: IMPROVEMENT_METHOD,
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
    method: WELCH_METHOD,
    design: COMPARE,
    interval: (s) => welchInterval(s.compare.a, s.compare.b),
    truth: (w) => mean(w.second80.map(seedMean)) - mean(w.step80.map(seedMean)),
  },
  {
    method: SEED_BOOTSTRAP_METHOD,
    design: COMPARE,
    interval: (s, z, rng) => compareSeedScores(s.compare.a, s.compare.b, [], { rng, reps: z.reps }).bootstrap,
    truth: (w) => mean(w.second80.map(seedMean)) - mean(w.step80.map(seedMean)),
  },
  {
    method: PAIRED_T_METHOD,
    design: COMPARE,
    interval: (s, z, rng) =>
      compareSeedScores(s.compare.a, s.compare.b, s.compare.pairs, { rng, reps: 1 }).paired!,
    truth: (w) => mean(w.shared.map(([i, j]) => seedMean(w.second80[j]!) - seedMean(w.step80[i]!))),
  },
  {
    method: WILSON_8_METHOD,
    design: STUDY8,
    interval: (s) => wilsonInterval(s.study.narrows8, 8),
    truth: (w) => narrowingRate(w.step80, w.step0),
  },
  {
    method: TRAINING_SD_8_METHOD,
    design: STUDY8,
    interval: (s) => noiseStandardDeviations(s.study.a.slice(0, 8), s.study.b.slice(0, 8)).training,
    truth: (w) => trainingSdTruth(w.step80),
  },
  {
    method: MEAN_OVER_SEEDS_METHOD,
    design: STUDY,
    interval: (s) => meanTInterval(s.study.a),
    truth: (w) => mean(w.step80.map(seedMean)),
  },
  {
    method: `${MEAN_OVER_SEEDS_METHOD} (8)`,
    design: STUDY8,
    interval: (s) => meanTInterval(s.study.a.slice(0, 8)),
    truth: (w) => mean(w.step80.map(seedMean)),
  },
  {
    method: 'percentile bootstrap over seeds of a mean (replaced)',
    design: STUDY,
    interval: (s, z, rng) => bootstrapCI(s.study.a, { reps: z.reps, rng }),
    truth: (w) => mean(w.step80.map(seedMean)),
  },
  {
    method: 'percentile bootstrap over seeds of a mean (replaced) (8)',
    design: STUDY8,
    interval: (s, z, rng) => bootstrapCI(s.study.a.slice(0, 8), { reps: z.reps, rng }),
    truth: (w) => mean(w.step80.map(seedMean)),
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
export const trainingSdTruth = (rows: number[][]) => {
  const means = rows.map(seedMean);
  const centre = mean(means);
  return Math.sqrt(mean(means.map((value) => (value - centre) ** 2)));
};
/** sqrt E[Var(pass@1 | seed)] with n episodes per task. */
export const evaluationSdTruth = (rows: number[][], n: number) =>
  Math.sqrt(mean(rows.map((row) => mean(row.map((p) => (p * (1 - p)) / n)) / row.length)));
