import type { RandomSource } from '../randomSource.ts';
import { checkInteger, checkProbability, checkRandomSource } from '../validate.ts';

/**
 * A Binomial(n, p) draw as the sum of n Bernoulli(p) draws: exact, O(n) uniforms; meant for the
 * simulations' n of tens to hundreds.
 *
 * @throws StatisticsError if n is not a safe integer >= 0, p is outside [0, 1], or there is no rng.
 * @example sampleBinomial(40, 0.03, new Rng(1))
 */
export function sampleBinomial(n: number, p: number, rng: RandomSource): number {
  checkInteger(n, 'n');
  checkProbability(p, 'p');
  checkRandomSource(rng);
  let successes = 0;
  for (let i = 0; i < n; i++) if (rng.next() < p) successes++;
  return successes;
}
