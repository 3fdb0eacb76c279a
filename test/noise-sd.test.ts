import { describe, expect, it } from 'vitest';
import {
  nestedNoiseStandardDeviations,
  noiseStandardDeviations,
  percentileOfSorted,
  sampleBinomial,
  standardDeviationInterval,
} from '../eval/index.ts';
import { chiSquareCdf, chiSquareQuantile } from '../eval/noiseStandardDeviation.ts';
import { Rng } from '../lib/rng.ts';

// Reference values from Python 3.11 with scipy 1.10.1 and numpy 1.24 (Debian bookworm):
//   scipy.stats.chi2.ppf(p, df), scipy.stats.chi2.cdf(x, df)
describe('the chi-square distribution against scipy', () => {
  it.each([
    [0.975, 15, 27.488392863442975],
    [0.025, 15, 6.262137795043253],
    [0.975, 16, 28.845350723404753],
    [0.025, 16, 6.907664353497003],
    [0.5, 1, 0.454936423119572],
    [0.001, 3, 0.024297585815692732],
    [0.999, 100, 149.44925277903886],
    [0.3, 0.5, 0.010982604948550948],
  ])('chi2.ppf(%f, %f)', (p, df, expected) => {
    expect(chiSquareQuantile(p, df)).toBeCloseTo(expected, 10);
  });

  it('chi2.cdf', () => {
    expect(chiSquareCdf(27.488, 15)).toBeCloseTo(0.9749971826005775, 12);
    expect(chiSquareCdf(3, 2)).toBeCloseTo(0.7768698398515702, 12);
    expect(chiSquareCdf(150, 100)).toBeCloseTo(0.9990960679576459, 12);
    expect(() => chiSquareQuantile(1, 3)).toThrow(RangeError);
    expect(() => chiSquareQuantile(0.5, 0)).toThrow(RangeError);
  });
});

