import { noneDrawn } from './noneDrawn.ts';
import { checkK, checkSuccesses, checkTrials } from './validate.ts';

/**
 * Unbiased all-k-correct (pass^k) of one task: the probability that k samples drawn without
 * replacement from the n are all successes,
 *
 *   C(c, k) / C(n, k) = prod_{i=0}^{k-1} (c - i) / (n - i) = C(n - (n-c), k) / C(n, k),
 *
 * i.e. no failure among the k draws: the same hypergeometric zero term as pass@k with the
 * n - c failures marked, so min(k, n - c) factors suffice (noneDrawn.ts). An unbiased estimate
 * of p^k (the same U-statistic argument as Chen et al. 2021 for pass@k). Exactly 0 when c < k.
 * Falls as k grows.
 *
 * @throws StatisticsError if n < 1, c outside [0, n], k outside [1, n], or a count above 2^53 - 1.
 * @example allCorrectAtK(10, 10, 10) // 1; allCorrectAtK(10, 3, 2) // 6/90
 */
export function allCorrectAtK(n: number, c: number, k: number): number {
  checkTrials(n);
  checkSuccesses(c, n);
  checkK(k, n);
  return noneDrawn(n, n - c, k).probability;
}
