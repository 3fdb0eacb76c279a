import { noneDrawn } from './noneDrawn.ts';
import { checkInteger, checkK, checkSuccesses, checkTrials } from './validate.ts';

/**
 * Unbiased pass@k of one task from c successes among n samples (Chen et al. 2021,
 * "Evaluating Large Language Models Trained on Code", eq. 1), in the product form that never
 * forms a binomial coefficient:
 *
 *   1 - C(n-c, k) / C(n, k) = 1 - prod_{i=n-c+1}^{n} (1 - k/i) = 1 - prod_{i=n-k+1}^{n} (1 - c/i)
 *
 * It is the probability that k samples drawn without replacement from the n contain a success,
 * and its expectation is 1 - (1-p)^k for independent samples. Exactly 1 when n - c < k.
 * The shorter of the two products is taken (the first is the paper's numpy
 * `1 - np.prod(1 - k / np.arange(n - c + 1, n + 1))`); past 100,000 factors a log-space series
 * replaces it, so the time does not grow with the counts (see noneDrawn.ts).
 *
 * @throws StatisticsError if n < 1, c outside [0, n], k outside [1, n], or a count that is not a
 *   safe integer (above 2^53 - 1).
 * @example passAtK(10, 3, 5) // 0.9166... = 1 - 21/252
 */
export function passAtK(n: number, c: number, k: number): number {
  checkTrials(n);
  checkSuccesses(c, n);
  checkK(k, n);
  return noneDrawn(n, c, k).complement;
}

/**
 * Plug-in pass@k, 1 - (1 - c/n)^k: substitutes p-hat = c/n into 1 - (1-p)^k. Biased low for
 * k >= 2 and 0 < p < 1 because the map is strictly concave (Jensen); kept only to show that
 * error (chapter 17.2). k may exceed n here, since it is a formula in p.
 *
 * @throws StatisticsError if n < 1, c outside [0, n], k < 1, or a count above 2^53 - 1.
 * @example plugInPassAtK(10, 3, 5) // 1 - 0.7^5 = 0.83193
 */
export function plugInPassAtK(n: number, c: number, k: number): number {
  checkTrials(n);
  checkSuccesses(c, n);
  checkInteger(k, 'k', 1);
  return 1 - (1 - c / n) ** k;
}

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
