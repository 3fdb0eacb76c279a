import { describe, expect, it } from 'vitest';
import {
  allCorrectAtK,
  bootstrapCI,
  clusteredStandardError,
  designEffect,
  episodeBootstrapCI,
  episodeStandardError,
  expectedMaxNormal,
  intraclassCorrelation,
  taskVarianceIntraclassCorrelation,
  meanDifference,
  pairedBootstrapDiff,
  pairedStandardError,
  passAtK,
  pearsonCorrelation,
  percentileOfSorted,
  prefixAllCorrectAtK,
  prefixPassAtK,
  requiredUnits,
  sampleBeta,
  taskBootstrapCI,
  unpairedStandardError,
  winnersCurseSimulation,
} from '../eval/index.ts';
import { randomIndex } from '../eval/random.ts';
import { mostReps } from '../eval/report/metrics.ts';
import { resampleMeans, taskProfile } from '../eval/report/resample.ts';
import { Rng } from '../lib/rng.ts';

const SKEWED = [0, 0, 0, 0, 0.03, 0.1, 0.12, 0.2, 0.5, 0.9, 1, 1, 1, 1, 1, 0.97, 0.99, 1, 0.4, 0.05];

describe('bootstrap', () => {
  it('same seed, same interval; another seed, another interval', () => {
    const a = bootstrapCI(SKEWED, { reps: 500, rng: new Rng(4) });
    const b = bootstrapCI(SKEWED, { reps: 500, rng: new Rng(4) });
    const c = bootstrapCI(SKEWED, { reps: 500, rng: new Rng(5) });
    expect(a).toEqual(b);
    expect(a.low === c.low && a.high === c.high).toBe(false);
  });

  it('percentile and BCa agree with scipy.stats.bootstrap within Monte Carlo error', () => {
    // scipy 1.10.1 stats.bootstrap((x,), np.mean, n_resamples=200000, confidence_level=0.95):
    // percentile (0.3195, 0.708), BCa (0.3205, 0.7095)
    const percentile = bootstrapCI(SKEWED, { reps: 100_000, rng: new Rng(1) });
    expect(percentile.low).toBeCloseTo(0.3195, 2);
    expect(percentile.high).toBeCloseTo(0.708, 2);
    const bca = bootstrapCI(SKEWED, { reps: 100_000, rng: new Rng(1), method: 'bca' });
    expect(bca.low).toBeCloseTo(0.3205, 2);
    expect(bca.high).toBeCloseTo(0.7095, 2);
  });

  it('BCa counts replicates tied with the estimate as not below (Efron & Tibshirani eq. 14.14), unlike scipy', () => {
    // five ones, five zeros: a quarter of the replicate means equal 0.5. scipy 1.10.1
    // stats.bootstrap((x,), np.mean, method="BCa", n_resamples=200000) counts ties as half and
    // gives (0.2, 0.8); #{theta* < theta-hat} / B gives z0 < 0 and (0.1, 0.7). docs/METRICS.md.
    const interval = bootstrapCI([1, 1, 1, 1, 1, 0, 0, 0, 0, 0], {
      reps: 20_000,
      rng: new Rng(1),
      method: 'bca',
    });
    expect(interval.low).toBeCloseTo(0.1, 12);
    expect(interval.high).toBeCloseTo(0.7, 12);
  });

  it('percentileOfSorted is numpy type 7', () => {
    expect(percentileOfSorted([1, 2, 3, 4], 0.5)).toBe(2.5); // np.quantile([1,2,3,4], 0.5)
    expect(percentileOfSorted([1, 1, 2, 3, 4, 5, 6, 9], 0.9)).toBeCloseTo(6.8999999999999995, 12); // np.quantile([3,1,4,1,5,9,2,6], 0.9)
  });

  it('throws on empty input, one unit, bad level, bad reps', () => {
    expect(() => bootstrapCI([], { rng: new Rng(1) })).toThrow(RangeError);
    expect(() => bootstrapCI([1], { rng: new Rng(1) })).toThrow(/at least 2/);
    expect(() => bootstrapCI([1, 0], { rng: new Rng(1), level: 1.5 })).toThrow(RangeError);
    expect(() => bootstrapCI([1, 0], { rng: new Rng(1), reps: 0 })).toThrow(RangeError);
  });

  it('task-level is wider than episode-level on heterogeneous tasks and both contain the estimate', () => {
    const counts = { successes: [32, 31, 30, 32, 29, 32, 31, 17, 1, 30], trials: 32 };
    const task = taskBootstrapCI(counts, { rng: new Rng(2) });
    const episode = episodeBootstrapCI(counts, { rng: new Rng(2) });
    expect(task.estimate).toBeCloseTo(episode.estimate, 12);
    expect(task.high - task.low).toBeGreaterThan(3 * (episode.high - episode.low));
    for (const interval of [task, episode])
      expect(interval.low <= interval.estimate && interval.estimate <= interval.high).toBe(true);
  });

  it('episode-level replicates follow Binomial(M, S/M)/M (its SD matches sqrt(p(1-p)/M))', () => {
    const counts = { successes: [5, 20], trials: 40 };
    const episode = episodeBootstrapCI(counts, { reps: 40_000, rng: new Rng(3) });
    // normal approximation of the 95% percentile interval: p +- 1.96 sqrt(p(1-p)/80), p = 25/80
    const se = Math.sqrt((0.3125 * 0.6875) / 80);
    expect(episode.high - episode.low).toBeCloseTo(2 * 1.96 * se, 1);
    expect(episodeStandardError(counts)).toBeCloseTo(se, 15);
  });

  it('paired bootstrap resamples the same tasks for both systems', () => {
    const a = [0.5, 0.9, 0.1, 0.75, 0.3];
    const b = [0.6, 1.0, 0.1, 0.8, 0.45];
    const paired = pairedBootstrapDiff(a, b, { reps: 4000, rng: new Rng(9) });
    expect(paired.estimate).toBeCloseTo(0.08, 12);
    expect(paired.low).toBeGreaterThan(0); // every per-task difference is >= 0
    expect(() => pairedBootstrapDiff(a, [1], { rng: new Rng(1) })).toThrow(RangeError);
  });
});

