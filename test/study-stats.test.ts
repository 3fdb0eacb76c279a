import { describe, expect, it } from 'vitest';
import {
  binomialTestGreater,
  interquartileMean,
  performanceProfile,
  probabilityOfImprovement,
  stratifiedIqm,
  welchInterval,
} from '../eval/index.ts';
import { pairedDropP } from '../study/index.ts';
import { Rng } from '../lib/rng.ts';

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
    expect(performanceProfile(X.flat(), [0, 0.25, 0.5, 0.75, 0.9])).toEqual([
      1.0, 0.7083333333333334, 0.375, 0.25, 0.08333333333333333,
    ]);
  });

  it('probability of improvement', () => {
    expect(probabilityOfImprovement(X, Y)).toBeCloseTo(0.7239583333333333, 12);
    expect(probabilityOfImprovement(Y, X)).toBeCloseTo(1 - 0.7239583333333333, 12);
  });

  it('the stratified bootstrap resamples runs within each task', () => {
    // Every task's runs equal: a stratified replicate is the matrix itself, so the interval has no
    // width; a bootstrap over all runs x tasks pooled would mix tasks and vary.
    const constant = Array.from({ length: 5 }, () => [0.1, 0.4, 0.6, 0.9]);
    const result = stratifiedIqm(constant, { reps: 500, rng: new Rng(1) });
    expect(result).toEqual({ estimate: 0.5, low: 0.5, high: 0.5 });
    const spread = stratifiedIqm(X, { reps: 2000, rng: new Rng(1) });
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
