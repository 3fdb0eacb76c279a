import { binomialPmf } from './discrete.ts';
import { checkProbability, checkTrials } from './validate.ts';

/**
 * The exact mean and variance of an estimator that is a function of c ~ Binomial(n, p), by
 * summing over the distribution of c: E[T] = sum_c T(c) P(c), Var T = sum_c (T(c) - E[T])^2 P(c)
 * (the definition; Casella & Berger, "Statistical Inference", 2.2). With `truth` also the mean
 * squared error, Var T + (E[T] - truth)^2. Used on the unbiased and plug-in pass@k estimators
 * (chapter 17, exercise 1), whose T(c) are `passAtK(n, c, k)` and `plugInPassAtK(n, c, k)`.
 *
 * @throws StatisticsError if n < 1 or p is outside [0, 1].
 * @example binomialEstimatorMoments({ n: 2, p: 0.5, estimate: (c) => c / 2 }) // { mean: 0.5, variance: 0.125 }
 */
export function binomialEstimatorMoments({
  n,
  p,
  estimate,
  truth,
}: {
  n: number;
  p: number;
  estimate: (c: number) => number;
  truth?: number;
}): { mean: number; variance: number; mse: number | null } {
  checkTrials(n);
  checkProbability(p, 'p');
  const pmf = binomialPmf(n, p);
  const values = Array.from({ length: n + 1 }, (_, c) => estimate(c));
  let mean = 0;
  for (let c = 0; c <= n; c++) mean += (values[c] as number) * (pmf[c] as number);
  let variance = 0;
  for (let c = 0; c <= n; c++) variance += ((values[c] as number) - mean) ** 2 * (pmf[c] as number);
  return { mean, variance, mse: truth === undefined ? null : variance + (mean - truth) ** 2 };
}
