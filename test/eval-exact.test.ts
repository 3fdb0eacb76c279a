import { describe, expect, it } from 'vitest';
import {
  betaBinomialPmf,
  binomialPmf,
  convolvePmf,
  episodeBootstrapCI,
  intervalCoverage,
  percentileCoverage,
  taskBootstrapCI,
  taskBootstrapDistribution,
  waldInterval,
  wilsonInterval,
} from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';

describe('distributions', () => {
  it('binomialPmf and betaBinomialPmf match scipy.stats', () => {
    // scipy 1.10.1 binom.pmf([0, 3, 10], 10, 0.3)
    const binomial = binomialPmf(10, 0.3);
    expect(binomial[0]).toBeCloseTo(0.028247524899999984, 15);
    expect(binomial[3]).toBeCloseTo(0.26682793199999977, 14);
    expect(binomial[10]).toBeCloseTo(5.9048999999999975e-6, 18);
    expect(binomialPmf(3, 1)).toEqual(Float64Array.of(0, 0, 0, 1));
    // scipy 1.10.1 betabinom.pmf([0, 16, 32], 32, 0.4, 0.3)
    const beta = betaBinomialPmf(32, 0.4, 0.3);
    expect(beta[0]).toBeCloseTo(0.10847464943015254, 14);
    expect(beta[16]).toBeCloseTo(0.014889750253698177, 14);
    expect(beta[32]).toBeCloseTo(0.2067984155488849, 14);
    expect(beta.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 13);
  });

  it('convolvePmf adds independent variables', () => {
    expect(convolvePmf([0.5, 0.5], [0.5, 0.5])).toEqual(Float64Array.of(0.25, 0.5, 0.25));
    expect(() => convolvePmf([], [1])).toThrow(RangeError);
    expect(() => convolvePmf([0.5, -0.5], [1])).toThrow(/first\[1\]/);
  });
});

describe('exact coverage of one-proportion intervals', () => {
  it('matches the binomial sum over statsmodels intervals', () => {
    // statsmodels 0.13.5 + scipy 1.10.1: sum of binom.pmf(c, 40, p) over c whose proportion_confint(c, 40, method=...) covers p
    expect(intervalCoverage(40, 0.2, wilsonInterval)).toBeCloseTo(0.9282962831639315, 12);
    expect(intervalCoverage(40, 0.8, wilsonInterval)).toBeCloseTo(0.9282962831639319, 12);
    expect(intervalCoverage(40, 0.03, wilsonInterval)).toBeCloseTo(0.9686031959992241, 12);
    expect(intervalCoverage(40, 0.03, waldInterval)).toBeCloseTo(0.7031237582682428, 12);
    expect(intervalCoverage(40, 0.5, waldInterval)).toBeCloseTo(0.9193095322480072, 12);
  });
});