describe('clustered errors and comparison helpers', () => {
  const trained = { successes: [32, 31, 30, 32, 29, 32, 31, 17, 1, 30], trials: 32 };

  it('intraclass correlation matches the one-way ANOVA of scipy.stats.f_oneway: rho = (F - 1) / (F + n0 - 1)', () => {
    // scipy 1.10.1 f_oneway on the expanded 0/1 episodes
    expect(intraclassCorrelation(trained)).toBeCloseTo(0.632230454189867, 12);
    expect(intraclassCorrelation({ successes: [3, 5, 2, 4, 6, 1, 8, 2, 3, 5], trials: 32 })).toBeCloseTo(
      0.010370524779821779,
      12,
    );
    expect(intraclassCorrelation({ successes: [2, 15, 7, 8], trials: [10, 20, 15, 8] })).toBeCloseTo(
      0.3008205466924093,
      12,
    );
    expect(intraclassCorrelation({ successes: [32, 32, 0, 0], trials: 32 })).toBe(1);
    expect(() => intraclassCorrelation({ successes: [3], trials: 10 })).toThrow(RangeError);
  });

  it("the chapter's rho = sigma_task^2 / (mu (1 - mu)), between-task variance corrected for binomial noise, matches numpy", () => {
    // numpy 2.4.6: r = c / n; (r.var(ddof=1) - np.mean(r * (1 - r) / (n - 1))) / (r.mean() * (1 - r.mean()))
    expect(taskVarianceIntraclassCorrelation(trained)).toBeCloseTo(0.6757286805978223, 12);
    expect(
      taskVarianceIntraclassCorrelation({ successes: [3, 5, 2, 4, 6, 1, 8, 2, 3, 5], trials: 32 }),
    ).toBeCloseTo(0.010413528953306243, 12);
    expect(
      taskVarianceIntraclassCorrelation({ successes: [2, 15, 7, 8], trials: [10, 20, 15, 8] }),
    ).toBeCloseTo(0.45458400993409115, 12);
    expect(taskVarianceIntraclassCorrelation({ successes: [32, 32, 0, 0], trials: 32 })).toBeCloseTo(
      4 / 3,
      12,
    );
    // It differs from the ANOVA estimator on the same counts (tasks weighted equally, not by episodes).
    expect(
      taskVarianceIntraclassCorrelation({ successes: [2, 15, 7, 8], trials: [10, 20, 15, 8] }),
    ).not.toBeCloseTo(intraclassCorrelation({ successes: [2, 15, 7, 8], trials: [10, 20, 15, 8] }), 2);
    expect(() => taskVarianceIntraclassCorrelation({ successes: [3], trials: 10 })).toThrow(RangeError);
    expect(() => taskVarianceIntraclassCorrelation({ successes: [1, 0], trials: [1, 4] })).toThrow(
      RangeError,
    );
    expect(() => taskVarianceIntraclassCorrelation({ successes: [0, 0], trials: 8 })).toThrow(RangeError);
  });

  it('design effect and clustered SE', () => {
    expect(designEffect(32, 0.63)).toBeCloseTo(20.53, 10);
    // numpy: (rates.std(ddof=1) / sqrt(10))
    expect(clusteredStandardError(trained)).toBeCloseTo(0.09895833333333333, 14);
    expect(() => designEffect(0, 0.5)).toThrow(RangeError);
  });

  it('paired, unpaired SE and correlation match numpy', () => {
    const a = [0.5, 0.9, 0.1, 0.75, 0.3];
    const b = [0.6, 1.0, 0.1, 0.8, 0.45];
    // numpy: (b-a).std(ddof=1)/sqrt(5); sqrt(a.var(ddof=1)/5 + b.var(ddof=1)/5); np.corrcoef(a, b)[0, 1]
    expect(meanDifference(a, b)).toBeCloseTo(0.08, 14);
    expect(pairedStandardError(a, b)).toBeCloseTo(0.02549509756796392, 14);
    expect(unpairedStandardError(a, b)).toBeCloseTo(0.21142374511865974, 14);
    expect(pearsonCorrelation(a, b)).toBeCloseTo(0.9870034891637899, 14);
  });
});

