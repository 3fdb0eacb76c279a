import {
  AGGREGATE_REPS,
  binomialTestGreater,
  countDropDetection,
  exactOverUnits,
  holmAdjust,
  intervalCoverage,
  mean,
  meanTInterval,
  noiseStandardDeviations,
  pairedDropTestPower,
  passAtK,
  percentileInterval,
  sampleStandardDeviation,
  standardDeviationInterval,
  taskVarianceIntraclassCorrelation,
  trajectoryFalls,
  twoSidedTPower,
  wilsonInterval,
  type Interval,
} from '../eval/index.ts';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { InputError, StatisticsError } from '../lib/errors.ts';
import { getOrAdd, recordOf } from '../lib/collections.ts';
import { Rng } from '../lib/rng.ts';
import { improvement, stepAggregates } from './aggregates.ts';
import {
  CHAPTER_STEPS,
  evaluationOf,
  taskRates,
  type EvalOutput,
  type StudyResults,
} from '../study/index.ts';

/**
 * The claims whose verdict is measured in every seed, in the order the report lists them
 * (docs/CLAIMS.md, section 2): narrowing in the book's reading (a task ends below the base agent,
 * point counts), then tested per task and with Holm; the base agent overtaking; step 20 against
 * the base agent (the headline of "the narrowing comes late") and against both (the literal
 * reading); then the falls.
 */
export const CLAIMS = [
  'endsBelowBase',
  'endsBelowBaseTested',
  'endsBelowBaseHolm',
  'overtakesBy32',
  'step20AtOrAboveBase',
  'step20AtOrAboveBoth',
  'lateTrainingInstability',
  'fallsDuringTraining',
] as const;
export type ClaimName = (typeof CLAIMS)[number];

/** 17.7 read literally cannot hold: step 20 is less trained than step 80, so below it at k = 1. */
const FALSE_BY_CONSTRUCTION: readonly ClaimName[] = ['step20AtOrAboveBoth'];

/** A verdict is well supported when at least this share of its seed's episode resamples give it. */
export const SUPPORTED = 0.95;

/** A claim fails only where its verdict would have caught the book's effect in at least this share of seeds (docs/CLAIMS.md, section 5). */
const DETECTION_TO_FAIL = 0.8;

/** Pairs of chapter steps (earlier, later): the falls a trajectory can show, all tested. */
const STEP_PAIRS = (CHAPTER_STEPS.length * (CHAPTER_STEPS.length - 1)) / 2;

/**
 * The book's effect (chapter 17.7, `speed`): "基座智能体在 64 个回合中解决它 10 次，20 步检查点
 * 13 次，80 步检查点 3 次" (the base agent solves it 10 times in 64 episodes, step 20 13 times,
 * step 80 3 times).
 */
const BOOK_TASK = { step0: 10 / 64, step20: 13 / 64, step80: 3 / 64 } as const;

/**
 * The probability that a verdict holds in one seed whose evaluation shows the book's effect on
 * one task, at `episodes` per task over `tasks` held-out tasks (exact binomial sums, the two
 * checkpoints' outcomes on an episode independent; docs/CLAIMS.md, section 4), or null where the
 * book gives no effect size. For the overtaking it is the narrowing task's alone (the book: "大 k
 * 处的全部差距都来自这一个任务", the whole gap at large k comes from this one task): far below n/2
 * successes, its unbiased pass@k at k <= 32 is higher at the base agent exactly when its count is.
 * The tested readings need the task's own drop past the correction's first threshold (Holm over
 * the tasks; Bonferroni over the steps first), so these are lower bounds when other tasks fall too.
 */
export function detectionRate(
  claim: ClaimName,
  { episodes, tasks }: { episodes: number; tasks: number },
): number | null {
  const narrowing = { n: episodes, early: BOOK_TASK.step0, late: BOOK_TASK.step80 };
  const fall = { n: episodes, early: BOOK_TASK.step20, late: BOOK_TASK.step80 };
  switch (claim) {
    case 'endsBelowBase':
    case 'overtakesBy32':
      return countDropDetection(narrowing);
    case 'endsBelowBaseTested':
      return pairedDropTestPower(narrowing, 0.05);
    case 'endsBelowBaseHolm':
      return pairedDropTestPower(narrowing, 0.05 / tasks);
    case 'lateTrainingInstability':
      return pairedDropTestPower(fall, 0.05 / ((CHAPTER_STEPS.length - 2) * tasks));
    case 'fallsDuringTraining':
      return pairedDropTestPower(fall, 0.05 / (STEP_PAIRS * tasks));
    default:
      return null;
  }
}

