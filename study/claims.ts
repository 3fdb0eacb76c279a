import {
  binomialTestGreater,
  holmAdjust,
  mean,
  meanTInterval,
  noiseStandardDeviations,
  passAtK,
  percentileOfSorted,
  sampleStandardDeviation,
  standardDeviationInterval,
  trajectoryFalls,
  wilsonInterval,
} from '../eval/index.ts';
import { InputError } from '../lib/errors.ts';
import { Rng } from '../lib/rng.ts';
import { AGGREGATE_REPS, improvement, stepAggregates } from './aggregates.ts';
import { CHAPTER_STEPS } from './plan.ts';
import type { EvalOutput } from './job.ts';
import { evaluationOf, taskRates, type StudyResults } from './results.ts';

type Interval = { low: number; high: number };

/** The claims measured in every seed, in the order the report lists them. */
export const CLAIMS = [
  'step20AtOrAboveBase',
  'step20AtOrAboveBoth',
  'overtakesBy32',
  'narrowsBelowBase',
  'narrowsBelowBaseUncorrected',
  'lateTrainingInstability',
  'fallsDuringTraining',
  'greedyAtOrAbove',
  'hotBelow',
] as const;
export type ClaimName = (typeof CLAIMS)[number];

/** A verdict is decided when it holds in at least this share of its seed's episode resamples. */
export const DECIDED = 0.95;

/** How many seeds a claim holds in: a Wilson 95% interval on the count, a two-stage bootstrap interval on the rate, the undecided seeds. */
export interface SeedFraction {
  holds: number;
  seeds: number;
  fraction: number;
  wilson: Interval;
  /** Seeds and, within each, episodes redrawn (`twoStageRate`). */
  twoStage: Interval;
  /** Seeds whose verdict holds in fewer than DECIDED of the resamples of their episodes. */
  undecided: Array<{ seed: number; probability: number }>;
  undecidedCount: number;
}

/** A task's episode outcomes, 1 for a success. */
type Outcomes = Uint8Array;
const bits = (outcomes: string): Outcomes => Uint8Array.from(outcomes, (char) => (char === '1' ? 1 : 0));

/**
 * One-sided exact test that checkpoint `late` solves a task less often than `early`, on paired
 * episodes (every 'a' evaluation of a seed plays the same episodes): of the discordant episodes,
 * those only `early` solved ~ Binomial(discordant, 1/2) under no change (the exact McNemar test).
 */
export function pairedDropP(early: string | Outcomes, late: string | Outcomes): number {
  const [before, after] = [early, late].map((x) => (typeof x === 'string' ? bits(x) : x)) as [
    Outcomes,
    Outcomes,
  ];
  let onlyEarly = 0;
  let onlyLate = 0;
  for (let i = 0; i < before.length; i += 1) {
    if (before[i]! > after[i]!) onlyEarly += 1;
    else if (before[i]! < after[i]!) onlyLate += 1;
  }
  const key = onlyEarly * 100_003 + onlyLate;
  let p = dropPs.get(key);
  if (p === undefined) dropPs.set(key, (p = binomialTestGreater(onlyEarly, onlyEarly + onlyLate, 0.5)));
  return p;
}
// The resampled verdicts ask the same few hundred tests hundreds of thousands of times.
const dropPs = new Map<number, number>();

/** Unbiased pass@k for every c and k at n episodes, `[c][k - 1]`, made once per n. */
const passAtKTables = new Map<number, number[][]>();
function passAtKTable(n: number): number[][] {
  let table = passAtKTables.get(n);
  if (table === undefined) {
    table = Array.from({ length: n + 1 }, (_, c) =>
      Array.from({ length: n }, (_, i) => passAtK(n, c, i + 1)),
    );
    passAtKTables.set(n, table);
  }
  return table;
}

/** One seed's episodes as the verdicts read them: `steps[i][task]` at CHAPTER_STEPS[i], then greedy and T 1.3, all on the same episodes. */
interface SeedEpisodes {
  steps: Outcomes[][];
  greedy: Outcomes[];
  hot: Outcomes[];
}

