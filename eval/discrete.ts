import { checkFinite, checkInteger, checkProbability } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * The Binomial(n, p) pmf at 0..n in log space, log C(n, x) + x log p + (n - x) log(1 - p) with
 * log C(n, x) by its recurrence; scipy.stats.binom.pmf(range(n + 1), n, p) to rounding.
 */
export function binomialPmf(n: number, p: number): Float64Array {
  checkInteger(n, 'n');
  checkProbability(p, 'p');
  const pmf = new Float64Array(n + 1);
  if (p === 0 || p === 1) {
    pmf[p === 0 ? 0 : n] = 1;
    return pmf;
  }
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  let logChoose = 0;
  for (let x = 0; x <= n; x++) {
    if (x > 0) logChoose += Math.log((n - x + 1) / x);
    pmf[x] = Math.exp(logChoose + x * logP + (n - x) * logQ);
  }
  return pmf;
}

/**
 * The beta-binomial pmf at 0..n (c ~ Binomial(n, p), p ~ Beta(a, b)) by the ratio
 * pmf(x+1)/pmf(x) = (n-x)/(x+1) (x+a)/(n-x-1+b) from pmf(0) = prod_{i<n} (b+i)/(a+b+i), as
 * scipy.stats.betabinom.pmf(range(n + 1), n, a, b).
 */
export function betaBinomialPmf(n: number, a: number, b: number): Float64Array {
  checkInteger(n, 'n');
  checkFinite(a, 'a', { positive: true });
  checkFinite(b, 'b', { positive: true });
  const pmf = new Float64Array(n + 1);
  let term = 1;
  for (let i = 0; i < n; i++) term *= (b + i) / (a + b + i);
  for (let x = 0; x <= n; x++) {
    pmf[x] = term;
    term *= ((n - x) / (x + 1)) * ((x + a) / (n - x - 1 + b));
  }
  return pmf;
}

/** The pmf of the sum of two independent integer variables from theirs (discrete convolution). */
export function convolvePmf(first: ArrayLike<number>, second: ArrayLike<number>): Float64Array {
  const checkPmf = (pmf: ArrayLike<number>, name: string) => {
    if (pmf.length === 0) throw new StatisticsError(`${name} is empty`);
    for (let i = 0; i < pmf.length; i++) checkFinite(pmf[i]!, `${name}[${i}]`, { nonNegative: true });
  };
  checkPmf(first, 'first');
  checkPmf(second, 'second');
  const sum = new Float64Array(first.length + second.length - 1);
  for (let i = 0; i < first.length; i++) {
    const weight = first[i]!;
    if (weight === 0) continue;
    for (let j = 0; j < second.length; j++) sum[i + j] = sum[i + j]! + weight * second[j]!;
  }
  return sum;
}

/**
 * The exact mean and variance of an estimator T(c) of c ~ Binomial(n, p), summed over the pmf
 * (Casella & Berger 2.2), and with `truth` its mean squared error Var T + (E[T] - truth)^2
 * (chapter 17, exercise 1: the unbiased and plug-in pass@k).
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
  checkInteger(n, 'n', 1);
  checkProbability(p, 'p');
  const pmf = binomialPmf(n, p);
  const values = Array.from({ length: n + 1 }, (_, c) => estimate(c));
  let mean = 0;
  for (let c = 0; c <= n; c++) mean += values[c]! * pmf[c]!;
  let variance = 0;
  for (let c = 0; c <= n; c++) variance += (values[c]! - mean) ** 2 * pmf[c]!;
  return { mean, variance, mse: truth === undefined ? null : variance + (mean - truth) ** 2 };
}