describe('exact bootstrap coverage', () => {
  // Brute force (numpy 1.24 / python3): enumerate every sequence of B draws from the pmf, take
  // np.quantile(seq, [a/2, 1 - a/2]) (type 7) and add the probability of those covering t.
  const BRUTE: Array<[number[], number, number, number, number]> = [
    [[0.5, 0, 0.5], 5, 0.5, 0.9, 0.625],
    [[0.5, 0, 0.5], 5, 0.5, 1.0, 0.625],
    [[0.5, 0, 0.5], 4, 0.8, 0.3, 0.625],
    [[0.5, 0, 0.5], 6, 0.6, 1.7, 0.78125],
    [[0.2, 0.3, 0.1, 0.4], 5, 0.9, 1.5, 0.937500000000001],
    [[0.2, 0.3, 0.1, 0.4], 7, 0.5, 2.2, 0.6938735999999746],
    [[0.2, 0.3, 0.1, 0.4], 3, 0.95, 0.4, 0.48000000000000026],
    [[0.2, 0.3, 0.1, 0.4], 5, 0.9, 2.0, 0.9144600000000008],
    [[0.2, 0.3, 0.1, 0.4], 4, 0.5, 1.0, 0.6603000000000003],
    [[0.2, 0.3, 0.1, 0.4], 6, 0.8, 3.0, 0.7667200000000005],
  ];
  it.each(BRUTE)(
    'pmf %j, B = %i, level %f, target %f: percentileCoverage = brute force',
    (pmf, reps, level, target, expected) => {
      expect(percentileCoverage(pmf, 1, target, { reps, level })).toBeCloseTo(expected, 12);
    },
  );

  it('the chapter setup: exact episode-level coverage 0.3367 at 2000 replicates, 0.3322 unlimited', () => {
    // scipy 1.10.1: S = sum of 10 betabinom(32, 0.4, 0.3); given S, covered iff between 51 and 1949 of
    // the 2000 Binomial(320, S/320) draws are <= 182 (the type-7 positions 49.975 and 1949.025):
    // 0.33668582844196726. Unlimited: binom quantiles by the cdf, 0.33222310 (scipy's binom.ppf
    // returns 0 at p = 1, which adds 1.43e-7 for S = 320 if used as is).
    const one = betaBinomialPmf(32, 0.4, 0.3);
    let pooled: Float64Array = Float64Array.of(1);
    for (let j = 0; j < 10; j++) pooled = convolvePmf(one, pooled);
    const coverage = (reps: number) =>
      pooled.reduce(
        (sum, mass, s) => sum + mass * percentileCoverage(binomialPmf(320, s / 320), 320, 4 / 7, { reps }),
        0,
      );
    expect(coverage(2000)).toBeCloseTo(0.33668582844196726, 9);
    expect(coverage(Infinity)).toBeCloseTo(0.3322231, 6);
  });

  it('agrees with simulated bootstrap intervals (episode- and task-level) within Monte Carlo error', () => {
    const rng = new Rng(17);
    const simulate = (interval: () => { low: number; high: number }, target: number, runs: number) => {
      let hits = 0;
      for (let r = 0; r < runs; r++) {
        const { low, high } = interval();
        if (low <= target && target <= high) hits++;
      }
      return hits / runs;
    };
    // pooled count 150 of 320: the 2.5% quantile of Binomial(320, 150/320) is near 133, so with 200
    // replicates whether the interval reaches 133.5/320 is a matter of chance (about 0.62)
    const episodeExact = percentileCoverage(binomialPmf(320, 150 / 320), 320, 133.5 / 320, { reps: 200 });
    expect(episodeExact).toBeGreaterThan(0.1);
    expect(episodeExact).toBeLessThan(0.9);
    const episodeSimulated = simulate(
      () => episodeBootstrapCI({ successes: [150], trials: 320 }, { reps: 200, rng }),
      133.5 / 320,
      3000,
    );
    expect(Math.abs(episodeSimulated - episodeExact)).toBeLessThan(
      4 * Math.sqrt((episodeExact * (1 - episodeExact)) / 3000),
    );
    const counts = [20, 31, 30, 32, 29, 0, 31, 17, 1, 30];
    const distribution = taskBootstrapDistribution(counts, 32);
    const target = 0.46; // near the lower edge of the task-level interval: covered about 2 times in 3
    const taskExact = percentileCoverage(distribution, 320, target, { reps: 200 });
    expect(taskExact).toBeGreaterThan(0.1);
    expect(taskExact).toBeLessThan(0.9);
    const taskSimulated = simulate(
      () => taskBootstrapCI({ successes: counts, trials: 32 }, { reps: 200, rng }),
      target,
      3000,
    );
    expect(Math.abs(taskSimulated - taskExact)).toBeLessThan(
      4 * Math.sqrt((taskExact * (1 - taskExact)) / 3000),
    );
  });

  it('taskBootstrapDistribution is the N-fold convolution of the counts (brute force over 27 resamples)', () => {
    // python: for seq in product([0, 2, 3], repeat=3): dist[sum(seq)] += 1/27
    const expected = [1, 0, 3, 3, 3, 6, 4, 3, 3, 1].map((count) => count / 27);
    const distribution = taskBootstrapDistribution([0, 2, 3], 3);
    expect(distribution).toHaveLength(10);
    distribution.forEach((mass, i) => expect(mass).toBeCloseTo(expected[i] as number, 15));
  });
});