const successes = (outcomes: Outcomes) => {
  let count = 0;
  for (let i = 0; i < outcomes.length; i += 1) count += outcomes[i]!;
  return count;
};
const passAt1 = (perTask: readonly Outcomes[]) =>
  mean(perTask.map((outcomes) => successes(outcomes) / outcomes.length));

/**
 * Every verdict of one seed and what it rests on. Narrowing is the book's: a task that ends
 * significantly below the base agent (exact paired test), Holm over the tasks. A fall from a
 * later peak to step 80 is late-training instability (the most significant of the 7 steps
 * between, Bonferroni over them, then Holm over the tasks); a fall anywhere in training is a
 * peak to the next trough of the task's trajectory (`trajectoryFalls`), Holm over the seed's falls.
 */
function seedVerdicts(episodes: SeedEpisodes, kMax: number, tasks: readonly string[]) {
  const n = episodes.steps[0]![0]!.length;
  const at = (step: number) => episodes.steps[CHAPTER_STEPS.indexOf(step as never)]!;
  const table = passAtKTable(n);
  const curve = (perTask: readonly Outcomes[]) => {
    const rows = perTask.map((outcomes) => table[successes(outcomes)]!);
    return Array.from({ length: n }, (_, i) => rows.reduce((sum, row) => sum + row[i]!, 0) / rows.length);
  };
  const [base, early, late] = [curve(at(0)), curve(at(20)), curve(at(80))];
  const overtake = late.findIndex((value, i) => i < kMax && base[i]! > value);
  const between = CHAPTER_STEPS.filter((step) => step > 0 && step < 80);
  const belowBaseP = tasks.map((_, t) => pairedDropP(at(0)[t]!, at(80)[t]!));
  const belowBaseHolm = holmAdjust(belowBaseP);
  const fromPeak = tasks.map((_, t) => {
    const p = between.map((step) => pairedDropP(at(step)[t]!, at(80)[t]!));
    const best = Math.min(...p);
    return { step: between[p.indexOf(best)]!, p: Math.min(1, best * between.length) };
  });
  const fromPeakHolm = holmAdjust(fromPeak.map((row) => row.p));
  const found = tasks.flatMap((task, t) => {
    const counts = episodes.steps.map((perTask) => successes(perTask[t]!));
    return trajectoryFalls(counts).map(({ from, to }) => ({
      task,
      from: { step: CHAPTER_STEPS[from]!, successes: counts[from]! },
      to: { step: CHAPTER_STEPS[to]!, successes: counts[to]! },
      p: pairedDropP(episodes.steps[from]![t]!, episodes.steps[to]![t]!),
    }));
  });
  const fallsHolm = holmAdjust(found.map((fall) => fall.p));
  const falls = found.map((fall, i) => ({ ...fall, holmP: fallsHolm[i]! }));
  const step80 = passAt1(at(80));
  const verdicts: Record<ClaimName, boolean> = {
    step20AtOrAboveBase: early.every((value, i) => value >= base[i]! - 1e-12),
    step20AtOrAboveBoth: early.every((value, i) => value >= Math.max(base[i]!, late[i]!) - 1e-12),
    overtakesBy32: overtake !== -1,
    narrowsBelowBase: belowBaseHolm.some((p) => p < 0.05),
    narrowsBelowBaseUncorrected: belowBaseP.some((p) => p < 0.05),
    lateTrainingInstability: fromPeakHolm.some((p) => p < 0.05),
    fallsDuringTraining: falls.some((fall) => fall.holmP < 0.05),
    greedyAtOrAbove: passAt1(episodes.greedy) >= step80,
    hotBelow: passAt1(episodes.hot) < step80,
  };
  return {
    verdicts,
    overtakeK: overtake === -1 ? null : overtake + 1,
    belowBase: tasks.map((task, t) => ({ task, p: belowBaseP[t]!, holmP: belowBaseHolm[t]! })),
    fromPeak: tasks.map((task, t) => ({ task, ...fromPeak[t]!, holmP: fromPeakHolm[t]! })),
    falls,
  };
}

