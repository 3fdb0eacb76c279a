/**
 * The interval methods `npm run exp:coverage` (experiments/coverage.ts) simulates, each at its
 * design with the truth it claims to cover, one sample's draw, and the exact truths: binomial
 * sums over a world's seeds and tasks (coverageWorld.ts).
 */
import {
  betaBinomialMeanPosterior,
  binomialPmf,
  episodeBootstrapCI,
  mean,
  meanTInterval,
  noiseStandardDeviations,
  sampleBinomial,
  taskBootstrapCI,
  welchInterval,
  wilsonInterval,
} from '../eval/index.ts';
import type { Rng } from '../lib/rng.ts';
import { compareSeedScores } from '../study/index.ts';
import { seedAggregates, seedImprovement } from './aggregates.ts';
import { getOrAdd, recordOf } from '../lib/collections.ts';
import { SELECTION_FIGURES, shareInterval } from './claims.ts';
import {
  CLAIM_RATE_METHOD,
  CREDIBLE_INTERVAL_METHOD,
  EPISODE_BOOTSTRAP_METHOD,
  IMPROVEMENT_METHOD,
  IQM_METHOD,
  MEAN_OVER_SEEDS_METHOD,
  PAIRED_T_METHOD,
  PROFILE_METHOD,
  SEED_BOOTSTRAP_METHOD,
  TASK_BOOTSTRAP_BOUNDARY_METHOD,
  TASK_BOOTSTRAP_METHOD,
  TRAINING_SD_METHOD,
  EVALUATION_SD_METHOD,
  WELCH_METHOD,
  WILSON_METHOD,
  selectionMethod,
  eightSeeds,
} from './intervalMethods.ts';
import type { World } from './coverageWorld.ts';

export const STUDY = '16 seeds x 10 tasks x 64 episodes';
export const STUDY8 = '8 seeds x 10 tasks x 64 episodes';
export const EVALUATION = '10 tasks x 32 episodes';
export const BOUNDARY = '5 tasks x 1 sample';
export const COMPARE = '16 + 8 seeds';
const EPISODES = 64;

/** One simulated data set of every design, drawn together from one world. */
type Sample = ReturnType<typeof draw>;

export type Interval = { low: number; high: number; method?: string };
export interface Sizes {
  reps: number;
  draws: number;
}
/** One interval method at one design: its interval of one sample and the truth it claims to cover. A new method is one entry. */
export interface Entry {
  /** The id reports cite it by (intervalMethods.ts). */
  id: string;
  design: string;
  interval: (sample: Sample, sizes: Sizes, rng: Rng) => Interval;
  truth: (world: World, sample: Sample) => number;
  /** The truth is the sample's own (the episode bootstrap's: these tasks' mean), not the world's. */
  perSample?: true;
}

