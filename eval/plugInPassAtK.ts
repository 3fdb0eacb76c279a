import { checkInteger, checkSuccesses, checkTrials } from './validate.ts';

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