describe("power and the winner's curse", () => {
  it('requiredUnits matches ((z_{.975} + z_{.8}) sigma / delta)^2 from scipy.stats.norm.ppf, rounded up', () => {
    expect(requiredUnits({ sigma: 0.0725, delta: 0.02 })).toMatchObject({
      units: 104,
      exact: expect.closeTo(103.13918525918096, 8),
    });
    expect(requiredUnits({ sigma: 0.0725, delta: 0.05 }).units).toBe(17); // 16.502269641468956
    expect(requiredUnits({ sigma: 0.2913, delta: 0.05, design: 'unpaired' })).toMatchObject({
      units: 533,
      perGroup: true,
      exact: expect.closeTo(532.8176844681669, 8),
    });
    expect(requiredUnits({ sigma: 0.1, delta: 0.05, design: 'paired' }).exact).toBeCloseTo(
      31.395518937396353,
      8,
    );
    expect(requiredUnits({ sigma: 0, delta: 0.05, design: 'seeds' }).units).toBe(1);
    expect(() => requiredUnits({ sigma: 0.1, delta: 0 })).toThrow(RangeError);
    expect(() => requiredUnits({ sigma: 0.1, delta: 0.1, power: 1 })).toThrow(RangeError);
  });

  it('expected maximum of m normals matches scipy.integrate.quad', () => {
    expect(expectedMaxNormal(1)).toBeCloseTo(0, 10);
    expect(expectedMaxNormal(2)).toBeCloseTo(0.5641895835477561, 9);
    expect(expectedMaxNormal(3)).toBeCloseTo(0.8462843753216343, 9);
    expect(expectedMaxNormal(8)).toBeCloseTo(1.4236003060452778, 9);
    expect(expectedMaxNormal(10)).toBeCloseTo(1.538752730835173, 9);
  });

  it('picking the best of 8 equal checkpoints on 160 episodes overstates by about sigma E[max]', () => {
    const result = winnersCurseSimulation({
      checkpoints: 8,
      episodes: 160,
      passRate: 0.77,
      trials: 4000,
      rng: new Rng(8),
    });
    expect(result.bias).toBeGreaterThan(0.035);
    expect(result.bias).toBeLessThan(0.055);
    expect(result.predictedBias).toBeCloseTo(Math.sqrt((0.77 * 0.23) / 160) * 1.4236, 4);
  });

  it('sampleBeta has the Beta mean a / (a + b)', () => {
    const rng = new Rng(6);
    let sum = 0;
    for (let i = 0; i < 20_000; i++) sum += sampleBeta(0.4, 0.3, rng);
    expect(sum / 20_000).toBeCloseTo(0.4 / 0.7, 1);
  });
});