/** Where a claim stands in one recipe (docs/CLAIMS.md, section 5). */
type Standing = 'holds' | 'fails' | 'not detected' | 'open' | 'false by construction' | 'agrees' | 'differs';

/** How many seeds a claim holds in, its rate's interval with seed and evaluation noise, what its test could detect, and its standing. */
export type SeedFraction = ReturnType<typeof claimRates>[ClaimName];

/** A verdict's standing from its rate's interval and its detection rate (docs/CLAIMS.md, section 5). */
export function rateStanding(
  claim: ClaimName,
  { interval, detection }: { interval: Interval; detection: number | null },
): Standing {
  if (FALSE_BY_CONSTRUCTION.includes(claim)) return 'false by construction';
  if (interval.low > 0.5) return 'holds';
  if (interval.high >= 0.5) return 'open';
  return detection !== null && detection >= DETECTION_TO_FAIL ? 'fails' : 'not detected';
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
  const [before, after] = [early, late].map((x) => (typeof x === 'string' ? bits(x) : x)) as Outcomes[];
  let [onlyEarly, onlyLate] = [0, 0];
  for (let i = 0; i < before!.length; i += 1) {
    if (before![i]! > after![i]!) onlyEarly += 1;
    else if (before![i]! < after![i]!) onlyLate += 1;
  }
  return getOrAdd(dropPs, onlyEarly * 100_003 + onlyLate, () =>
    binomialTestGreater(onlyEarly, onlyEarly + onlyLate, 0.5),
  );
}
// The resampled verdicts ask the same few hundred tests hundreds of thousands of times.
const dropPs = new Map<number, number>();

/** Unbiased pass@k for every c and k at n episodes, `[c][k - 1]`, made once per n. */
const passAtKTables = new Map<number, number[][]>();
const passAtKTable = (n: number) =>
  getOrAdd(passAtKTables, n, () =>
    Array.from({ length: n + 1 }, (_, c) => Array.from({ length: n }, (_, i) => passAtK(n, c, i + 1))),
  );

/** One seed's episodes as the verdicts read them: `steps[i][task]` at CHAPTER_STEPS[i], all on the same episodes. */
type SeedEpisodes = { steps: Outcomes[][] };

const successes = (outcomes: Outcomes) => outcomes.reduce((count, outcome) => count + outcome, 0);

/**
 * Every verdict of one seed (each claim's reading and test: docs/CLAIMS.md, section 2) and what
 * it rests on: per task its drop from the base agent, its fall from a peak and its steepest drop.
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
  const belowBase = withHolm(tasks.map((task, t) => ({ task, p: pairedDropP(at(0)[t]!, at(80)[t]!) })));
  const fromPeak = withHolm(
    tasks.map((task, t) => {
      const p = between.map((step) => pairedDropP(at(step)[t]!, at(80)[t]!));
      const best = Math.min(...p);
      return { task, step: between[p.indexOf(best)]!, p: Math.min(1, best * between.length) };
    }),
  );
  // p: Bonferroni over the step pairs; holmP: then Holm over the tasks.
  const steepest = withHolm(
    tasks.map((task, t) => {
      let drop = { from: 0, to: 1, p: 1 };
      for (let i = 0; i < CHAPTER_STEPS.length; i += 1)
        for (let j = i + 1; j < CHAPTER_STEPS.length; j += 1) {
          const p = pairedDropP(episodes.steps[i]![t]!, episodes.steps[j]![t]!);
          if (p < drop.p) drop = { from: i, to: j, p };
        }
      const [from, to] = [CHAPTER_STEPS[drop.from]!, CHAPTER_STEPS[drop.to]!];
      return { task, from, to, p: Math.min(1, drop.p * STEP_PAIRS) };
    }),
  );
  const verdicts: Record<ClaimName, boolean> = {
    endsBelowBase: tasks.some((_, t) => successes(at(80)[t]!) < successes(at(0)[t]!)),
    endsBelowBaseTested: belowBase.some((row) => row.p < 0.05),
    endsBelowBaseHolm: belowBase.some((row) => row.holmP < 0.05),
    overtakesBy32: overtake !== -1,
    step20AtOrAboveBase: early.every((value, i) => value >= base[i]! - 1e-12),
    step20AtOrAboveBoth: early.every((value, i) => value >= Math.max(base[i]!, late[i]!) - 1e-12),
    lateTrainingInstability: fromPeak.some((row) => row.holmP < 0.05),
    fallsDuringTraining: steepest.some((row) => row.holmP < 0.05),
  };
  return { verdicts, overtakeK: overtake === -1 ? null : overtake + 1, belowBase, fromPeak, steepest };
}

/** Each row with its p Holm-adjusted over the rows (`holmP`). */
function withHolm<Row extends { p: number }>(rows: Row[]): Array<Row & { holmP: number }> {
  const adjusted = holmAdjust(rows.map((row) => row.p));
  return rows.map((row, i) => ({ ...row, holmP: adjusted[i]! }));
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
  return { steps: episodes.steps.map(redraw) };
}

