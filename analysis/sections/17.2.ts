/**
 * The numbers of 17.2 (experiments/17.2.ts): the plug-in and unbiased pass@k estimators
 * simulated beside their exact expectations, and the product form against exact arithmetic.
 */
import {
  binomialEstimatorMoments,
  exactPassAtK,
  passAtK,
  plugInPassAtK,
  sampleBinomial,
  sampleStandardDeviation,
} from '../../eval/index.ts';
import type { Rng } from '../../lib/rng.ts';
import { compareWithRange } from '../book.ts';

/** Decimal digits of C(n, k), from log-gamma-free summation of logs. */
function binomialDigits(n: number, k: number): number {
  let log10 = 0;
  for (let i = 1; i <= k; i++) log10 += Math.log10((n - k + i) / i);
  return Math.floor(log10) + 1;
}

/**
 * Monte Carlo: one task with true pass rate p, `evals` independent evals of n samples each (the
 * stream `rng.fork(p)` for each p); each mean with its Monte Carlo SE and the exact expectation,
 * the exact plug-in bias against the book's range `bookBias` ([low, high]).
 */
function monteCarloRows({
  n,
  k,
  passRates,
  evals,
  bookBias,
  rng,
}: {
  n: number;
  k: number;
  passRates: readonly number[];
  evals: number;
  bookBias: readonly [low: number, high: number];
  rng: Rng;
}) {
  return passRates.map((p) => {
    const stream = rng.fork(p);
    const plugIn = new Float64Array(evals);
    const unbiased = new Float64Array(evals);
    for (let e = 0; e < evals; e++) {
      const c = sampleBinomial(n, p, stream);
      plugIn[e] = plugInPassAtK(n, c, k);
      unbiased[e] = passAtK(n, c, k);
    }
    const truth = 1 - (1 - p) ** k;
    const plugInMean = plugIn.reduce((a, b) => a + b, 0) / evals;
    const unbiasedMean = unbiased.reduce((a, b) => a + b, 0) / evals;
    // E over c ~ Binomial(n, p), exactly (to check the simulation against).
    const exactMean = (estimate: (c: number) => number) => binomialEstimatorMoments({ n, p, estimate }).mean;
    const plugInBiasExact = exactMean((c) => plugInPassAtK(n, c, k)) - truth;
    return {
      p,
      truth,
      plugInMean,
      plugInBias: plugInMean - truth,
      plugInSE: sampleStandardDeviation(plugIn) / Math.sqrt(evals),
      unbiasedMean,
      unbiasedBias: unbiasedMean - truth,
      monteCarloSE: sampleStandardDeviation(unbiased) / Math.sqrt(evals),
      plugInBiasExact,
      unbiasedBiasExact: exactMean((c) => passAtK(n, c, k)) - truth,
      bookRange: compareWithRange({ value: plugInBiasExact, low: bookBias[0], high: bookBias[1], digits: 4 }),
    };
  });
}

/** The product form of the unbiased estimator against exact rational arithmetic (BigInt), at each (n, c, k). */
function productFormRows(cases: ReadonlyArray<readonly [n: number, c: number, k: number]>) {
  return cases.map(([n, c, k]) => {
    const exact = exactPassAtK(n, c, k);
    return {
      n,
      c,
      k,
      productForm: passAtK(n, c, k),
      exact:
        exact.denominator.toString().length > 12
          ? `${exact.numerator.toString().length}-digit / ${exact.denominator.toString().length}-digit fraction`
          : `${exact.numerator}/${exact.denominator}`,
      exactValue: exact.value,
      binomialDigits: binomialDigits(n, k),
    };
  });
}

/** What 17.2 reports: the Monte Carlo rows at each pass rate, and the product-form cases. */
export function passAtKNumbers({
  productFormCases,
  ...monteCarlo
}: Parameters<typeof monteCarloRows>[0] & { productFormCases: Parameters<typeof productFormRows>[0] }) {
  return { monteCarlo: monteCarloRows(monteCarlo), productForm: productFormRows(productFormCases) };
}

export type Numbers172 = ReturnType<typeof passAtKNumbers>;