describe("metrics' task-level bootstrap, summed over classes of tasks alike", () => {
  it('gives, replicate by replicate, the means of the per-task values over the same resampled tasks', () => {
    // uneven tasks, sizes 3 to 12, some alike, some all-pass and all-fail
    const source = new Rng('resample-classes/tasks');
    const tasks = Array.from({ length: 40 }, (_, j) =>
      Uint8Array.from({ length: 3 + (j % 10) }, () => (source.next() < (j % 7) / 6 ? 1 : 0)),
    );
    const ks = [1, 2, 3];
    const reps = 50;
    const means = resampleMeans(tasks.map(taskProfile), ks, { reps, rng: new Rng('resample-classes/draws') });
    // the reference: the r-th block of tasks.length draws, each statistic from the tasks themselves
    const draws = new Rng('resample-classes/draws');
    for (let r = 0; r < reps; r++) {
      const picked = Array.from(
        { length: tasks.length },
        () => tasks[randomIndex(draws, tasks.length)] as Uint8Array,
      );
      const average = (value: (outcomes: Uint8Array) => number) =>
        picked.reduce((sum, outcomes) => sum + value(outcomes), 0) / picked.length;
      const c = (outcomes: Uint8Array) => outcomes.reduce((sum, value) => sum + value, 0);
      expect(means.meanAccuracy[r]).toBeCloseTo(
        average((o) => c(o) / o.length),
        12,
      );
      expect(means.firstSampleAccuracy[r]).toBeCloseTo(
        average((o) => o[0] as number),
        12,
      );
      expect(means.pooledShare[r]).toBeCloseTo(average(c) / average((o) => o.length), 12);
      ks.forEach((k, i) => {
        expect(means.passAtK[i]?.[r]).toBeCloseTo(
          average((o) => passAtK(o.length, c(o), k)),
          12,
        );
        expect(means.allCorrectAtK[i]?.[r]).toBeCloseTo(
          average((o) => allCorrectAtK(o.length, c(o), k)),
          12,
        );
        expect(means.prefixPassAtK[i]?.[r]).toBeCloseTo(
          average((o) => prefixPassAtK(o, k)),
          12,
        );
        expect(means.prefixAllCorrectAtK[i]?.[r]).toBeCloseTo(
          average((o) => prefixAllCorrectAtK(o, k)),
          12,
        );
      });
    }
  });

  it('metrics takes --reps from 100 up for half a million tasks (the limit once said "50 or fewer")', () => {
    expect(mostReps(500_000, 3)).toBeGreaterThanOrEqual(2000);
    expect(mostReps(1_000_000, 1000)).toBeGreaterThanOrEqual(100);
    // past the limits even 100 replicates are refused, and the message says so rather than suggest fewer
    expect(mostReps(100_000_000, 1)).toBeLessThan(100);
  });
});
