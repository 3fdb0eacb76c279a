import { describe, expect, it } from 'vitest';
import {
  binomialTestGreater,
  fisherExactGreater,
  holmAdjust,
  correlationTest,
  meanTInterval,
  pairedTInterval,
  pitmanMorganTest,
  requiredSeeds,
  requiredUnits,
  mean,
  probabilityOfImprovement,
  probabilityOfImprovementInterval,
  rliableAggregates,
  stratifiedBootstrap,
  trajectoryFalls,
  welchInterval,
} from '../eval/index.ts';
import { interquartileMeanOfSorted, profileOfSorted } from '../eval/stratifiedBootstrap.ts';
import { noncentralTCdf } from '../eval/power.ts';
import { CHAPTER_STEPS, compareSeedScores, type EvalOutput, type StudyResults } from '../study/index.ts';
import { formatComparison, type StudyComparison } from '../study/compare.ts';
import { seedClaims } from '../analysis/index.ts';
import {
  pairedDropP,
  acrossRecipes,
  claimsAcrossRecipes,
  curseStanding,
  detectionRate,
  rateStanding,
  reproducibleStanding,
} from '../analysis/claims.ts';
import { Rng } from '../lib/rng.ts';

/** The interquartile mean of any values, by the aggregates' own IQM of sorted values. */
const interquartileMean = (values: ArrayLike<number>) =>
  interquartileMeanOfSorted(Float64Array.from(values).sort());

// A fixed 6 runs x 4 tasks example (and a 4-run one to compare against). Reference values from
// Python 3.11 with scipy 1.10 and numpy 1.24 (Debian bookworm), as rliable defines them:
//   st.trim_mean(x.flatten(), 0.25)                                  (rliable aggregate_iqm)
//   [(x.flatten() > t).mean() for t in taus]                         (rliable score distributions)
//   mean over tasks of mannwhitneyu(x[:, m], y[:, m]).statistic / (6 * 4)  (rliable probability_of_improvement)
//   st.ttest_ind(b, a, equal_var=False).confidence_interval(0.95), .df
//   st.binomtest(k, n, p, alternative='greater').pvalue
const X = [
  [0.1, 0.5, 0.9, 0.3],
  [0.2, 0.55, 0.8, 0.35],
  [0.05, 0.6, 0.95, 0.4],
  [0.3, 0.45, 0.85, 0.25],
  [0.15, 0.5, 1.0, 0.3],
  [0.25, 0.7, 0.9, 0.2],
];
const Y = [
  [0.1, 0.4, 0.9, 0.2],
  [0.0, 0.5, 0.7, 0.3],
  [0.2, 0.45, 0.8, 0.3],
  [0.1, 0.3, 0.9, 0.35],
];

describe("rliable's aggregates against scipy", () => {
  it('interquartile mean', () => {
    expect(interquartileMean(X.flat())).toBeCloseTo(0.4333333333333333, 12);
  });

  it('performance profile', () => {
    expect(
      profileOfSorted(
        X.flat().sort((a, b) => a - b),
        [0, 0.25, 0.5, 0.75, 0.9],
      ),
    ).toEqual([1.0, 0.7083333333333334, 0.375, 0.25, 0.08333333333333333]);
  });

  it('probability of improvement', () => {
    expect(probabilityOfImprovement(X, Y)).toBeCloseTo(0.7239583333333333, 12);
    expect(probabilityOfImprovement(Y, X)).toBeCloseTo(1 - 0.7239583333333333, 12);
  });

  it('the stratified bootstrap resamples runs within each task', () => {
    // Every task's runs equal: a stratified replicate is the matrix itself, so the interval has no
    // width; a bootstrap over all runs x tasks pooled would mix tasks and vary.
    const constant = Array.from({ length: 5 }, () => [0.1, 0.4, 0.6, 0.9]);
    const iqm = (scores: number[][], reps: number) =>
      rliableAggregates(scores, { metrics: ['iqm'], reps, rng: new Rng(1) }).metrics.iqm!;
    expect(iqm(constant, 500)).toEqual({ estimate: 0.5, low: 0.5, high: 0.5 });
    const spread = iqm(X, 2000);
    expect(spread.estimate).toBeCloseTo(0.4333333333333333, 12);
    expect(spread.low).toBeLessThan(spread.estimate);
    expect(spread.high).toBeGreaterThan(spread.estimate);
  });
});

