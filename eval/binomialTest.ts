import { binomialPmf } from './discrete.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * One-sided exact binomial test (Clopper & Pearson's exact tail; scipy's
 * `binomtest(k, n, p, alternative='greater').pvalue`): the p-value P(X >= k) for X ~ Binomial(n, p),
 * summed from the probability mass function. With p = 1/2 on the discordant pairs of a paired
 * design (k of n pairs go one way) it is the exact one-sided McNemar test.
 * @throws StatisticsError if n < 0, k outside [0, n] or p outside [0, 1].
 * @example binomialTestGreater(8, 10, 0.5) // 0.0546875
 */
export function binomialTestGreater(k: number, n: number, p: number): number {
  if (!Number.isInteger(n) || n < 0)
    throw new StatisticsError(`binomialTestGreater: n must be an integer >= 0, got ${n}`);
  if (!Number.isInteger(k) || k < 0 || k > n)
    throw new StatisticsError(`binomialTestGreater: k must be an integer in [0, n], got ${k}`);
  if (!(p >= 0 && p <= 1)) throw new StatisticsError(`binomialTestGreater: p must be in [0, 1], got ${p}`);
  if (k === 0) return 1; // P(X >= 0) is 1 exactly, not a sum that rounds below it
  const pmf = binomialPmf(n, p);
  let tail = 0;
  // Summed from the far tail inwards, so that small terms are not lost against large ones.
  for (let x = n; x >= k; x -= 1) tail += pmf[x] as number;
  return Math.min(1, tail);
}
