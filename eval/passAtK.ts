import { noneDrawn } from './noneDrawn.ts';
import { checkK, checkSuccesses, checkTrials } from './validate.ts';

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
