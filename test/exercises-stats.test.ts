import { describe, expect, it } from 'vitest';
import {
  betaBinomialMeanPosterior,
  binomialEstimatorMoments,
  changePointBootstrap,
  correlatedSelectionInflation,
  fallOnset,
  expectedMaxNormal,
  passAtK,
  plugInPassAtK,
  shannonEntropy,
} from '../eval/index.ts';
import { changePoint } from '../eval/changePoint.ts';
import { differenceStandardError } from '../eval/designReview.ts';
import { Rng } from '../lib/rng.ts';

// Reference values computed with scipy 1.17.1 / numpy (scripts quoted in each case), not by this project.
describe('binomialEstimatorMoments', () => {
  it('matches the exact moments of the unbiased and plug-in pass@k at n = 64, p = 0.05', () => {
    // c = arange(65); pmf = binom.pmf(c, 64, 0.05); T = 1 - comb(64-c, k, exact=True)/comb(64, k, exact=True)
    // (resp. 1 - (1 - c/64)**k); mean = (T*pmf).sum(); var = ((T-mean)**2*pmf).sum()
    const reference = [
      {
        k: 32,
        unbiased: [0.8062885155414992, 0.04819040568740506],
        plugIn: [0.7260775923817611, 0.050348714217071155, 0.056782506411208564],
      },
      {
        k: 4,
        unbiased: [0.1854937500000001, 0.008762069955306175],
        plugIn: [0.18151268324852, 0.008420866396491557, 0.008436715288971297],
      },
    ];
    for (const { k, unbiased, plugIn } of reference) {
      const truth = 1 - 0.95 ** k;
      const u = binomialEstimatorMoments({ n: 64, p: 0.05, estimate: (c) => passAtK(64, c, k), truth });
      expect(u.mean).toBeCloseTo(unbiased[0]!, 12);
      expect(u.mean).toBeCloseTo(truth, 12);
      expect(u.variance).toBeCloseTo(unbiased[1]!, 12);
      const q = binomialEstimatorMoments({ n: 64, p: 0.05, estimate: (c) => plugInPassAtK(64, c, k), truth });
      expect(q.mean).toBeCloseTo(plugIn[0]!, 12);
      expect(q.variance).toBeCloseTo(plugIn[1]!, 12);
      expect(q.mse).toBeCloseTo(plugIn[2]!, 12);
    }
    expect(binomialEstimatorMoments({ n: 2, p: 0.5, estimate: (c) => c / 2 }).mse).toBeNull();
  });
});

describe('betaBinomialMeanPosterior', () => {
  it('agrees with an exact grid posterior of a small case', () => {
    // scipy.integrate.dblquad over (mu, u) in [0, 1]^2 of mu * prod_j exp(betaln(a + c_j, b + 8 - c_j) - betaln(a, b)),
    // a = mu kappa, b = (1 - mu) kappa, kappa = u / (1 - u), counts [3, 5, 1, 7, 2] of 8:
    // posterior mean 0.46478307410014447, P(mu < 0.4) = 0.2967320748922961.
    const counts = { successes: [3, 5, 1, 7, 2], trials: [8, 8, 8, 8, 8] };
    const posterior = betaBinomialMeanPosterior({ ...counts, draws: 200_000, rng: new Rng('posterior') });
    expect(Math.abs(posterior.mean - 0.46478307410014447)).toBeLessThan(0.003);
    // The lower end of the interval whose lower tail holds 0.2967 of the posterior is mu = 0.4.
    const atTail = betaBinomialMeanPosterior({
      ...counts,
      draws: 200_000,
      level: 1 - 2 * 0.2967320748922961,
      rng: new Rng('posterior'),
    });
    expect(Math.abs(atTail.low - 0.4)).toBeLessThan(0.006);
    expect(posterior.effectiveDraws).toBeGreaterThan(50_000);
    expect(posterior.low).toBeLessThan(posterior.mean);
    expect(posterior.high).toBeGreaterThan(posterior.mean);
  });

  it('is reproducible from the seed and refuses bad counts', () => {
    const run = () =>
      betaBinomialMeanPosterior({ successes: [1, 2], trials: [4, 4], draws: 500, rng: new Rng(3) });
    expect(run()).toEqual(run());
    expect(() => betaBinomialMeanPosterior({ successes: [5], trials: [4], rng: new Rng(1) })).toThrow(
      RangeError,
    );
  });
});