describe('noiseStandardDeviations', () => {
  // 16 seeds, two evaluations each. numpy/scipy, as the doc comment defines it:
  //   ev = mean((a - b)**2 / 2); S2 = var((a + b) / 2, ddof=1); f = lambda v: sqrt(max(0, v - ev / 2))
  //   training: f(S2), f(15 S2 / chi2.ppf(0.975, 15)), f(15 S2 / chi2.ppf(0.025, 15))
  //   evaluation: sqrt(ev), sqrt(16 ev / chi2.ppf(0.975, 16)), sqrt(16 ev / chi2.ppf(0.025, 16))
  const a = [0.62, 0.81, 0.74, 0.55, 0.9, 0.68, 0.77, 0.84, 0.59, 0.71, 0.66, 0.88, 0.73, 0.8, 0.64, 0.7];
  const b = [0.6, 0.83, 0.71, 0.57, 0.91, 0.66, 0.79, 0.82, 0.61, 0.7, 0.69, 0.86, 0.75, 0.78, 0.62, 0.73];

  it('equals the formula computed with scipy', () => {
    const result = noiseStandardDeviations(a, b);
    expect(result.training.estimate).toBeCloseTo(0.10010827471626242, 12);
    expect(result.training.low).toBeCloseTo(0.073599263045798, 10);
    expect(result.training.high).toBeCloseTo(0.15544946868048515, 10);
    expect(result.evaluation.estimate).toBeCloseTo(0.015103807466993212, 12);
    expect(result.evaluation.low).toBeCloseTo(0.011248860223170797, 10);
    expect(result.evaluation.high).toBeCloseTo(0.022986921822204444, 10);
    const ninety = noiseStandardDeviations(a, b, { level: 0.9 });
    expect(ninety.training.low).toBeCloseTo(0.07725541568436076, 10);
    expect(ninety.training.high).toBeCloseTo(0.14430801871839885, 10);
  });

  it('the chi-square interval of an SD against scipy', () => {
    // np.sqrt((n - 1) * s2 / chi2.ppf([0.975, 0.025], n - 1)) for x = [0.8, 0.6, 0.9, 0.7, 0.75]
    const result = standardDeviationInterval([0.8, 0.6, 0.9, 0.7, 0.75]);
    expect(result.estimate).toBeCloseTo(0.11180339887498951, 12);
    expect(result.low).toBeCloseTo(0.06698512133383894, 10);
    expect(result.high).toBeCloseTo(0.3212732867463205, 10);
    expect(() => standardDeviationInterval([0.5])).toThrow(RangeError);
  });

  it('refuses what has no interval', () => {
    expect(() => noiseStandardDeviations([0.5], [0.5])).toThrow(RangeError);
    expect(() => noiseStandardDeviations([0.5, 0.6], [0.5])).toThrow(RangeError);
    expect(() => noiseStandardDeviations([0.5, NaN], [0.5, 0.6])).toThrow(RangeError);
  });

  it('covers both SDs at 16 seeds x 10 tasks x 64 episodes; the percentile bootstrap of the SD did not', () => {
    // A known truth: seed s has task rates tau_t + u_s, u_s ~ N(0, 0.08^2), tau_t from 0.35 to
    // 0.65 (never clipped in practice), each evaluation Binomial(64, p) per task. The training SD
    // is 0.08; the evaluation SD is sqrt(mean_t (tau_t (1 - tau_t) - 0.08^2) / 64 / 10).
    const [seeds, tasks, episodes, sigma] = [16, 10, 64, 0.08];
    const taus = Array.from({ length: tasks }, (_, t) => 0.35 + (0.3 * t) / (tasks - 1));
    const evaluationSD = Math.sqrt(
      taus.reduce((sum, tau) => sum + tau * (1 - tau) - sigma ** 2, 0) / tasks / episodes / tasks,
    );
    const rng = new Rng('noise-sd-coverage');
    const simulations = 1000;
    let training = 0;
    let evaluation = 0;
    let bootstrap = 0;
    const evaluate = (rates: number[]) =>
      rates.reduce((sum, p) => sum + sampleBinomial(episodes, p, rng) / episodes, 0) / tasks;
    for (let sim = 0; sim < simulations; sim += 1) {
      const rates = Array.from({ length: seeds }, () => {
        const offset = sigma * rng.normal();
        return taus.map((tau) => Math.min(1, Math.max(0, tau + offset)));
      });
      const a = rates.map(evaluate);
      const b = rates.map(evaluate);
      const result = noiseStandardDeviations(a, b);
      if (result.training.low <= sigma && sigma <= result.training.high) training += 1;
      if (result.evaluation.low <= evaluationSD && evaluationSD <= result.evaluation.high) evaluation += 1;
      // What seeds.json reported before: the percentile bootstrap over seeds of the same estimate
      // (in the first 300 simulations, 200 replicates each: it is the slow part).
      if (sim >= 300) continue;
      const replicates = Float64Array.from({ length: 200 }, () => {
        const ix = a.map(() => rng.int(seeds));
        return noiseStandardDeviations(
          ix.map((i) => a[i]!),
          ix.map((i) => b[i]!),
        ).training.estimate;
      }).sort();
      if (percentileOfSorted(replicates, 0.025) <= sigma && sigma <= percentileOfSorted(replicates, 0.975))
        bootstrap += 1;
    }
    const se = Math.sqrt((0.95 * 0.05) / simulations);
    expect(Math.abs(training / simulations - 0.95)).toBeLessThan(3 * se);
    expect(Math.abs(evaluation / simulations - 0.95)).toBeLessThan(3 * se);
    expect(bootstrap / simulations).toBeLessThan(0.93);
    console.log(
      `coverage: chi-square training ${training / simulations}, evaluation ${evaluation / simulations}, bootstrap ${bootstrap / simulations}`,
    );
  });
});