/** The seed's episodes redrawn with replacement within each task, the same draw at every checkpoint (they played the same episodes). */
function resampleEpisodes(episodes: SeedEpisodes, rng: Rng): SeedEpisodes {
  const n = episodes.steps[0]![0]!.length;
  const draws = episodes.steps[0]!.map(() => Array.from({ length: n }, () => rng.int(n)));
  const redraw = (perTask: readonly Outcomes[]) =>
    perTask.map((outcomes, t) => {
      const drawn = new Uint8Array(n);
      for (let e = 0; e < n; e += 1) drawn[e] = outcomes[draws[t]![e]!]!;
      return drawn;
    });
  return { steps: episodes.steps.map(redraw), greedy: redraw(episodes.greedy), hot: redraw(episodes.hot) };
}

/**
 * A two-stage bootstrap of the share of seeds in which a verdict holds (Davison & Hinkley 1997,
 * "Bootstrap methods and their application", section 3.8): each replicate redraws the seeds with
 * replacement, and for each drawn seed one of its episode resamples, and takes the share of
 * verdicts that hold. It carries both the seed-to-seed variation and each verdict's evaluation
 * noise; resampling at both stages counts the evaluation noise a second time, so it errs wide.
 */
function twoStageRate(resampled: ReadonlyArray<readonly boolean[]>, reps: number, rng: Rng): Interval {
  const seeds = resampled.length;
  const replicates = Float64Array.from({ length: reps }, () => {
    let holds = 0;
    for (let s = 0; s < seeds; s += 1) {
      const draws = resampled[rng.int(seeds)]!;
      if (draws[rng.int(draws.length)]) holds += 1;
    }
    return holds / seeds;
  }).sort();
  return { low: percentileOfSorted(replicates, 0.025), high: percentileOfSorted(replicates, 0.975) };
}

/**
 * 17.8 on one seed: the held-out tasks split by variant (validation 5, test 4). The winner's
 * curse as the chapter defines it is the score a pick reports minus a fresh score of the same
 * pick: the step with the best score on the first half of the test episodes, scored on the second
 * half (and, as a second measurement, the other way round); it is negative when the pick does
 * better on fresh episodes. Beside it, the test pick's real advantage (its fresh-half score
 * minus the validation pick's on the same half) and the test-selection gain (the test pick's test
 * score minus the validation pick's, on all the test episodes: >= 0 by construction).
 */
function selection(results: StudyResults, seed: number) {
  const test = results.tasks.flatMap((task, t) => (task.variant === 4 ? [t] : []));
  const validation = results.tasks.flatMap((task, t) => (task.variant === 5 ? [t] : []));
  const scores = CHAPTER_STEPS.map((step) => {
    const perTask = evaluationOf(results, seed, step).perTask;
    const half = perTask[0]!.outcomes.length / 2;
    const rate = (tasks: number[], from: number, to: number) =>
      mean(tasks.map((t) => successes(bits(perTask[t]!.outcomes.slice(from, to))) / (to - from)));
    return {
      step,
      validation: rate(validation, 0, 2 * half),
      test: rate(test, 0, 2 * half),
      halves: [rate(test, 0, half), rate(test, half, 2 * half)] as const,
    };
  });
  const best = (score: (row: (typeof scores)[number]) => number) =>
    scores.reduce((top, row) => (score(row) > score(top) ? row : top));
  const byValidation = best((row) => row.validation);
  const byTest = best((row) => row.test);
  const [first, second] = ([0, 1] as const).map((pickHalf) => {
    const fresh = pickHalf === 0 ? 1 : 0;
    const pick = best((row) => row.halves[pickHalf]);
    return {
      step: pick.step,
      curse: pick.halves[pickHalf] - pick.halves[fresh],
      advantage: pick.halves[fresh] - byValidation.halves[fresh],
    };
  }) as [
    { step: number; curse: number; advantage: number },
    { step: number; curse: number; advantage: number },
  ];
  return {
    byValidation: { step: byValidation.step, validation: byValidation.validation, test: byValidation.test },
    byTest: { step: byTest.step, validation: byTest.validation, test: byTest.test },
    byFirstHalf: first.step,
    winnersCurse: first.curse,
    winnersCurseReverse: second.curse,
    realAdvantage: first.advantage,
    testSelectionGain: byTest.test - byValidation.test,
  };
}