describe('changePoint and changePointBootstrap', () => {
  it('finds the least-squares change point', () => {
    // v = [10, 11, 10, 3, 2, 4]; costs over t = 1..5 by numpy: [70.0, 39.25, 2.667, 43.0, 74.8]; argmin t = 3
    expect(changePoint([10, 11, 10, 3, 2, 4])).toBe(3);
    expect(() => changePoint([1])).toThrow(RangeError);
  });

  it('fallOnset takes the change point after the peak, so an early rise is not the change', () => {
    // From the peak (index 2) on: [0.7, 0.65, 0.1, 0.05]; numpy costs over t = 1..3: [0.2217, 0.0025, 0.2217]; argmin t = 2
    expect(fallOnset([0.2, 0.6, 0.7, 0.65, 0.1, 0.05])).toBe(4);
    // The single change point of the whole sequence is the rise instead.
    expect(changePoint([0.05, 0.6, 0.7, 0.65, 0.6, 0.55, 0.5])).toBe(1);
    expect(fallOnset([0.1, 0.2, 0.3])).toBeNull();
    const noFall = changePointBootstrap({
      successes: [10, 20, 60],
      trials: [64, 64, 64],
      reps: 200,
      rng: new Rng(2),
      statistic: fallOnset,
    });
    expect(noFall).toMatchObject({ index: null, noneShare: 1, low: null, high: null });
  });

  it('collapses on one index for a sharp fall and spreads for a gentle one', () => {
    const sharp = changePointBootstrap({
      successes: [250, 251, 249, 20, 18],
      trials: [256, 256, 256, 256, 256],
      reps: 500,
      rng: new Rng(1),
    });
    expect(sharp).toMatchObject({ index: 3, low: 3, high: 3 });
    const gentle = changePointBootstrap({
      successes: [40, 36, 32, 28, 24, 20],
      trials: [64, 64, 64, 64, 64, 64],
      reps: 500,
      rng: new Rng(1),
    });
    expect(gentle.high as number).toBeGreaterThan(gentle.low as number);
    expect(gentle.share.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });
});

describe('shannonEntropy', () => {
  it('matches scipy.stats.entropy', () => {
    // scipy.stats.entropy([13, 20, 31], base=2)
    expect(shannonEntropy({ a: 13, b: 20, c: 31 })).toBeCloseTo(1.4980568147566473, 13);
    expect(shannonEntropy({ a: 5, b: 0 })).toBe(0);
    expect(shannonEntropy({})).toBeNull();
  });
});

describe('differenceStandardError', () => {
  const design = { a: 0.41, b: 0.434, tasks: 500, samples: 1, seeds: 1, correlation: 0, icc: 0.5, seedSD: 0 };
  it('is the binomial SE of the chapter arithmetic when unpaired with one attempt', () => {
    // sqrt(0.41*0.59/500 + 0.434*0.566/500)
    expect(differenceStandardError(design)).toBeCloseTo(Math.sqrt((0.41 * 0.59 + 0.434 * 0.566) / 500), 15);
    expect(differenceStandardError(design)).toBeCloseTo(0.0312, 4);
  });
  it('falls with correlation and with samples, but not below the task-level floor', () => {
    const paired = differenceStandardError({ ...design, correlation: 0.9 });
    expect(paired).toBeLessThan(differenceStandardError(design));
    const many = differenceStandardError({ ...design, correlation: 0.9, samples: 1_000_000 });
    const floor = Math.sqrt(
      (0.5 * (0.41 * 0.59 + 0.434 * 0.566 - 1.8 * Math.sqrt(0.41 * 0.59 * 0.434 * 0.566))) / 500,
    );
    expect(many).toBeCloseTo(floor, 5);
    expect(() => differenceStandardError({ ...design, correlation: 1.5 })).toThrow(RangeError);
  });
  it('uses E[max of 5 normals] = 1.16296 for the selection inflation', () => {
    // scipy.integrate.quad(lambda x: x*5*norm.pdf(x)*norm.cdf(x)**4, -12, 12)
    expect(expectedMaxNormal(5)).toBeCloseTo(1.1629644736405196, 6);
  });
});

describe('correlatedSelectionInflation', () => {
  it('is sigma sqrt(1 - rho) E[max of K], and a simulation of equicorrelated normals agrees', () => {
    // integrate.quad(lambda x: x * 5 * norm.pdf(x) * norm.cdf(x)**4, -inf, inf) (scipy 1.10.1)
    const expectedMax5 = 1.1629644736405196;
    expect(correlatedSelectionInflation({ sigma: 1, selectedFrom: 5, correlation: 0 })).toBeCloseTo(
      expectedMax5,
      9,
    );
    expect(correlatedSelectionInflation({ sigma: 0.02, selectedFrom: 5, correlation: 0.67 })).toBeCloseTo(
      0.02 * Math.sqrt(0.33) * expectedMax5,
      9,
    );
    expect(correlatedSelectionInflation({ sigma: 1, selectedFrom: 5, correlation: 1 })).toBe(0);
    // X_i = sqrt(rho) Z_0 + sqrt(1 - rho) Z_i: the mean of max over 40,000 draws, within 4 SE.
    const rng = new Rng(3);
    const draws = 40_000;
    const rho = 0.67;
    let sum = 0;
    let squares = 0;
    for (let d = 0; d < draws; d++) {
      const shared = Math.sqrt(rho) * rng.normal();
      let best = -Infinity;
      for (let i = 0; i < 5; i++) best = Math.max(best, shared + Math.sqrt(1 - rho) * rng.normal());
      sum += best;
      squares += best * best;
    }
    const meanMax = sum / draws;
    const se = Math.sqrt((squares / draws - meanMax ** 2) / draws);
    const exact = correlatedSelectionInflation({ sigma: 1, selectedFrom: 5, correlation: rho });
    expect(Math.abs(meanMax - exact)).toBeLessThan(4 * se);
    expect(() => correlatedSelectionInflation({ sigma: 1, selectedFrom: 5, correlation: 1.2 })).toThrow(
      RangeError,
    );
  });
});
