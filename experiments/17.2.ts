/**
 * 17.2 pass@k and its unbiased estimator.
 *
 * Question: how far off is the plug-in estimate 1 - (1 - c/n)^k of pass@k, and does the
 *   unbiased estimator 1 - C(n-c, k)/C(n, k) (Chen et al. 2021) hit the truth? Does its
 *   product form agree with exact arithmetic where the binomial coefficients overflow?
 *   Each simulated mean comes with its Monte Carlo SE and the exact expectation over
 *   c ~ Binomial(n, p) beside it; the book's stated range is checked against the exact value.
 * Command: npm run exp:17.2 [-- --seed S --smoke --out DIR]   (node --import tsx experiments/17.2.ts)
 * Runtime: about a second (smoke: well under one).
 * Output: results/17.2.json, results/17.2.md.
 */
import {
  binomialPmf,
  exactPassAtK,
  passAtK,
  plugInPassAtK,
  sampleBinomial,
  sampleStandardDeviation,
} from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';
import { compareWithRange } from '../publish/book.ts';
import { isMain, runScript } from '../lib/script.ts';
import { parseStatisticsOptions } from './common.ts';
import { ROOT } from '../lib/paths.ts';
import { writeResults } from '../publish/results.ts';
import { report, type PassRateRow, type ProductFormRow } from '../publish/sections/17.2.ts';

const N = 10; // samples per simulated eval
const K = 5;
const PASS_RATES = [0.1, 0.2, 0.3, 0.4, 0.5];
/** The chapter: the plug-in is low "by 0.04 to 0.08 at every p". */
const BOOK_PLUG_IN_BIAS = [-0.08, -0.04] as const;
/** (n, c, k): the book's two cases (C(2000, 1000) overflows a float), one more, and one with n - c < k (exactly 1). */
const PRODUCT_FORM_CASES: ReadonlyArray<readonly [n: number, c: number, k: number]> = [
  [10, 3, 5],
  [2000, 5, 1000],
  [200, 17, 100],
  [10, 6, 5],
];

/** E over c ~ Binomial(n, p) of f(c), exactly (to check the simulation against). */
function binomialExpectation(n: number, p: number, f: (c: number) => number): number {
  const pmf = binomialPmf(n, p);
  let sum = 0;
  for (let c = 0; c <= n; c++) sum += (pmf[c] as number) * f(c);
  return sum;
}

export async function main(
  opts: { seed?: number; smoke?: boolean; outDir?: string } = {},
): Promise<{ monteCarlo: PassRateRow[]; productForm: ProductFormRow[] }> {
  const { seed = 0, smoke = false, outDir = `${ROOT}results` } = opts;
  const evals = smoke ? 2_000 : 100_000;
  const rng = new Rng(seed).fork('17.2/monte-carlo');

  // Monte Carlo: one task with true pass rate p, `evals` independent evals of N samples each.
  const monteCarlo: PassRateRow[] = PASS_RATES.map((p) => {
    const stream = rng.fork(p);
    const plugIn = new Float64Array(evals);
    const unbiased = new Float64Array(evals);
    for (let e = 0; e < evals; e++) {
      const c = sampleBinomial(N, p, stream);
      plugIn[e] = plugInPassAtK(N, c, K);
      unbiased[e] = passAtK(N, c, K);
    }
    const truth = 1 - (1 - p) ** K;
    const plugInMean = plugIn.reduce((a, b) => a + b, 0) / evals;
    const unbiasedMean = unbiased.reduce((a, b) => a + b, 0) / evals;
    const plugInBiasExact = binomialExpectation(N, p, (c) => plugInPassAtK(N, c, K)) - truth;
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
      unbiasedBiasExact: binomialExpectation(N, p, (c) => passAtK(N, c, K)) - truth,
      bookRange: compareWithRange({
        value: plugInBiasExact,
        low: BOOK_PLUG_IN_BIAS[0],
        high: BOOK_PLUG_IN_BIAS[1],
        digits: 4,
      }),
    };
  });

  // Product form vs exact rational arithmetic (BigInt).
  const productForm: ProductFormRow[] = PRODUCT_FORM_CASES.map(([n, c, k]) => {
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

  const config = { n: N, k: K, passRates: PASS_RATES, evals };
  const numbers = { monteCarlo, productForm };
  writeResults(outDir, {
    section: '17.2',
    title: 'pass@k and its unbiased estimator',
    seed,
    smoke,
    config,
    numbers,
    echo: !smoke || isMain(import.meta.url),
    ...report(numbers, config),
  });
  return numbers;
}

/** Decimal digits of C(n, k), from log-gamma-free summation of logs. */
function binomialDigits(n: number, k: number): number {
  let log10 = 0;
  for (let i = 1; i <= k; i++) log10 += Math.log10((n - k + i) / i);
  return Math.floor(log10) + 1;
}

if (isMain(import.meta.url))
  await runScript('exp:17.2', () => main(parseStatisticsOptions(process.argv.slice(2))));
