/**
 * Exercise 1. The unbiased pass@k estimator is the minimum-variance unbiased one; how large is
 * its variance?
 *
 * Question: at n = 64 samples of a task with p = 0.05, what is the variance of 1 - C(n-c,k)/C(n,k)
 *   at k = 32 against k = 4, by simulation (with its Monte Carlo SE) and exactly (a sum over the
 *   binomial distribution of c)? And the plug-in 1 - (1 - c/n)^k beside it: its bias, variance
 *   and mean squared error. The proof (c complete and sufficient, Lehmann-Scheffe) is in
 *   docs/EXERCISES.md.
 * Command: npm run ex:1 [-- --seed S --smoke --out DIR]
 * Runtime: seconds: 10^6 simulated evaluations (smoke 10^4) and the exact sums over c.
 * Output: results/ex-1.json, results/ex-1.md, results/figures/ex-1-variance-by-k.svg.
 */
import { estimatorVarianceNumbers } from '../analysis/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { parseStatisticsOptions } from './common.ts';
import { ROOT } from '../lib/paths.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/ex-1.ts';

const N = 64;
const P = 0.05;
const KS = [32, 4];

export async function main({ seed = 0, smoke = false, outDir = `${ROOT}/results` } = {}) {
  const draws = smoke ? 10_000 : 1_000_000;
  const numbers = estimatorVarianceNumbers({ n: N, p: P, ks: KS, draws, rng: new Rng(seed).fork('ex-1') });
  writeResults(outDir, {
    section: 'ex-1',
    title: 'Variance of the unbiased pass@k estimator',
    seed,
    smoke,
    config: { n: N, p: P, ks: KS, draws },
    numbers,
    echo: isMain(import.meta.url),
    ...(await report(numbers)),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('ex:1', () => main(parseStatisticsOptions()));