describe('tests across seeds against scipy', () => {
  it("Welch's interval", () => {
    const result = welchInterval([0.8, 0.85, 0.9, 0.78, 0.88], [0.7, 0.9, 0.95, 0.6, 0.92, 0.85]);
    expect(result.difference).toBeCloseTo(-0.022, 12);
    expect(result.low).toBeCloseTo(-0.16905033449424062, 9);
    expect(result.high).toBeCloseTo(0.12505033449424058, 9);
    expect(result.df).toBeCloseTo(6.537318255449891, 9);
    expect(welchInterval([0.5, 0.5], [0.5, 0.5]).df).toBeNull();
  });

  it('one-sided exact binomial test', () => {
    expect(binomialTestGreater(8, 10, 0.5)).toBeCloseTo(0.0546875, 14);
    expect(binomialTestGreater(3, 40, 0.02)).toBeCloseTo(0.04567023044071665, 12);
    expect(binomialTestGreater(0, 5, 0.3)).toBe(1);
    expect(() => binomialTestGreater(6, 5, 0.3)).toThrow(RangeError);
  });

  it('the paired drop test counts only discordant episodes', () => {
    // 8 episodes solved early and lost late, none the other way: 0.5^8; concordant ones do not count.
    expect(pairedDropP('1111111111', '0000000011')).toBeCloseTo(0.5 ** 8, 14);
    expect(pairedDropP('1100', '0011')).toBeCloseTo(0.6875, 14);
    expect(pairedDropP('1010', '1010')).toBe(1);
  });
});