// Reference values from Python 3.11 (Debian bookworm): the mean squares from statsmodels 0.13.5
// (`anova_lm(ols('m ~ C(g)', data).fit())`, m the seed means (a + b) / 2, g the base agent), the
// components and their intervals from them with scipy 1.10.1's `chi2.ppf`, Satterthwaite's df
// nu = (MSB - MSW)^2 / (MSB^2 / (B - 1) + MSW^2 / (B (R - 1))).
describe('nestedNoiseStandardDeviations: base agents x RL seeds against statsmodels and scipy', () => {
  const a = [
    [0.62, 0.55, 0.71, 0.48],
    [0.33, 0.41, 0.29, 0.45],
    [0.58, 0.66, 0.52, 0.61],
    [0.44, 0.39, 0.5, 0.47],
  ];
  const b = [
    [0.6, 0.57, 0.69, 0.5],
    [0.35, 0.38, 0.31, 0.43],
    [0.55, 0.68, 0.54, 0.6],
    [0.46, 0.41, 0.48, 0.45],
  ];

  it('splits 4 x 4 seed means into a base-agent, an RL and an evaluation component', () => {
    const result = nestedNoiseStandardDeviations(a, b);
    expect(result.meanSquares.between).toBeCloseTo(0.04850989583333332, 12);
    expect(result.meanSquares.within).toBeCloseTo(0.0041453125, 12);
    const expected = {
      base: [0.10531450913019218, 0.0575021481320909, 0.48236179921749883],
      rl: [0.0635167300795625, 0.04495145402556666, 0.10575790457049325],
      evaluation: [0.014895469109766222, 0.011093696098846986, 0.02266984564518027],
    };
    for (const [part, [estimate, low, high]] of Object.entries(expected)) {
      const got = result[part as keyof typeof expected];
      expect(got.estimate, part).toBeCloseTo(estimate!, 10);
      expect(got.low, part).toBeCloseTo(low!, 9);
      expect(got.high, part).toBeCloseTo(high!, 9);
    }
    expect(result.base.df).toBeCloseTo(2.5046167514586943, 10);
  });

  it('gives a base component of 0 with the bound of MSB alone when the base agents differ less than the seeds in them', () => {
    const result = nestedNoiseStandardDeviations(
      [
        [0.5, 0.7, 0.3],
        [0.6, 0.4, 0.5],
        [0.45, 0.65, 0.35],
      ],
      [
        [0.52, 0.68, 0.31],
        [0.58, 0.42, 0.49],
        [0.47, 0.63, 0.36],
      ],
    );
    expect(result.base).toEqual({
      estimate: 0,
      low: 0,
      high: expect.closeTo(0.05542615020973131, 10),
      df: null,
    });
    expect(result.rl.estimate).toBeCloseTo(0.14806154876341873, 10);
    expect(result.rl.high).toBeCloseTo(0.32648372689373456, 9);
  });

  it('refuses a design with one base agent, one seed each, or unbalanced groups', () => {
    expect(() => nestedNoiseStandardDeviations([[0.1, 0.2]], [[0.1, 0.2]])).toThrow(/B >= 2 groups/);
    expect(() => nestedNoiseStandardDeviations([[0.1], [0.2]], [[0.1], [0.2]])).toThrow(/R >= 2/);
    expect(() => nestedNoiseStandardDeviations([[0.1, 0.2], [0.3]], [[0.1, 0.2], [0.3]])).toThrow(
      /B >= 2 groups/,
    );
    expect(() =>
      nestedNoiseStandardDeviations(
        [
          [0.1, NaN],
          [0.3, 0.4],
        ],
        [
          [0.1, 0.2],
          [0.3, 0.4],
        ],
      ),
    ).toThrow(/a/);
  });

  it('covers the RL and evaluation components at 4 x 4 in a normal world; the base component with 3-odd df less well', () => {
    // Seed means u_g + v_gr, u ~ N(0, 0.05^2), v ~ N(0, 0.15^2), each evaluation adding N(0, 0.02^2).
    const [sBase, sRl, sEval, simulations] = [0.05, 0.15, 0.02, 1000];
    const rng = new Rng('nested-noise-coverage');
    const covered = { base: 0, rl: 0, evaluation: 0 };
    for (let sim = 0; sim < simulations; sim += 1) {
      const x: number[][] = [];
      const y: number[][] = [];
      for (let g = 0; g < 4; g += 1) {
        const u = sBase * rng.normal();
        const seeds = Array.from({ length: 4 }, () => u + sRl * rng.normal());
        x.push(seeds.map((m) => m + sEval * rng.normal()));
        y.push(seeds.map((m) => m + sEval * rng.normal()));
      }
      const result = nestedNoiseStandardDeviations(x, y);
      for (const [part, truth] of [
        ['base', sBase],
        ['rl', sRl],
        ['evaluation', sEval],
      ] as const)
        if (result[part].low <= truth && truth <= result[part].high) covered[part] += 1;
    }
    const se = Math.sqrt((0.95 * 0.05) / simulations);
    expect(Math.abs(covered.rl / simulations - 0.95)).toBeLessThan(3 * se);
    expect(Math.abs(covered.evaluation / simulations - 0.95)).toBeLessThan(3 * se);
    // Satterthwaite's interval on a difference of mean squares is known to fall short when the
    // difference is small against MSW: measured, not assumed nominal.
    expect(covered.base / simulations).toBeLessThan(0.93);
    expect(covered.base / simulations).toBeGreaterThan(0.7);
  });

  it('chi-square quantiles that underflow end (df 0.01 at p 0.025: scipy 4.37e-321)', () => {
    expect(chiSquareQuantile(0.025, 0.01)).toBeGreaterThan(4.3e-321);
    expect(chiSquareQuantile(0.025, 0.01)).toBeLessThan(4.4e-321);
    expect(chiSquareQuantile(0.025, 0.001)).toBeLessThan(1e-320);
  });
});
