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
import { passAtKNumbers } from '../analysis/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { parseStatisticsOptions } from './common.ts';
import { ROOT } from '../lib/paths.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/17.2.ts';

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

export async function main({ seed = 0, smoke = false, outDir = `${ROOT}results` } = {}) {
  const evals = smoke ? 2_000 : 100_000;
  const numbers = passAtKNumbers({
    n: N,
    k: K,
    passRates: PASS_RATES,
    evals,
    bookBias: BOOK_PLUG_IN_BIAS,
    productFormCases: PRODUCT_FORM_CASES,
    rng: new Rng(seed).fork('17.2/monte-carlo'),
  });
  const config = { n: N, k: K, passRates: PASS_RATES, evals };
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

if (isMain(import.meta.url)) await runScript('exp:17.2', () => main(parseStatisticsOptions()));