// Reference values from Python 3.11 with scipy 1.10.1 and statsmodels 0.13.5 (Debian bookworm):
//   st.nct.cdf(t, df, nc)
//   st.ttest_rel(b, a).confidence_interval(0.95), .df
//   st.pearsonr(a, b), and st.pearsonr(a + b, a - b) (the Pitman-Morgan test)
//   TTestIndPower().solve_power(effect_size=d, alpha=0.05, power=0.8), rounded up
//   1 - nct.cdf(c, df, nc) + nct.cdf(-c, df, nc), c = t.ppf(0.975, df), df Welch-Satterthwaite
describe('paired comparisons and seeds needed against scipy and statsmodels', () => {
  it('the noncentral t CDF', () => {
    expect(noncentralTCdf(2, 10, 1)).toBeCloseTo(0.8076115625303752, 10);
    expect(noncentralTCdf(-1.5, 7, 0.8)).toBeCloseTo(0.017874655870077083, 10);
    expect(noncentralTCdf(3.2, 28, 2.5)).toBeCloseTo(0.7314020082171342, 10);
    expect(noncentralTCdf(0.3, 3, -2)).toBeCloseTo(0.9881383178903734, 10);
    expect(noncentralTCdf(1.7, 14, 1.2)).toBeCloseTo(0.6725864553879494, 10);
    expect(() => noncentralTCdf(1, 0, 1)).toThrow(RangeError);
  });

  it('the one-sample t interval of a mean', () => {
    // scipy 1.10.1: stats.ttest_1samp(x, 0).confidence_interval(0.95) and (0.99).
    const x = [0.012, -0.03, 0.05, 0.0, 0.021, -0.008, 0.017, 0.04];
    const result = meanTInterval(x);
    expect(result.estimate).toBeCloseTo(0.012750000000000001, 14);
    expect(result.low).toBeCloseTo(-0.008768405492765773, 10);
    expect(result.high).toBeCloseTo(0.034268405492765774, 10);
    expect(result.df).toBe(7);
    expect(meanTInterval(x, { level: 0.99 }).low).toBeCloseTo(-0.01909577870051674, 10);
    expect(meanTInterval(x, { level: 0.99 }).high).toBeCloseTo(0.044595778700516744, 10);
    expect(meanTInterval([0.25, 0.25, 0.25])).toMatchObject({ low: 0.25, high: 0.25 });
    expect(() => meanTInterval([0.5])).toThrow(RangeError);
  });

  it('the paired t interval', () => {
    const result = pairedTInterval([0.8, 0.85, 0.9, 0.78, 0.88], [0.7, 0.9, 0.95, 0.6, 0.92]);
    expect(result.low).toBeCloseTo(-0.15981536818439102, 10);
    expect(result.high).toBeCloseTo(0.10381536818439097, 10);
    expect(result.df).toBe(4);
    expect(pairedTInterval([0.5, 0.25], [0.75, 0.5])).toMatchObject({ low: 0.25, high: 0.25 });
    expect(() => pairedTInterval([0.5], [0.6])).toThrow(RangeError);
  });

  it('the test of no correlation', () => {
    expect(correlationTest([1, 2, 3, 4], [1, 3, 2, 4]).p).toBeCloseTo(0.19999999999999996, 12);
    const five = correlationTest([0.1, 0.4, 0.35, 0.8, 0.6], [0.2, 0.3, 0.5, 0.7, 0.9]);
    expect(five.correlation).toBeCloseTo(0.8084443809398211, 12);
    expect(five.p).toBeCloseTo(0.09769813463790618, 12);
    expect(five.df).toBe(3);
  });

  it('the Pitman-Morgan test of equal paired variances', () => {
    const x = [0.61, 0.72, 0.55, 0.8, 0.67, 0.74, 0.59, 0.7];
    const y = [0.58, 0.79, 0.5, 0.86, 0.69, 0.81, 0.52, 0.77];
    const result = pitmanMorganTest(x, y);
    expect(result.correlation).toBeCloseTo(-0.9437489634675779, 12);
    expect(result.p).toBeCloseTo(0.00042640952684198707, 12);
    expect(result.ratio).toBeCloseTo(0.3622076023391812, 12);
    expect(result.df).toBe(6);
    const five = pitmanMorganTest([0.8, 0.85, 0.9, 0.78, 0.88], [0.7, 0.9, 0.95, 0.6, 0.92]);
    expect(five.p).toBeCloseTo(0.0027479736772809066, 12);
    expect(() => pitmanMorganTest([1, 2], [2, 1])).toThrow(RangeError);
  });

  it("seeds needed from the t test's exact power, where the normal approximation asks fewer", () => {
    expect(requiredSeeds({ sdA: 0.1, delta: 0.1 })).toBe(17); // statsmodels 16.7147
    expect(requiredSeeds({ sdA: 0.2, delta: 0.1 })).toBe(64); // statsmodels 63.7656
    expect(requiredSeeds({ sdA: 0.1, delta: 0.1, power: 0.9 })).toBe(23); // statsmodels 22.0211
    expect(requiredUnits({ sigma: 0.1, delta: 0.1, design: 'unpaired' }).units).toBe(16);
    // The 16-seed default against the 8-seed entropy-0 study: SDs 0.11926828884203584 and
    // 0.049549800773529135, pooled 0.10237190447012402, difference 0.11220703124999987.
    const delta = 0.11220703124999987;
    expect(requiredSeeds({ sdA: 0.10237190447012402, delta })).toBe(15); // statsmodels 14.0946
    expect(requiredUnits({ sigma: 0.10237190447012402, delta, design: 'unpaired' }).units).toBe(14);
    // scipy, Welch's power at n = 11 and 12: 0.76106, 0.80186
    const welch = {
      sdA: 0.11926828884203584,
      sdB: 0.049549800773529135,
      delta,
      variances: 'unequal' as const,
    };
    expect(requiredSeeds(welch)).toBe(12);
    expect(() => requiredSeeds({ sdA: 0.1, delta: 0 })).toThrow(RangeError);
  });
});