/** 17.8's figures per seed, each with a t interval over seeds (`meanTInterval`). */
const SELECTION_FIGURES = [
  'winnersCurse',
  'winnersCurseReverse',
  'realAdvantage',
  'testSelectionGain',
] as const;

/** The first edit a checkpoint made most often on a task, with its count (the mechanism of a fall: 17.7). */
function commonestFirstEdit(evaluation: EvalOutput, task: number): { op: string; episodes: number } | null {
  const entries = Object.entries(evaluation.perTask[task]!.firstEdits).sort((x, y) => y[1] - x[1]);
  return entries.length === 0 ? null : { op: entries[0]![0], episodes: entries[0]![1] };
}

/** The claims read every chapter step: a study that lacks one is refused, in one line naming the steps. */
export function requireChapterSteps(plan: { dir: string; measure: { steps: readonly number[] } }): void {
  const missing = CHAPTER_STEPS.filter((step) => !plan.measure.steps.includes(step));
  if (missing.length > 0)
    throw new InputError(
      `${plan.dir}: the claims need every chapter step; this study lacks ${missing.join(', ')}`,
    );
}

/**
 * Every chapter claim measured across the seeds of a study; a study must have evaluated all
 * nine chapter steps. Pure: numbers in, numbers out, every resample drawn from `seed`'s streams.
 * `resamples` episode resamples per seed give each verdict's probability; `reps` replicates
 * every bootstrap over seeds.
 */
