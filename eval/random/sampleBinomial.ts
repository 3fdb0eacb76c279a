import type { RandomSource } from '../randomSource.ts';

/**
 * A Binomial(n, p) draw as the sum of n Bernoulli(p) draws: exact, O(n) uniforms; meant for the
 * simulations' n of tens to hundreds.
 *
 * @throws RangeError if n is not a non-negative integer or p is outside [0, 1].
 * @example sampleBinomial(40, 0.03, new Rng(1))
 */
export function sampleBinomial(n: number, p: number, rng: RandomSource): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`);
  if (!(p >= 0 && p <= 1)) throw new RangeError(`p must be in [0, 1], got ${p}`);
  let successes = 0;
  for (let i = 0; i < n; i++) if (rng.next() < p) successes++;
  return successes;
}