describe('study compare', () => {
  const sides = {
    a: { dir: 'A', recipe: 'default', seeds: 3, mean: 0.6, sd: 0.1 },
    b: { dir: 'B', recipe: 'other', seeds: 3, mean: 0.6, sd: 0.1 },
  };

  it('uses the paired design on shared seeds and reports the unpaired difference beside it', () => {
    const a = [0.5, 0.6, 0.7, 0.55];
    const b = [0.55, 0.68, 0.74, 0.9];
    const shared = [0, 1, 2].map((seed) => ({ seed, a: a[seed]!, b: b[seed]! }));
    const result = compareSeedScores(a, b, shared, { rng: new Rng(3) });
    expect(result.design).toBe('paired');
    expect(result.paired).toMatchObject({ seeds: [0, 1, 2], df: 2 });
    expect(result.paired!.difference).toBeCloseTo(
      pairedTInterval([0.5, 0.6, 0.7], [0.55, 0.68, 0.74]).difference,
      14,
    );
    expect(result.difference).toBeCloseTo(0.13, 14);
    const unpaired = compareSeedScores(a, b, shared.slice(0, 1), { rng: new Rng(3) });
    expect(unpaired.design).toBe('unpaired');
    expect(unpaired.paired).toBeNull();
    const text = formatComparison(
      {
        split: 'development-split',
        ...sides,
        sharedSeeds: [0, 1, 2],
        probabilityOfImprovement: { estimate: 0.6, low: 0.45, high: 0.75, reps: 50_000 },
        ...result,
      },
      ['coverage of Welch: a clause'],
    );
    expect(text).toMatch(/design: paired on the 3 seeds shared/);
    expect(text).toMatch(/: step-80 development-split pass@1 /);
    expect(text).toMatch(
      /P\(B > A\) over seeds x tasks: 0\.600 \[0\.450, 0\.750\] \(whole seeds redrawn, 95%, 50,000 replicates\)/,
    );
    expect(text).toMatch(/bootstrap over seeds \[.*\] \(50,000 replicates\)/);
    expect(text.split('\n').at(-1)).toBe('coverage of Welch: a clause');
    expect(text).toMatch(/on the shared seeds \(paired\), t 95% \[.*\] \(df 2\)/);
    expect(text).toMatch(/over all seeds \(unpaired\), Welch/);
  });

  it('says "more than 10^7" where a near-zero difference needs more seeds than the search covers, instead of failing', () => {
    // Means 0.6 and 0.6001 with SDs near 0.1: the t test needs about 1.6 * 10^7 seeds per recipe.
    const result = compareSeedScores([0.5, 0.7, 0.6], [0.5001, 0.7001, 0.6001], [], { rng: new Rng(3) });
    expect(result.seedsNeeded?.exactT).toBe('more than 10^7');
    expect(result.seedsNeeded?.unequalVariances).toBe('more than 10^7');
    expect(result.seedsNeeded?.normal).toBe('more than 10^7');
    // A difference of float rounding's size, as a simulation meets: beyond the normal approximation's count too.
    const tiny = compareSeedScores([0.5, 0.7, 0.6], [0.5, 0.7, 0.6 + 2 ** -50], [], { rng: new Rng(3) });
    expect(tiny.seedsNeeded).toEqual({
      normal: 'more than 10^7',
      exactT: 'more than 10^7',
      unequalVariances: 'more than 10^7',
      varianceRatio: expect.any(Number),
    });
  });

  it('says why no seeds-needed figure exists when no difference is observed', () => {
    const result = compareSeedScores([0.5, 0.7, 0.6], [0.7, 0.5, 0.6], [], { rng: new Rng(3) });
    expect(result.difference).toBe(0);
    expect(result.seedsNeeded).toBeNull();
    const comparison: StudyComparison = {
      split: 'held-out',
      ...sides,
      sharedSeeds: [],
      probabilityOfImprovement: { estimate: 0.5, low: 0.3, high: 0.7, reps: 50_000 },
      ...result,
    };
    const text = formatComparison(comparison);
    expect(text).not.toMatch(/undefined/);
    expect(text).toMatch(/seeds needed: none can be computed, B - A is exactly 0/);
    expect(text).toMatch(/design: unpaired \(no seed shared/);
  });
});

describe('multiple tests and falls', () => {
  it("Holm's adjusted p-values against statsmodels", () => {
    // statsmodels 0.13.5: multipletests(p, method='holm')[1]
    expect(holmAdjust([0.2, 0.001, 0.04, 0.012, 0.5])).toEqual(
      [0.4, 0.005, 0.12, 0.048, 0.5].map((x) => expect.closeTo(x, 14)),
    );
    expect(holmAdjust([0.03, 0.03, 0.5])).toEqual([0.09, 0.09, 0.5].map((x) => expect.closeTo(x, 14)));
    expect(holmAdjust([])).toEqual([]);
    expect(() => holmAdjust([1.2])).toThrow(RangeError);
  });

  it("one-sided Fisher's exact test against scipy", () => {
    // scipy 1.10.1: fisher_exact([[c1, n1 - c1], [c2, n2 - c2]], alternative='greater')[1]
    expect(fisherExactGreater(37, 64, 6, 64)).toBeCloseTo(3.0157096799154948e-9, 20);
    expect(fisherExactGreater(41, 64, 63, 256)).toBeCloseTo(5.475435263254764e-9, 20);
    expect(fisherExactGreater(5, 10, 5, 10)).toBeCloseTo(0.6718591006516703, 12);
    expect(fisherExactGreater(0, 8, 3, 8)).toBeCloseTo(1, 12);
    expect(() => fisherExactGreater(9, 8, 3, 8)).toThrow(RangeError);
  });

  it('a trajectory falls from each peak to the next trough', () => {
    expect(trajectoryFalls([0.1, 0.6, 0.1, 0.1, 0.6, 0.3])).toEqual([
      { from: 1, to: 2 },
      { from: 4, to: 5 },
    ]);
    expect(trajectoryFalls([3, 2, 2, 1, 5, 4, 4])).toEqual([
      { from: 0, to: 3 },
      { from: 4, to: 5 },
    ]);
    expect(trajectoryFalls([1, 1, 2])).toEqual([]);
    expect(trajectoryFalls([5])).toEqual([]);
  });
});

describe("rliable's stratified bootstrap", () => {
  it('gives the statistic of the data as the estimate, and no width when every task is constant', () => {
    const [iqm, average] = stratifiedBootstrap(X, (sample) => [interquartileMean(sample), mean(sample)], {
      reps: 2000,
      rng: new Rng(1),
    });
    expect(iqm!.estimate).toBeCloseTo(0.4333333333333333, 12);
    expect(average!.estimate).toBeCloseTo(mean(X.flat()), 12);
    expect(iqm!.low).toBeLessThan(iqm!.estimate);
    expect(iqm!.high).toBeGreaterThan(iqm!.estimate);
    const constant = Array.from({ length: 5 }, () => [0.1, 0.4, 0.6, 0.9]);
    const [flat] = stratifiedBootstrap(constant, (sample) => [mean(sample)], { reps: 500, rng: new Rng(1) });
    expect(flat).toEqual({ estimate: 0.5, low: 0.5, high: 0.5 });
  });

  it('with the tasks redrawn too, constant tasks that differ give an interval', () => {
    const constant = Array.from({ length: 5 }, () => [0.1, 0.4, 0.6, 0.9]);
    const [redrawn] = stratifiedBootstrap(constant, (sample) => [mean(sample)], {
      reps: 2000,
      rng: new Rng(1),
      taskBootstrap: true,
    });
    expect(redrawn!.low).toBeLessThan(0.5);
    expect(redrawn!.high).toBeGreaterThan(0.5);
  });

  it('the probability of improvement gets an interval around it', () => {
    const result = probabilityOfImprovementInterval(X, Y, { reps: 2000, rng: new Rng(2) });
    expect(result.estimate).toBeCloseTo(probabilityOfImprovement(X, Y), 14);
    expect(result.low).toBeLessThan(result.estimate);
    expect(result.high).toBeGreaterThan(result.estimate);
    expect(probabilityOfImprovementInterval(X, X, { reps: 500, rng: new Rng(2) }).estimate).toBe(0.5);
  });
});

/**
 * A study of `seeds` seeds with 10 held-out tasks (validation variant 5 for the first 5, test 4
 * for the rest) of n episodes, whose task t succeeds `counts(seed, step, t)` times at every
 * chapter step (the first episodes succeed, so every evaluation plays the same episodes), and
 * twice at steps 30 and 80 and at both temperatures.
 */
function syntheticStudy(
  seeds: number,
  n: number,
  counts: (seed: number, step: number, task: number) => number,
): StudyResults {
  const tasks = Array.from({ length: 10 }, (_, t) => ({ name: `task${t}`, variant: t < 5 ? 5 : 4 }));
  const output = (seed: number, step: number, label: string): EvalOutput => {
    const perTask = tasks.map((task, t) => {
      const c = counts(seed, step, t);
      return {
        name: task.name,
        successes: c,
        episodes: n,
        outcomes: '1'.repeat(c) + '0'.repeat(n - c),
        firstEdits: {},
      };
    });
    return {
      jobId: `${seed}/${step}/${label}`,
      seed,
      step,
      chapterStep: step,
      label,
      harnessHash: '',
      evalSeed: '',
      episodes: n,
      checkpointChecksum: '',
      backend: null,
      passAt1: mean(perTask.map((count) => count.successes / n)),
      perTask,
    };
  };
  const evaluations = new Map(
    Array.from({ length: seeds }, (_, seed) => {
      const bySeed = new Map<string, EvalOutput>();
      for (const step of CHAPTER_STEPS) bySeed.set(`${step}/a`, output(seed, step, 'a'));
      for (const step of [30, 80]) bySeed.set(`${step}/b`, output(seed, step, 'b'));
      for (const label of ['temperature-0', 'temperature-1.3'])
        bySeed.set(`80/${label}`, output(seed, 80, label));
      return [seed, bySeed] as const;
    }),
  );
  const plan = {
    dir: 'synthetic',
    measure: { steps: [...CHAPTER_STEPS], episodes: n },
  } as unknown as StudyResults['plan'];
  return { plan, seeds: Array.from({ length: seeds }, (_, seed) => seed), tasks, evaluations };
}

describe("the claims in the book's sense", () => {
  const options = { seed: 1, reps: 200, resamples: 50 };

  it("step 20 at or above the base agent at every k, though below step 80: the literal reading fails, the book's holds", () => {
    // Base 6 of 32 on every task, step 20 at 16, step 80 at 30: step 20 is below step 80 at k = 1.
    const study = syntheticStudy(2, 32, (_, step) =>
      step === 0 ? 6 : step === 20 ? 16 : step < 80 ? 24 : 30,
    );
    const { claims } = seedClaims(study, options);
    expect(claims.step20AtOrAboveBase.holds).toBe(2);
    expect(claims.step20AtOrAboveBoth.holds).toBe(0);
  });

  it('a task that falls from a peak to above the base agent is late-training instability, not narrowing', () => {
    // Task 0 of seed 0: 24 of 64 at the base, 60 at steps 10 to 70, 40 at step 80; seed 1's task 0 ends at 0.
    const study = syntheticStudy(2, 64, (seed, step, task) =>
      task !== 0 ? Math.min(64, 8 + step / 2) : step === 0 ? 24 : step === 80 ? (seed === 0 ? 40 : 0) : 60,
    );
    const result = seedClaims(study, options);
    expect(result.perSeed[0]!.verdicts).toMatchObject({
      endsBelowBase: false,
      endsBelowBaseHolm: false,
      lateTrainingInstability: true,
    });
    expect(result.perSeed[1]!.verdicts).toMatchObject({
      endsBelowBase: true,
      endsBelowBaseHolm: true,
      lateTrainingInstability: true,
    });
    expect(result.claims.endsBelowBaseHolm.holds).toBe(1);
    const trajectory = result.perSeed[0]!.trajectories[0]!;
    expect(trajectory.peak).toEqual({ step: 10, successes: 60 });
    expect(trajectory.belowBase.holmP).toBe(1);
    expect(trajectory.falls.map((fall) => [fall.from.step, fall.to.step])).toEqual([[70, 80]]);
    // Its steepest drop over every pair of steps: 60 -> 40 from step 10 (the earliest of the peak's steps).
    expect([trajectory.steepest.from, trajectory.steepest.to]).toEqual([10, 80]);
    // Verdicts this clear survive every resampling of the episodes.
    expect(result.perSeed[1]!.support.endsBelowBaseHolm).toBe(1);
    expect(result.claims.endsBelowBaseHolm.weaklySupported).toEqual([]);
  });

  it('a fall anywhere in training is tested over every pair of steps: a peak and trough picked from noise do not pass', () => {
    // Every task wanders by a few successes between steps: no drop survives Bonferroni over the 36 pairs.
    const wander = [30, 34, 29, 33, 28, 32, 30, 31, 29];
    const noisy = seedClaims(
      syntheticStudy(2, 64, (_, step) => wander[step / 10]!),
      options,
    );
    expect(noisy.claims.fallsDuringTraining.holds).toBe(0);
    // A real collapse, 50 to 5 of 64 between steps 40 and 60, passes it.
    const collapse = seedClaims(
      syntheticStudy(2, 64, (_, step, task) => (task === 3 && step >= 50 ? 5 : step >= 20 ? 50 : 30)),
      options,
    );
    expect(collapse.claims.fallsDuringTraining.holds).toBe(2);
    expect(collapse.perSeed[0]!.trajectories[3]!.steepest).toMatchObject({ from: 20, to: 50 });
  });

  it('17.3, 17.5 and 17.8 over seeds: the base rho, the temperature moves as magnitudes, the book-design curse', () => {
    const study = syntheticStudy(3, 64, (seed, step, task) => (step === 0 ? 8 + task : 40 + seed));
    const result = seedClaims(study, options);
    // Greedy and T 1.3 play as the training temperature here: moves of 0, which differ from the book's.
    expect(result.temperature.hot).toMatchObject({ estimate: 0, standing: 'differs' });
    expect(result.temperature.greedy.standing).toBe('differs');
    expect(result.baseRho!.seeds).toBe(3);
    // Every step plays alike on the test tasks: whichever step a group picks, the others score it alike.
    expect(result.selection.bookCurse.estimate).toBeCloseTo(0, 12);
  });

  it("the winner's curse is the pick's score minus a fresh score of it, and can be negative", () => {
    // Test tasks (5 to 9) at step 40: 20 of the first 32 episodes succeed, and none of the last 32.
    const study = syntheticStudy(2, 64, (_, step, task) =>
      task >= 5 && step === 40 ? 20 : task >= 5 ? 10 : 30,
    );
    const { perSeed } = seedClaims(study, options);
    expect(perSeed[0]!.selection.byFirstHalf).toBe(40);
    expect(perSeed[0]!.selection.winnersCurse).toBeCloseTo(20 / 32 - 0, 12);
    // Every other step has its 10 successes in its first half too: picked on the second half
    // (all 0), the first step wins the tie and scores 10/32 on the first half, above its 0.
    expect(perSeed[0]!.selection.winnersCurseReverse).toBeCloseTo(0 - 10 / 32, 12);
  });
});

describe('the claims across recipes', () => {
  const options = { seed: 1, reps: 200, resamples: 50 };
  const interval = (low: number, high: number) => ({ low, high });

  it('a rate holds above one half, fails below it only where its test had the power, and is open across it', () => {
    const at = (low: number, high: number, detection: number | null) => ({
      interval: interval(low, high),
      detection,
    });
    expect(rateStanding('endsBelowBase', at(0.55, 0.9, 0.97))).toBe('holds');
    expect(rateStanding('endsBelowBase', at(0.3, 0.5, 0.97))).toBe('open');
    expect(rateStanding('endsBelowBase', at(0, 0.375, 0.97))).toBe('fails');
    expect(rateStanding('endsBelowBaseHolm', at(0, 0.375, 0.19))).toBe('not detected');
    expect(rateStanding('step20AtOrAboveBase', at(0, 0.3, null))).toBe('not detected');
    expect(rateStanding('step20AtOrAboveBoth', at(0, 0.2, null))).toBe('false by construction');
  });

  it("the detection rates at the book's effect are the exact binomial sums (scipy reference values)", () => {
    // scipy 1.10.1: test/drop-detection.test.ts's sums at 10 -> 3 of 64 and 13 -> 3 of 64.
    const design = { episodes: 64, tasks: 10 };
    expect(detectionRate('endsBelowBase', design)).toBeCloseTo(0.9762766604993623, 12);
    expect(detectionRate('endsBelowBaseTested', design)).toBeCloseTo(0.5565133287216923, 12);
    expect(detectionRate('endsBelowBaseHolm', design)).toBeCloseTo(0.1876487919059869, 12);
    expect(detectionRate('lateTrainingInstability', design)).toBeCloseTo(0.2018906753341155, 12);
    expect(detectionRate('fallsDuringTraining', design)).toBeCloseTo(0.0969029152625147, 12);
    expect(detectionRate('step20AtOrAboveBase', design)).toBeNull();
  });

  it("17.4's reproducibility fails when the training-noise interval lies above 0 and holds when it lies below the evaluation noise; the curse is not detected where its power is low", () => {
    const evaluation = { estimate: 0.02 };
    expect(reproducibleStanding({ training: { low: 0.01, high: 0.2 }, evaluation })).toBe('fails');
    expect(reproducibleStanding({ training: { low: 0, high: 0.015 }, evaluation })).toBe('holds');
    expect(reproducibleStanding({ training: { low: 0, high: 0.05 }, evaluation })).toBe('open');
    const values = [0.02, -0.01, 0.03, 0, 0.01, 0.04, -0.02, 0.02];
    expect(curseStanding({ low: 0.001, high: 0.05 }, values).standing).toBe('holds');
    expect(curseStanding({ low: -0.05, high: -0.001 }, values).standing).toBe('fails');
    // Not detected, with its power: SD 0.0203 over 8 seeds gives the t test at +0.03 (scipy 1.10.1:
    // 1 - nct.cdf(t.ppf(0.975, 7), 7, d) + nct.cdf(-t.ppf(0.975, 7), 7, d), d = 0.03 / (sd / sqrt 8)).
    const spread = curseStanding({ low: -0.01, high: 0.02 }, values);
    expect(spread.power).toBeCloseTo(0.9452367549885791, 9);
    expect(spread.standing).toBe('not detected');
    const wide = curseStanding(
      { low: -0.05, high: 0.08 },
      values.map((value) => value * 4),
    );
    expect(wide.power).toBeLessThan(spread.power);
  });

  it("across recipes: whatever the recipe only when every recipe agrees, a recipe's own when one holds and another fails", () => {
    expect(acrossRecipes(['holds', 'holds', 'holds'])).toBe('holds whatever the recipe');
    expect(acrossRecipes(['fails', 'fails'])).toBe('fails whatever the recipe');
    expect(acrossRecipes(['holds', 'open', 'fails'])).toBe('belongs to a recipe');
    expect(acrossRecipes(['holds', 'open'])).toBe('open');
    expect(acrossRecipes(['agrees', 'differs'])).toBe('belongs to a recipe');
    expect(acrossRecipes(['holds', 'not detected'])).toBe('open');
    expect(acrossRecipes(['open', 'open'])).toBe('open');
  });

  it('two recipes of 8 seeds: the claim one recipe shows and the other does not is open where the other could not have shown it', () => {
    // Recipe A: step 20 (16 of 32) above the base agent (6) on every task; recipe B: step 20 at 3.
    // Both end at 30 of 32, and their seeds differ at step 30 only in B.
    const a = syntheticStudy(8, 32, (_, step) => (step === 0 ? 6 : step === 20 ? 16 : step < 80 ? 24 : 30));
    const b = syntheticStudy(8, 32, (seed, step) =>
      step === 0 ? 6 : step === 20 ? 3 : step === 30 ? 10 + 2 * seed : step < 80 ? 24 : 30,
    );
    const across = claimsAcrossRecipes([
      { name: 'A', claims: seedClaims(a, options) },
      { name: 'B', claims: seedClaims(b, options) },
    ]);
    const rate = (claim: string) => across.rates.find((row) => row.claim === claim)!;
    expect(rate('step20AtOrAboveBase').recipes.map((cell) => [cell.holds, cell.standing])).toEqual([
      [8, 'holds'],
      // 0 of 8, but the book gives no effect size to say what the verdict could detect.
      [0, 'not detected'],
    ]);
    expect(rate('step20AtOrAboveBase').across).toBe('open');
    expect(rate('step20AtOrAboveBoth').across).toBe('false by construction');
    // Greedy and T 1.3 play as the training temperature here: moves of 0, which differ from the book's whatever the recipe.
    const value = (claim: string) => across.values.find((row) => row.claim === claim)!;
    expect(value('greedy').across).toBe('differs whatever the recipe');
    expect(value('hot').across).toBe('differs whatever the recipe');
    const noise = across.values.find((row) => row.claim === 'trainingNoise30')!;
    // A's seeds are identical (an SD of 0 and no evaluation noise: open); B's differ (fails).
    expect(noise.recipes.map((cell) => cell.standing)).toEqual(['open', 'fails']);
    expect(noise.recipes[1]!.low).toBeGreaterThan(0);
    expect(noise.across).toBe('open');
    expect(across.recipes.map((row) => row.seeds.length)).toEqual([8, 8]);
    expect(() => claimsAcrossRecipes([])).toThrow(/no recipe/);
  });
});
