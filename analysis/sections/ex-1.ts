/** The numbers of exercise 1 (experiments/ex-1.ts): the variance of the unbiased and plug-in pass@k estimators. */
import { binomialEstimatorMoments, mean, passAtK, plugInPassAtK, sampleBinomial } from '../../eval/index.ts';
import type { Rng } from '../../lib/rng.ts';

/** Mean and variance of simulated values, each with its Monte Carlo SE (the variance's from the fourth central moment). */
function simulated(values: Float64Array) {
  const m = values.length;
  const average = mean(values);
  let m2 = 0;
  let m4 = 0;
  for (const v of values) {
    const d = (v - average) ** 2;
    m2 += d;
    m4 += d * d;
  }
  const variance = m2 / (m - 1);
  // Var(s^2) is about (mu4 - sigma^4) / m for large m (Cramer, "Mathematical Methods of Statistics", 27.4).
  return {
    mean: average,
    meanSE: Math.sqrt(variance / m),
    variance,
    varianceSE: Math.sqrt((m4 / m - (m2 / m) ** 2) / m),
  };
}

/** The unbiased and the plug-in estimators of pass@k. */
const ESTIMATORS = [
  ['unbiased', passAtK],
  ['plug-in', plugInPassAtK],
] as const;

/**
 * What exercise 1 reports: `draws` counts c ~ Binomial(n, p), and at each k of `ks` the unbiased
 * and plug-in pass@k estimators' simulated mean and variance beside their exact moments; the
 * exact variance (unbiased) and MSE (plug-in) at every k up to n, for the figure.
 */
export function estimatorVarianceNumbers({
  n,
  p,
  ks,
  draws,
  rng,
}: {
  n: number;
  p: number;
  ks: readonly number[];
  draws: number;
  rng: Rng;
}) {
  // One set of draws of c serves every k and both estimators: each estimator is a function of c alone.
  const counts = Int32Array.from({ length: draws }, () => sampleBinomial(n, p, rng));
  const exactMoments = (k: number, of: typeof passAtK) =>
    binomialEstimatorMoments({ n, p, estimate: (c) => of(n, c, k), truth: 1 - (1 - p) ** k });
  const rows = ks.map((k) => {
    const truth = 1 - (1 - p) ** k;
    const estimators = ESTIMATORS.map(([estimator, of]) => {
      const table = Array.from({ length: n + 1 }, (_, c) => of(n, c, k));
      const sim = simulated(Float64Array.from(counts, (c) => table[c] as number));
      const exact = exactMoments(k, of);
      return {
        estimator,
        exact,
        simulated: { ...sim, mse: sim.variance + (sim.mean - truth) ** 2 },
        // Simulation against the exact variance, in Monte Carlo SEs.
        varianceZ: (sim.variance - exact.variance) / sim.varianceSE,
      };
    });
    return { k, truth, estimators };
  });
  const byK = Array.from({ length: n }, (_, i) => ({
    k: i + 1,
    unbiased: exactMoments(i + 1, passAtK).variance,
    plugInMse: exactMoments(i + 1, plugInPassAtK).mse as number,
  }));
  return { n, p, draws, rows, byK };
}

export type NumbersEx1 = ReturnType<typeof estimatorVarianceNumbers>;