export function seedClaims(
  results: StudyResults,
  { seed, reps = AGGREGATE_REPS, resamples = 1000 }: { seed: number; reps?: number; resamples?: number },
) {
  const { plan, seeds } = results;
  requireChapterSteps(plan);
  const rng = new Rng(seed).fork('seeds');
  const tasks = results.tasks.map((task) => task.name);
  const kMax = Math.min(32, plan.measure.episodes);
  const perSeed = seeds.map((trainingSeed) => {
    const at = (step: number, label = 'a') => evaluationOf(results, trainingSeed, step, label);
    const outcomes = (step: number, label = 'a') =>
      at(step, label).perTask.map((count) => bits(count.outcomes));
    const episodes: SeedEpisodes = {
      steps: CHAPTER_STEPS.map((step) => outcomes(step)),
      greedy: outcomes(80, 'temperature-0'),
      hot: outcomes(80, 'temperature-1.3'),
    };
    const observed = seedVerdicts(episodes, kMax, tasks);
    const stream = rng.fork(`episodes/${trainingSeed}`);
    const resampled = Array.from(
      { length: resamples },
      () => seedVerdicts(resampleEpisodes(episodes, stream), kMax, tasks).verdicts,
    );
    return {
      seed: trainingSeed,
      passAt1: Object.fromEntries(CHAPTER_STEPS.map((step) => [step, at(step).passAt1])),
      repeat: { 30: at(30, 'b').passAt1, 80: at(80, 'b').passAt1 },
      greedy: at(80, 'temperature-0').passAt1,
      hot: at(80, 'temperature-1.3').passAt1,
      overtakeK: observed.overtakeK,
      verdicts: observed.verdicts,
      /** The share of the episode resamples in which each verdict is the observed one. */
      verdictProbability: Object.fromEntries(
        CLAIMS.map((claim) => [
          claim,
          resampled.filter((draw) => draw[claim] === observed.verdicts[claim]).length / resamples,
        ]),
      ) as Record<ClaimName, number>,
      resampledVerdicts: Object.fromEntries(
        CLAIMS.map((claim) => [claim, resampled.map((draw) => draw[claim])]),
      ) as Record<ClaimName, boolean[]>,
      /** Each task's successes at every chapter step, its peak, and its tests. */
      trajectories: tasks.map((task, t) => {
        const counts = episodes.steps.map((perTask) => successes(perTask[t]!));
        const peak = counts.indexOf(Math.max(...counts));
        return {
          task,
          successes: counts,
          peak: { step: CHAPTER_STEPS[peak]!, successes: counts[peak]! },
          belowBase: observed.belowBase[t]!,
          fromPeak: observed.fromPeak[t]!,
          falls: observed.falls
            .filter((fall) => fall.task === task)
            .map(({ task: _, ...fall }) => ({
              ...fall,
              troughFirstEdit: commonestFirstEdit(at(fall.to.step), t),
            })),
        };
      }),
      selection: selection(results, trainingSeed),
    };
  });

  const claims = Object.fromEntries(
    CLAIMS.map((claim) => {
      const holds = perSeed.filter((row) => row.verdicts[claim]).length;
      const fraction: SeedFraction = {
        holds,
        seeds: seeds.length,
        fraction: holds / seeds.length,
        wilson: wilsonInterval(holds, seeds.length),
        twoStage: twoStageRate(
          perSeed.map((row) => row.resampledVerdicts[claim]),
          reps,
          rng.fork(`two-stage/${claim}`),
        ),
        undecided: perSeed
          .filter((row) => row.verdictProbability[claim] < DECIDED)
          .map((row) => ({ seed: row.seed, probability: row.verdictProbability[claim] })),
        undecidedCount: perSeed.filter((row) => row.verdictProbability[claim] < DECIDED).length,
      };
      return [claim, fraction];
    }),
  ) as Record<ClaimName, SeedFraction>;

  const noiseAt = (step: 30 | 80) =>
    noiseStandardDeviations(
      perSeed.map((row) => row.passAt1[step]!),
      perSeed.map((row) => row.repeat[step]),
    );
  const step80 = perSeed.map((row) => row.passAt1[80]!);
  const aggregates = Object.fromEntries(
    ([0, 20, 80] as const).map((step) => [
      step,
      stepAggregates(results, step, { seed, reps, profile: true, taskBootstrap: true }),
    ]),
  ) as Record<0 | 20 | 80, ReturnType<typeof stepAggregates>>;
  // What the IQM trims at step 80: the tasks of the lowest quarter of the seed x task scores.
  const scores80 = taskRates(results, 80).flatMap((row) =>
    row.map((score, t) => ({ score, task: tasks[t]! })),
  );
  const trimmedLow = scores80
    .sort((x, y) => x.score - y.score)
    .slice(0, Math.floor(0.25 * scores80.length))
    .map((entry) => entry.task);
  return {
    seeds,
    episodes: plan.measure.episodes,
    resamples,
    reps,
    perSeed: perSeed.map(({ resampledVerdicts: _, ...row }) => row),
    claims,
    byTask: tasks.map((task, t) => ({
      task,
      belowBase: perSeed.filter((row) => row.trajectories[t]!.belowBase.holmP < 0.05).length,
      lateTrainingInstability: perSeed.filter((row) => row.trajectories[t]!.fromPeak.holmP < 0.05).length,
      fallsDuringTraining: perSeed.filter((row) =>
        row.trajectories[t]!.falls.some((fall) => fall.holmP < 0.05),
      ).length,
    })),
    noise: { step30: noiseAt(30), step80: noiseAt(80) },
    selection: Object.fromEntries(
      SELECTION_FIGURES.map((key) => [key, meanTInterval(perSeed.map((row) => row.selection[key]))]),
    ) as Record<(typeof SELECTION_FIGURES)[number], ReturnType<typeof meanTInterval>>,
    step80: {
      mean: mean(step80),
      sd: sampleStandardDeviation(step80),
      /** The SD over seeds with its chi-square 95% interval (normal seeds assumed). */
      sdInterval: standardDeviationInterval(step80),
      min: Math.min(...step80),
      max: Math.max(...step80),
    },
    aggregates,
    iqmTrimmedLow: {
      scores: trimmedLow.length,
      byTask: tasks
        .map((task) => ({ task, scores: trimmedLow.filter((name) => name === task).length }))
        .filter((row) => row.scores > 0)
        .sort((x, y) => y.scores - x.scores),
    },
    probabilityOfImprovement: improvement(results, 80, 0, { seed, reps }),
  };
}

export type SeedClaims = ReturnType<typeof seedClaims>;

/** A claim's standing in one recipe: on its side of the line, on the other, or not settled by the seeds measured. */
export type Standing = 'holds' | 'fails' | 'open';

/** The claims compared across recipes: the nine verdicts counted over seeds, then two values. */
export const VALUE_CLAIMS = ['trainingNoise30', 'winnersCurse'] as const;
export type ValueClaimName = (typeof VALUE_CLAIMS)[number];