/**
 * A two-stage bootstrap of the share of seeds in which a verdict holds (Davison & Hinkley 1997,
 * "Bootstrap methods and their application", section 3.8): each replicate redraws the seeds with
 * replacement, and for each drawn seed one of its episode resamples, and takes the share of
 * verdicts that hold. It carries both the seed-to-seed variation and each verdict's evaluation
 * noise; resampling at both stages counts the evaluation noise a second time, so it errs wide.
 * Where it has no spread (every seed's every resample gives one verdict) the exact interval over
 * the seeds stands in (`exactOverUnits`).
 */
function twoStageRate(resampled: ReadonlyArray<readonly boolean[]>, reps: number, rng: Rng) {
  const seeds = resampled.length;
  const { exact, ...interval } = shareInterval(reps, seeds, () => {
    let holds = 0;
    for (let s = 0; s < seeds; s += 1) {
      const draws = resampled[rng.int(seeds)]!;
      if (draws[rng.int(draws.length)]) holds += 1;
    }
    return holds / seeds;
  });
  return { ...interval, method: exact ? ('exact over seeds' as const) : ('two-stage bootstrap' as const) };
}

/**
 * The 95% percentile interval of `reps` replicates of a share over `seeds` seeds, or where the
 * replicates have no spread the exact interval over the seeds (`exactOverUnits`).
 */
