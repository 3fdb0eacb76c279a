import { checkK, checkSuccesses, checkTrials } from './validate.ts';

/**
 * Unbiased pass@k of one task from c successes among n samples (Chen et al. 2021,
 * "Evaluating Large Language Models Trained on Code", eq. 1), in the product form that never
 * forms a binomial coefficient:
 *
 *   1 - C(n-c, k) / C(n, k) = 1 - prod_{i=n-c+1}^{n} (1 - k/i)
 *
 * It is the probability that k samples drawn without replacement from the n contain a success,
 * and its expectation is 1 - (1-p)^k for independent samples. Exactly 1 when n - c < k.
 * Same as the paper's numpy `1 - np.prod(1 - k / np.arange(n - c + 1, n + 1))`.
 *
 * @throws RangeError if n < 1, c outside [0, n], or k outside [1, n] (or non-integers).
 * @example passAtK(10, 3, 5) // 0.9166... = 1 - 21/252
 */
export function passAtK(n: number, c: number, k: number): number {
  checkTrials(n);
  checkSuccesses(c, n);
  checkK(k, n);
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}