/**
 * Where a claim stands across recipes: it holds, or fails, in every recipe measured (whatever the
 * recipe); it holds in one and fails in another (it belongs to a recipe); or some recipe leaves
 * it open.
 */
export type AcrossRecipes =
  'holds whatever the recipe' | 'fails whatever the recipe' | 'belongs to a recipe' | 'open';

/**
 * A verdict counted over seeds stands where its Wilson 95% interval on the count lies against
 * one half: it holds when the interval lies above 0.5 (more likely than not in a seed of the
 * recipe), fails when it lies below.
 */
export function rateStanding(claim: SeedFraction): Standing {
  if (claim.wilson.low > 0.5) return 'holds';
  if (claim.wilson.high < 0.5) return 'fails';
  return 'open';
}

/**
 * 17.4's "highly reproducible across seeds" (the book's training-noise SD at step 30 is
 * estimated at zero): it fails when the chi-square interval of the training-noise SD lies above
 * zero (the seed means differ by more than their evaluation noise explains), and holds when the
 * interval's high end is below the evaluation-noise SD (whatever the seeds differ by, one
 * evaluation's noise is larger).
 */
export function reproducibleStanding(noise: {
  training: Interval;
  evaluation: { estimate: number };
}): Standing {
  if (noise.training.low > 0) return 'fails';
  if (noise.training.high < noise.evaluation.estimate) return 'holds';
  return 'open';
}

/** 17.8's winner's curse (the book's +0.03): it holds when its t interval over seeds lies above zero, fails when below. */
export function curseStanding(curse: Interval): Standing {
  if (curse.low > 0) return 'holds';
  if (curse.high < 0) return 'fails';
  return 'open';
}

/** One claim in every recipe (each recipe's standing) and where it stands across them. */
export function acrossRecipes(standings: readonly Standing[]): AcrossRecipes {
  if (standings.length > 0 && standings.every((standing) => standing === 'holds'))
    return 'holds whatever the recipe';
  if (standings.length > 0 && standings.every((standing) => standing === 'fails'))
    return 'fails whatever the recipe';
  if (standings.includes('holds') && standings.includes('fails')) return 'belongs to a recipe';
  return 'open';
}

/**
 * Every claim of `seedClaims` in every recipe given (each a study of its own seeds on the held-out
 * tasks): per recipe the claim's count or value with its interval and its standing, and where the
 * claim stands across the recipes. Pure; reads only what `seedClaims` returned.
 */
export function claimsAcrossRecipes(recipes: ReadonlyArray<{ name: string; claims: SeedClaims }>) {
  if (recipes.length === 0) throw new RangeError('claimsAcrossRecipes: no recipe given');
  const rates = CLAIMS.map((claim) => {
    const per = recipes.map(({ name, claims }) => ({
      recipe: name,
      ...claims.claims[claim],
      standing: rateStanding(claims.claims[claim]),
    }));
    return {
      claim,
      kind: 'rate' as const,
      recipes: per,
      across: acrossRecipes(per.map((row) => row.standing)),
    };
  });
  const values = VALUE_CLAIMS.map((claim) => {
    const per = recipes.map(({ name, claims }) => {
      if (claim === 'trainingNoise30') {
        const noise = claims.noise.step30;
        return {
          recipe: name,
          seeds: claims.seeds.length,
          estimate: noise.training.estimate,
          low: noise.training.low,
          high: noise.training.high,
          evaluationNoise: noise.evaluation.estimate,
          standing: reproducibleStanding(noise),
        };
      }
      const curse = claims.selection.winnersCurse;
      return {
        recipe: name,
        seeds: claims.seeds.length,
        estimate: curse.estimate,
        low: curse.low,
        high: curse.high,
        standing: curseStanding(curse),
      };
    });
    return {
      claim,
      kind: 'value' as const,
      recipes: per,
      across: acrossRecipes(per.map((row) => row.standing)),
    };
  });
  return {
    recipes: recipes.map(({ name, claims }) => ({
      name,
      seeds: claims.seeds,
      episodes: claims.episodes,
      step80: claims.step80,
    })),
    rates,
    values,
  };
}

export type ClaimsAcrossRecipes = ReturnType<typeof claimsAcrossRecipes>;