export function shareInterval(reps: number, seeds: number, replicate: () => number) {
  const { low, high } = percentileInterval(Float64Array.from({ length: reps }, replicate), 0.95);
  return low < high ? { low, high, exact: false } : { ...exactOverUnits(low, seeds), exact: true };
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
export function seedSelection(results: StudyResults, seed: number) {
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
  const pickOn = (pickHalf: 0 | 1) => {
    const fresh = pickHalf === 0 ? 1 : 0;
    const pick = best((row) => row.halves[pickHalf]);
    return {
      step: pick.step,
      curse: pick.halves[pickHalf] - pick.halves[fresh],
      advantage: pick.halves[fresh] - byValidation.halves[fresh],
    };
  };
  const [first, second] = [pickOn(0), pickOn(1)];
  const picked = ({ step, validation, test }: (typeof scores)[number]) => ({ step, validation, test });
  return {
    byValidation: picked(byValidation),
    byTest: picked(byTest),
    byFirstHalf: first.step,
    winnersCurse: first.curse,
    winnersCurseReverse: second.curse,
    realAdvantage: first.advantage,
    testSelectionGain: byTest.test - byValidation.test,
    bookCurse: bookDesignCurse(results, seed, test),
  };
}

/** Episodes per task of one small test evaluation in the book's design of 17.8. */
const BOOK_EVALUATION_EPISODES = 8;

/**
 * 17.8's winner's curse in the book's design: "做 10 次小规模测试评测（每个任务 8 个回合），每次用来
 * 挑选一个检查点，再用另外 9 次没有参与挑选的评测给所选检查点打分" (10 small test evaluations, 8
 * episodes per task, each picking a checkpoint, which the other 9 then score). Here the seed's
 * episodes of each test task are cut into disjoint groups of 8 (8 groups of 64): each group picks
 * the best of the 8 trained checkpoints (steps 10 to 80; the earliest on a tie), the other groups
 * score the pick, and the curse is the mean over groups of the picking score less the fresh one.
 * A study of fewer than 16 episodes per task (a smoke study) is cut in two halves instead.
 */
function bookDesignCurse(results: StudyResults, seed: number, test: readonly number[]): number {
  const steps = CHAPTER_STEPS.filter((step) => step > 0);
  const outcomes = steps.map((step) =>
    test.map((t) => bits(evaluationOf(results, seed, step).perTask[t]!.outcomes)),
  );
  const episodes = outcomes[0]![0]!.length;
  // Two groups at least: a smoke study's 8 episodes are cut in halves of 4.
  const size = Math.min(BOOK_EVALUATION_EPISODES, Math.floor(episodes / 2));
  const groups = Math.floor(episodes / size);
  const score = (s: number, inGroup: (group: number) => boolean) => {
    let total = 0;
    let count = 0;
    for (const played of outcomes[s]!)
      for (let e = 0; e < groups * size; e += 1)
        if (inGroup(Math.floor(e / size))) {
          total += played[e]!;
          count += 1;
        }
    return total / count;
  };
  const curses = Array.from({ length: groups }, (_, g) => {
    const picking = steps.map((_, s) => score(s, (group) => group === g));
    const pick = picking.indexOf(Math.max(...picking));
    return picking[pick]! - score(pick, (group) => group !== g);
  });
  return mean(curses);
}

/** 17.8's figures per seed, each with a t interval over seeds (`meanTInterval`). */
export const SELECTION_FIGURES = [
  'winnersCurse',
  'winnersCurseReverse',
  'realAdvantage',
  'testSelectionGain',
  'bookCurse',
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

/** Each task's successes at every chapter step of one seed, its peak, its falls (descriptive), and its tests. */
function seedTrajectories(
  episodes: SeedEpisodes,
  observed: ReturnType<typeof seedVerdicts>,
  { tasks, at }: { tasks: readonly string[]; at: (step: number) => EvalOutput },
) {
  return tasks.map((task, t) => {
    const successesAt = episodes.steps.map((perTask) => successes(perTask[t]!));
    const peak = successesAt.indexOf(Math.max(...successesAt));
    return {
      task,
      successes: successesAt,
      peak: { step: CHAPTER_STEPS[peak]!, successes: successesAt[peak]! },
      belowBase: observed.belowBase[t]!,
      fromPeak: observed.fromPeak[t]!,
      steepest: {
        ...observed.steepest[t]!,
        troughFirstEdit: commonestFirstEdit(at(observed.steepest[t]!.to), t),
      },
      falls: trajectoryFalls(successesAt).map(({ from, to }) => ({
        from: { step: CHAPTER_STEPS[from]!, successes: successesAt[from]! },
        to: { step: CHAPTER_STEPS[to]!, successes: successesAt[to]! },
      })),
    };
  });
}

/** One seed of a study: its numbers at every chapter step, and its verdicts with their support over `resamples` episode resamples. */
function seedRow(
  results: StudyResults,
  trainingSeed: number,
  { tasks, resamples, stream }: { tasks: readonly string[]; resamples: number; stream: Rng },
) {
  const { plan } = results;
  const kMax = Math.min(32, plan.measure.episodes);
  const at = (step: number, label = 'a') => evaluationOf(results, trainingSeed, step, label);
  const episodes: SeedEpisodes = {
    steps: CHAPTER_STEPS.map((step) => at(step).perTask.map((count) => bits(count.outcomes))),
  };
  const observed = seedVerdicts(episodes, kMax, tasks);
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
    /** 17.3's rho of the base agent (the chapter's estimator), null where it does not exist. */
    baseRho: chapterRho(episodes.steps[0]!.map(successes), plan.measure.episodes),
    overtakeK: observed.overtakeK,
    verdicts: observed.verdicts,
    /** The share of the episode resamples that give each verdict as observed: a bootstrap proportion, not a probability that it is right. */
    support: recordOf(
      CLAIMS,
      (claim) => resampled.filter((draw) => draw[claim] === observed.verdicts[claim]).length / resamples,
    ),
    resampledVerdicts: recordOf(CLAIMS, (claim) => resampled.map((draw) => draw[claim])),
    trajectories: seedTrajectories(episodes, observed, { tasks, at }),
    selection: seedSelection(results, trainingSeed),
  };
}

/** Each claim's `SeedFraction`, its two-stage interval drawn from the stream `two-stage/<claim>` of `rng`. */
function claimRates(
  perSeed: ReadonlyArray<ReturnType<typeof seedRow>>,
  { reps, rng, detectionAt }: { reps: number; rng: Rng; detectionAt: { episodes: number; tasks: number } },
) {
  const seeds = perSeed.length;
  return recordOf(CLAIMS, (claim) => {
    const holds = perSeed.filter((row) => row.verdicts[claim]).length;
    const resampled = perSeed.map((row) => row.resampledVerdicts[claim]);
    const interval = twoStageRate(resampled, reps, rng.fork(`two-stage/${claim}`));
    const detection = detectionRate(claim, detectionAt);
    return {
      holds,
      seeds,
      fraction: holds / seeds,
      // The two-stage bootstrap, or the exact interval over the seeds where every resampled verdict is alike.
      interval,
      // On the count, each verdict taken as exact.
      wilson: {
        ...wilsonInterval(holds, seeds),
        coverageAtRate: intervalCoverage(seeds, holds / seeds, wilsonWithExactEnds),
      },
      weaklySupported: perSeed
        .filter((row) => row.support[claim] < SUPPORTED)
        .map((row) => ({ seed: row.seed, support: row.support[claim] })),
      // At the book's effect; null where the book gives none.
      detection,
      standing: rateStanding(claim, { interval, detection }),
    };
  });
}

/** Per task, in how many seeds it ends below the base agent, below it by Holm, falls late, and falls during training. */
function claimsByTask(perSeed: ReadonlyArray<ReturnType<typeof seedRow>>, tasks: readonly string[]) {
  return tasks.map((task, t) => ({
    task,
    endsBelowBase: perSeed.filter(
      (row) => row.trajectories[t]!.successes.at(-1)! < row.trajectories[t]!.successes[0]!,
    ).length,
    belowBaseHolm: perSeed.filter((row) => row.trajectories[t]!.belowBase.holmP < 0.05).length,
    lateTrainingInstability: perSeed.filter((row) => row.trajectories[t]!.fromPeak.holmP < 0.05).length,
    fallsDuringTraining: perSeed.filter((row) => row.trajectories[t]!.steepest.holmP < 0.05).length,
  }));
}

/** What the IQM trims at step 80: the tasks of the lowest quarter of the seed x task scores, by how many of those scores each holds. */
function iqmTrimmedLow(results: StudyResults, tasks: readonly string[]) {
  const scores80 = taskRates(results, 80).flatMap((row) =>
    row.map((score, t) => ({ score, task: tasks[t]! })),
  );
  const trimmedLow = scores80
    .sort((x, y) => x.score - y.score)
    .slice(0, Math.floor(0.25 * scores80.length))
    .map((entry) => entry.task);
  return {
    scores: trimmedLow.length,
    byTask: tasks
      .map((task) => ({ task, scores: trimmedLow.filter((name) => name === task).length }))
      .filter((row) => row.scores > 0)
      .sort((x, y) => y.scores - x.scores),
  };
}

/**
 * The sizes over seeds: 17.4's noise SDs, 17.8's figures with the winner's curse's standing, 17.5's
 * magnitudes, 17.3's base rho, and step 80's pass@1.
 */
function sizesOverSeeds(perSeed: ReadonlyArray<ReturnType<typeof seedRow>>) {
  const noiseAt = (step: 30 | 80) =>
    noiseStandardDeviations(
      perSeed.map((row) => row.passAt1[step]!),
      perSeed.map((row) => row.repeat[step]),
    );
  const step80 = perSeed.map((row) => row.passAt1[80]!);
  const selectionFigures = recordOf(SELECTION_FIGURES, (key) =>
    meanTInterval(perSeed.map((row) => row.selection[key])),
  );
  const baseRhos = perSeed.flatMap((row) => (row.baseRho === null ? [] : [row.baseRho]));
  const curse = (figure: 'winnersCurse' | 'bookCurse') =>
    curseStanding(
      selectionFigures[figure],
      perSeed.map((row) => row.selection[figure]),
    );
  const move = (at: 'greedy' | 'hot') =>
    magnitude(
      perSeed.map((row) => row[at] - row.passAt1[80]!),
      BOOK_TEMPERATURE[at],
    );
  return {
    noise: { step30: noiseAt(30), step80: noiseAt(80) },
    selection: selectionFigures,
    /** The winner's curse's standing (docs/CLAIMS.md, section 5), in ours and in the book's design. */
    curse: { ours: curse('winnersCurse'), book: curse('bookCurse') },
    /** 17.5 as magnitudes: each seed's step-80 pass@1 at greedy and at T 1.3 less at the training temperature. */
    temperature: { greedy: move('greedy'), hot: move('hot') },
    /** 17.3's base-agent rho over the seeds (the book: about 0.01). */
    baseRho:
      baseRhos.length === 0
        ? null
        : {
            mean: mean(baseRhos),
            min: Math.min(...baseRhos),
            max: Math.max(...baseRhos),
            seeds: baseRhos.length,
          },
    step80: {
      mean: mean(step80),
      sd: sampleStandardDeviation(step80),
      /** The SD over seeds with its chi-square 95% interval (normal seeds assumed). */
      sdInterval: standardDeviationInterval(step80),
      min: Math.min(...step80),
      max: Math.max(...step80),
    },
  };
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
  if (seeds.length < 2)
    throw new InputError(`${plan.dir}: the claims are measured across seeds; this study has ${seeds.length}`);
  const rng = new Rng(seed).fork('seeds');
  const tasks = results.tasks.map((task) => task.name);
  const perSeed = seeds.map((trainingSeed) =>
    seedRow(results, trainingSeed, { tasks, resamples, stream: rng.fork(`episodes/${trainingSeed}`) }),
  );
  const claims = claimRates(perSeed, {
    reps,
    rng,
    detectionAt: { episodes: plan.measure.episodes, tasks: tasks.length },
  });
  const aggregates = recordOf([0, 20, 80] as const, (step) =>
    stepAggregates(results, step, { seed, reps, profile: true, taskBootstrap: true }),
  );
  return {
    seeds,
    episodes: plan.measure.episodes,
    resamples,
    reps,
    perSeed: perSeed.map(({ resampledVerdicts: _, ...row }) => row),
    claims,
    byTask: claimsByTask(perSeed, tasks),
    ...sizesOverSeeds(perSeed),
    aggregates,
    iqmTrimmedLow: iqmTrimmedLow(results, tasks),
    probabilityOfImprovement: improvement(results, 80, 0, { seed, reps }),
  };
}

/** Wilson's interval with its ends at 0 and 1 exact where the count is 0 or n (the formula gives them up to rounding). */
function wilsonWithExactEnds(c: number, n: number): Interval {
  const { low, high } = wilsonInterval(c, n);
  return { low: c === 0 ? 0 : low, high: c === n ? 1 : high };
}

/** The chapter's rho of one checkpoint's counts, or null where it does not exist (every episode alike). */
function chapterRho(successesPerTask: readonly number[], trials: number): number | null {
  try {
    return taskVarianceIntraclassCorrelation({ successes: [...successesPerTask], trials });
  } catch (error) {
    if (error instanceof StatisticsError) return null;
    throw error;
  }
}

/**
 * 17.5's sizes in the book: temperature 1.3 moves the trained agent by -0.10, greedy decoding by
 * +0.03 to +0.04 (chapter 17.5's table).
 */
const BOOK_TEMPERATURE = { hot: [-0.1, -0.1], greedy: [0.03, 0.04] } as const;

/** A magnitude over seeds (t interval) against the book's value or range: it agrees when the interval reaches it. */
function magnitude(values: readonly number[], book: readonly [number, number]) {
  const interval = meanTInterval(values);
  const standing: Standing = interval.low <= book[1] && book[0] <= interval.high ? 'agrees' : 'differs';
  return { ...interval, book, standing };
}

/** The book's winner's curse (17.8): "在测试集上做选择把报告的数字抬高了 0.03" (selecting on the test set raised the reported number by 0.03). */
const BOOK_CURSE = 0.03;

/**
 * The power the rule's test had (docs/CLAIMS.md, section 6): the chance that its interval's lower
 * end clears 0 for a candidate `gain` above the default, with the design's standard error and
 * degrees of freedom as measured (a noncentral t; the two-sided power, whose lower tail is nil here).
 */
export function rulePower(
  difference: { standardError: number; df: number | null },
  { gain, level }: { gain: number; level: number },
): number | null {
  if (difference.df === null || !(difference.standardError > 0)) return null;
  const critical = tQuantile(1 - (1 - level) / 2, difference.df);
  return twoSidedTPower(difference.df, Math.min(37, gain / difference.standardError), critical);
}

/** The winner's curse's standing from its t interval over seeds, with its test's power at the book's +0.03 (docs/CLAIMS.md, section 5). */
export function curseStanding(
  curse: Interval,
  values: readonly number[],
): { standing: Standing; power: number } {
  const n = values.length;
  const sd = sampleStandardDeviation(values);
  const power =
    sd > 0
      ? rulePower({ standardError: sd / Math.sqrt(n), df: n - 1 }, { gain: BOOK_CURSE, level: 0.95 })!
      : 1;
  const standing: Standing = curse.low > 0 ? 'holds' : curse.high < 0 ? 'fails' : 'not detected';
  return { standing, power };
}

export type SeedClaims = ReturnType<typeof seedClaims>;

/** The claims compared across recipes beside the verdicts: 17.4's training noise, 17.8's curse in ours and in the book's design, 17.5's two magnitudes. */
export const VALUE_CLAIMS = ['trainingNoise30', 'winnersCurse', 'bookCurse', 'greedy', 'hot'] as const;
export type ValueClaimName = (typeof VALUE_CLAIMS)[number];

/** Where a claim stands across recipes (docs/CLAIMS.md, section 5). */
export type AcrossRecipes =
  | `${'holds' | 'fails' | 'agrees' | 'differs'} whatever the recipe`
  | 'false by construction'
  | 'belongs to a recipe'
  | 'open';

/** 17.4's "highly reproducible across seeds" (a training-noise SD of zero at step 30): its standing (docs/CLAIMS.md, section 5). */
export function reproducibleStanding(noise: {
  training: Interval;
  evaluation: { estimate: number };
}): Standing {
  if (noise.training.low > 0) return 'fails';
  if (noise.training.high < noise.evaluation.estimate) return 'holds';
  return 'open';
}

/** One claim in every recipe (each recipe's standing) and where it stands across them. */
export function acrossRecipes(standings: readonly Standing[]): AcrossRecipes {
  for (const standing of ['holds', 'fails', 'agrees', 'differs', 'false by construction'] as const)
    if (standings.length > 0 && standings.every((each) => each === standing))
      return standing === 'false by construction' ? standing : `${standing} whatever the recipe`;
  if (
    (standings.includes('holds') && standings.includes('fails')) ||
    (standings.includes('agrees') && standings.includes('differs'))
  )
    return 'belongs to a recipe';
  return 'open';
}

/** One value claim's estimate, interval and standing in one recipe's claims. */
function valueInRecipe(claim: ValueClaimName, name: string, claims: SeedClaims) {
  const row = (
    { estimate, low, high }: { estimate: number; low: number; high: number },
    standing: Standing,
    extra: { evaluationNoise?: number; power?: number } = {},
  ) => ({ recipe: name, seeds: claims.seeds.length, estimate, low, high, ...extra, standing });
  if (claim === 'trainingNoise30') {
    const noise = claims.noise.step30;
    return row(noise.training, reproducibleStanding(noise), { evaluationNoise: noise.evaluation.estimate });
  }
  if (claim === 'winnersCurse' || claim === 'bookCurse') {
    const { standing, power } = claims.curse[claim === 'winnersCurse' ? 'ours' : 'book'];
    return row(claims.selection[claim], standing, { power });
  }
  return row(claims.temperature[claim], claims.temperature[claim].standing);
}

/**
 * Every claim of `seedClaims` in every recipe given (each a study of its own seeds on the held-out
 * tasks): per recipe the claim's count or value with its interval and its standing, and where the
 * claim stands across the recipes. Pure; reads only what `seedClaims` returned.
 */
export function claimsAcrossRecipes(recipes: ReadonlyArray<{ name: string; claims: SeedClaims }>) {
  if (recipes.length === 0) throw new RangeError('claimsAcrossRecipes: no recipe given');
  const across = <Kind, Row extends { standing: Standing }>(
    claim: Kind,
    kind: 'rate' | 'value',
    row: (recipe: { name: string; claims: SeedClaims }) => Row,
  ) => {
    const per = recipes.map(row);
    return { claim, kind, recipes: per, across: acrossRecipes(per.map(({ standing }) => standing)) };
  };
  const rates = CLAIMS.map((claim) =>
    across(claim, 'rate', ({ name, claims }) => ({ recipe: name, ...claims.claims[claim] })),
  );
  const values = VALUE_CLAIMS.map((claim) =>
    across(claim, 'value', ({ name, claims }) => valueInRecipe(claim, name, claims)),
  );
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