/** One sample of every design from the world; each seed one of its rows drawn at random, each episode a fresh draw. */
export function draw(world: World, rng: Rng) {
  const score = (row: readonly number[], n: number) => row.map((p) => sampleBinomial(n, p, rng) / n);
  // A seed: its scores at step 80 and 0 on the same episodes, and a second evaluation of step 80.
  const seeds = Array.from({ length: 16 }, () => {
    const s = rng.int(world.step80.length);
    const paired = world.step80[s]!.map((late, t) => pairedEpisodes(world.step0[s]![t]!, late, rng));
    return {
      step80: paired.map((task) => task.late / EPISODES),
      step0: paired.map((task) => task.early / EPISODES),
      repeat: mean(score(world.step80[s]!, EPISODES)),
      // Per task, the episodes only step 0 solved and those only step 80 solved (the paired tests' counts).
      onlyEarly: paired.map((task) => task.onlyEarly),
      onlyLate: paired.map((task) => task.onlyLate),
    };
  });
  const pool = world.step80.flat();
  const tasks = Array.from({ length: 10 }, () => pool[rng.int(pool.length)]!);
  const boundaryTasks = Array.from({ length: 5 }, () => pool[rng.int(pool.length)]!);
  const passAt1 = (row: readonly number[]) => mean(score(row, EPISODES));
  const pick = (rows: number[][]) => rows[rng.int(rows.length)]!;
  const shared = Array.from({ length: 8 }, () => world.shared[rng.int(world.shared.length)]!);
  return {
    seeds,
    // The claim's verdict (a task's step-80 count below its step-0 count) in each seed, and the
    // share of resamples of its episodes in which it holds (exact, `resampledVerdict`).
    verdicts: seeds.map((seed) => seed.step80.some((rate, t) => rate < seed.step0[t]!)),
    support: seeds.map((seed) => resampledVerdict(seed.onlyEarly, seed.onlyLate)),
    selection: recordOf(SELECTION_FIGURES, (figure) => {
      const values = world.selection[figure];
      return Array.from({ length: 16 }, () => values[rng.int(values.length)]!);
    }),
    evaluation: { successes: tasks.map((p) => sampleBinomial(32, p, rng)), trials: 32, tasks },
    boundary: { successes: boundaryTasks.map((p) => sampleBinomial(1, p, rng)), trials: 1 },
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

/** One task's 64 episodes played by step 0 and step 80, their outcomes drawn apart: the counts the paired tests read. */
function pairedEpisodes(early: number, late: number, rng: Rng) {
  let [earlyWins, lateWins, onlyEarly, onlyLate] = [0, 0, 0, 0];
  for (let e = 0; e < EPISODES; e++) {
    const a = rng.next() < early;
    const b = rng.next() < late;
    earlyWins += a ? 1 : 0;
    lateWins += b ? 1 : 0;
    if (a && !b) onlyEarly++;
    if (b && !a) onlyLate++;
  }
  return { early: earlyWins, late: lateWins, onlyEarly, onlyLate };
}

/**
 * The probability that a resample of a seed's episodes (each task's 64 redrawn with replacement,
 * the same draw at both steps) shows a task below the base agent: 1 - prod over tasks of
 * P(only-late* >= only-early*), the starred counts trinomial at the observed shares. It is what
 * the two-stage bootstrap's second stage draws from, with infinitely many resamples.
 */
function resampledVerdict(onlyEarly: readonly number[], onlyLate: readonly number[]): number {
  let noneBelow = 1;
  onlyEarly.forEach((early, t) => (noneBelow *= notBelow(early, onlyLate[t]!)));
  return 1 - noneBelow;
}
const notBelowCache = new Map<number, number>();
const notBelow = (early: number, late: number) =>
  getOrAdd(notBelowCache, early * 1000 + late, () => {
    const [a, b] = [early / EPISODES, late / EPISODES];
    // d* discordant ~ Binomial(64, a + b); only-early* | d* ~ Binomial(d*, a / (a + b)).
    if (a + b === 0) return 1;
    const discordant = binomialPmf(EPISODES, a + b);
    let value = 0;
    for (let d = 0; d <= EPISODES; d++) {
      const split = binomialPmf(d, a / (a + b));
      for (let x = 0; x <= d; x++) if (d - x >= x) value += discordant[d]! * split[x]!;
    }
    return value;
  });

/** The two-stage interval of the claim's rate over the first `seeds` seeds (analysis/claims.ts's `twoStageRate`, resamples drawn exactly). */
function twoStage(sample: Sample, seeds: number, reps: number, rng: Rng): Interval {
  const support = sample.support.slice(0, seeds);
  const { exact, ...interval } = shareInterval(reps, seeds, () => {
    let holds = 0;
    for (let s = 0; s < seeds; s++) if (rng.next() < support[rng.int(seeds)]!) holds++;
    return holds / seeds;
  });
  return exact ? { ...interval, method: 'exact' } : interval;
}

const step80Rows = (s: Sample, seeds = 16) => s.seeds.slice(0, seeds).map((seed) => seed.step80);
const counted = (s: Sample, seeds: number) => s.verdicts.slice(0, seeds).filter(Boolean).length;
const noise = (s: Sample, seeds: number) =>
  noiseStandardDeviations(
    s.seeds.slice(0, seeds).map((seed) => mean(seed.step80)),
    s.seeds.slice(0, seeds).map((seed) => seed.repeat),
  );

/** The interval methods the results print, at the designs they print them at. */
export const METHODS: Entry[] = [
  ...[16, 8].flatMap((seeds): Entry[] => {
    const design = seeds === 16 ? STUDY : STUDY8;
    const id = (base: string) => (seeds === 16 ? base : eightSeeds(base));
    return [
      {
        id: id(CLAIM_RATE_METHOD),
        design,
        interval: (s, z, rng) => twoStage(s, seeds, z.reps, rng),
        truth: (w) => narrowingRate(w.step80, w.step0),
      },
      {
        id: id(WILSON_METHOD),
        design,
        interval: (s) => wilsonInterval(counted(s, seeds), seeds),
        truth: (w) => narrowingRate(w.step80, w.step0),
      },
      {
        id: id(MEAN_OVER_SEEDS_METHOD),
        design,
        interval: (s) => meanTInterval(step80Rows(s, seeds).map(mean)),
        truth: (w) => mean(w.step80.map(mean)),
      },
      {
        id: id(TRAINING_SD_METHOD),
        design,
        interval: (s) => noise(s, seeds).training,
        truth: (w) => trainingSdTruth(w.step80),
      },
      ...SELECTION_FIGURES.map((figure): Entry => ({
        id: id(selectionMethod(figure)),
        design,
        interval: (s) => meanTInterval(s.selection[figure].slice(0, seeds)),
        truth: (w) => mean(w.selection[figure]),
      })),
    ];
  }),
  {
    id: EVALUATION_SD_METHOD,
    design: STUDY,
    interval: (s) => noise(s, 16).evaluation,
    truth: (w) => evaluationSdTruth(w.step80, EPISODES),
  },
  {
    id: IQM_METHOD,
    design: STUDY,
    interval: (s, z, rng) =>
      seedAggregates(step80Rows(s), { metrics: ['iqm'], reps: z.reps, rng }).metrics.iqm!,
    truth: (w) => mixtureIqm(w.step80),
  },
  {
    id: PROFILE_METHOD,
    design: STUDY,
    interval: (s, z, rng) =>
      seedAggregates(step80Rows(s), { metrics: [], taus: [0.5], reps: z.reps, rng }).profile[0]!,
    truth: (w) => mixtureShareAbove(w.step80, 0.5),
  },
  {
    id: IMPROVEMENT_METHOD,
    design: STUDY,
    interval: (s, z, rng) =>
      seedImprovement(
        step80Rows(s),
        s.seeds.map((seed) => seed.step0),
        { reps: z.reps, rng },
      ),
    truth: (w) => improvementTruth(w.step80, w.step0),
  },
  {
    id: TASK_BOOTSTRAP_METHOD,
    design: EVALUATION,
    interval: (s, z, rng) => taskBootstrapCI(s.evaluation, { reps: z.reps, rng }),
    truth: (w) => mean(w.step80.flat()),
  },
  {
    id: TASK_BOOTSTRAP_BOUNDARY_METHOD,
    design: BOUNDARY,
    interval: (s, z, rng) => taskBootstrapCI(s.boundary, { reps: z.reps, rng }),
    truth: (w) => mean(w.step80.flat()),
  },
  {
    id: EPISODE_BOOTSTRAP_METHOD,
    design: EVALUATION,
    interval: (s, z, rng) => episodeBootstrapCI(s.evaluation, { reps: z.reps, rng }),
    truth: (_, s) => mean(s.evaluation.tasks),
    perSample: true,
  },
  {
    id: CREDIBLE_INTERVAL_METHOD,
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
    id: WELCH_METHOD,
    design: COMPARE,
    interval: (s) => welchInterval(s.compare.a, s.compare.b),
    truth: (w) => mean(w.second80.map(mean)) - mean(w.step80.map(mean)),
  },
  {
    id: SEED_BOOTSTRAP_METHOD,
    design: COMPARE,
    interval: (s, z, rng) => compareSeedScores(s.compare.a, s.compare.b, [], { rng, reps: z.reps }).bootstrap,
    truth: (w) => mean(w.second80.map(mean)) - mean(w.step80.map(mean)),
  },
  {
    id: PAIRED_T_METHOD,
    design: COMPARE,
    interval: (s, z, rng) =>
      compareSeedScores(s.compare.a, s.compare.b, s.compare.pairs, { rng, reps: 1 }).paired!,
    truth: (w) => mean(w.shared.map(([i, j]) => mean(w.second80[j]!) - mean(w.step80[i]!))),
  },
];

/** Score pmf of one task over a uniformly drawn seed: the mixture of Binomial(n, p_s) / n. */
function mixturePmf(rows: readonly number[][], task: number, n: number): Float64Array {
  const pmf = new Float64Array(n + 1);
  for (const row of rows) binomialPmf(n, row[task]!).forEach((mass, c) => (pmf[c]! += mass / rows.length));
  return pmf;
}

/** The pooled score pmf over tasks (each task weighted alike). */
function pooledPmf(rows: readonly number[][], n: number): Float64Array {
  const tasks = rows[0]!.length;
  const mass = new Float64Array(n + 1);
  for (let t = 0; t < tasks; t++) mixturePmf(rows, t, n).forEach((m, c) => (mass[c]! += m / tasks));
  return mass;
}

/** The IQM of the pooled score distribution: the mean of its quantile function over [0.25, 0.75]. */
export function mixtureIqm(rows: number[][], n = EPISODES): number {
  const mass = pooledPmf(rows, n);
  let [below, sum] = [0, 0];
  for (let c = 0; c <= n; c++) {
    const overlap = Math.max(0, Math.min(below + mass[c]!, 0.75) - Math.max(below, 0.25));
    sum += overlap * (c / n);
    below += mass[c]!;
  }
  return sum / 0.5;
}

/** The share of pooled seed x task scores above tau: the performance profile's truth. */
function mixtureShareAbove(rows: number[][], tau: number, n = EPISODES): number {
  const mass = pooledPmf(rows, n);
  let share = 0;
  for (let c = 0; c <= n; c++) if (c / n > tau) share += mass[c]!;
  return share;
}

/** P(X > Y) + P(X = Y) / 2 per task, averaged over tasks (rliable's probability of improvement), of independent seeds. */
export function improvementTruth(x: number[][], y: number[][], n = EPISODES): number {
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
export function narrowingRate(step80: number[][], step0: number[][], n = EPISODES): number {
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
  const means = rows.map(mean);
  const centre = mean(means);
  return Math.sqrt(mean(means.map((value) => (value - centre) ** 2)));
};
/** sqrt E[Var(pass@1 | seed)] with n episodes per task. */
const evaluationSdTruth = (rows: number[][], n: number) =>
  Math.sqrt(mean(rows.map((row) => mean(row.map((p) => (p * (1 - p)) / n)) / row.length)));
