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
 * Runtime: about 10 s (10^6 simulated evaluations; smoke 10^4).
 * Output: results/ex-1.json, results/ex-1.md, results/figures/ex-1-variance-by-k.svg.
 */
import { binomialEstimatorMoments, passAtK, plugInPassAtK, sampleBinomial } from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { parseStatisticsOptions } from './common.ts';
import { ROOT } from '../lib/paths.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/ex-1.ts';

const N = 64;
const P = 0.05;
const KS = [32, 4];

/** Mean and variance of simulated values, each with its Monte Carlo SE (the variance's from the fourth central moment). */
function simulated(values: Float64Array) {
  const m = values.length;
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / m;
  let m2 = 0;
  let m4 = 0;
  for (const v of values) {
    const d = (v - mean) ** 2;
    m2 += d;
    m4 += d * d;
  }
  const variance = m2 / (m - 1);
  // Var(s^2) is about (mu4 - sigma^4) / m for large m (Cramer, "Mathematical Methods of Statistics", 27.4).
  return {
    mean,
    meanSE: Math.sqrt(variance / m),
    variance,
    varianceSE: Math.sqrt((m4 / m - (m2 / m) ** 2) / m),
  };
}

/** The numbers of the exercise, without writing them. */
export function measure({ seed, smoke }: { seed: number; smoke: boolean }) {
  const draws = smoke ? 10_000 : 1_000_000;
  const rng = new Rng(seed).fork('ex-1');
  // One set of draws of c serves every k and both estimators: each estimator is a function of c alone.
  const counts = Int32Array.from({ length: draws }, () => sampleBinomial(N, P, rng));
  const rows = KS.map((k) => {
    const truth = 1 - (1 - P) ** k;
    const estimators = (
      [
        ['unbiased', (c: number) => passAtK(N, c, k)],
        ['plug-in', (c: number) => plugInPassAtK(N, c, k)],
      ] as const
    ).map(([estimator, estimate]) => {
      const table = Array.from({ length: N + 1 }, (_, c) => estimate(c));
      const sim = simulated(Float64Array.from(counts, (c) => table[c] as number));
      const exact = binomialEstimatorMoments({ n: N, p: P, estimate, truth });
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
  // The exact variance of both at every k, for the figure.
  const byK = Array.from({ length: N }, (_, i) => {
    const k = i + 1;
    const truth = 1 - (1 - P) ** k;
    return {
      k,
      unbiased: binomialEstimatorMoments({ n: N, p: P, estimate: (c) => passAtK(N, c, k), truth }).variance,
      plugInMse: binomialEstimatorMoments({ n: N, p: P, estimate: (c) => plugInPassAtK(N, c, k), truth })
        .mse as number,
    };
  });
  return { n: N, p: P, draws, rows, byK };
}

export async function main({ seed = 0, smoke = false, outDir = `${ROOT}/results` } = {}) {
  const numbers = measure({ seed, smoke });
  const { draws } = numbers;
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

if (isMain(import.meta.url))
  await runScript('ex:1', () => main(parseStatisticsOptions(process.argv.slice(2))));
