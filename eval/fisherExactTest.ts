import { checkSuccesses, checkTrials } from './validate.ts';

/** log C(n, k) as a sum of logs: exact enough for the hundreds of episodes the evaluations hold. */
function logChoose(n: number, k: number): number {
  let sum = 0;
  for (let i = 1; i <= k; i++) sum += Math.log(n - k + i) - Math.log(i);
  return sum;
}

/**
 * One-sided Fisher's exact test that group 1 (c1 successes of n1) has a higher success rate than
 * group 2 (c2 of n2), for two independent samples (Fisher 1935): given the c1 + c2 successes,
 * group 1's count is hypergeometric under equal rates, and the p-value is
 * P(X >= c1) = sum_{x >= c1} C(c1 + c2, x) C(n1 + n2 - c1 - c2, n1 - x) / C(n1 + n2, n1).
 * Same as scipy's `fisher_exact([[c1, n1 - c1], [c2, n2 - c2]], alternative='greater').pvalue`.
 * For the same episodes seen twice use the paired (McNemar) test instead.
 * @throws StatisticsError if n1 or n2 < 1, or a count is outside [0, n].
 * @example fisherExactGreater(37, 64, 6, 64) // 3.0e-9
 */
export function fisherExactGreater(c1: number, n1: number, c2: number, n2: number): number {
  checkTrials(n1, 'n1');
  checkTrials(n2, 'n2');
  checkSuccesses(c1, n1, 'c1');
  checkSuccesses(c2, n2, 'c2');
  const successes = c1 + c2;
  const total = n1 + n2;
  const denominator = logChoose(total, n1);
  let tail = 0;
  for (let x = Math.min(successes, n1); x >= c1; x--)
    tail += Math.exp(logChoose(successes, x) + logChoose(total - successes, n1 - x) - denominator);
  return Math.min(1, tail);
}
