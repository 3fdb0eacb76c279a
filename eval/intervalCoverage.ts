import type { Interval } from './interval.ts';
import { binomialPmf } from './discrete.ts';
import { checkProbability, checkTrials } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * Exact coverage of a one-proportion interval at true rate p: the Binomial(n, p) probability of
 * the counts c whose interval contains p, sum_c pmf(c) 1[low(c) <= p <= high(c)]
 * (Brown, Cai & DasGupta 2001, eq. 2). No simulation error.
 *
 * @throws StatisticsError if n is not a positive safe integer or p is outside [0, 1].
 * @example intervalCoverage(40, 0.2, wilsonInterval) // 0.928
 */
export function intervalCoverage(n: number, p: number, interval: (c: number, n: number) => Interval): number {
  checkTrials(n);
  checkProbability(p, 'p');
  if (typeof interval !== 'function')
    throw new StatisticsError('interval must be a function (c, n) => { low, high }');
  const pmf = binomialPmf(n, p);
  let coverage = 0;
  for (let c = 0; c <= n; c++) {
    const { low, high } = interval(c, n);
    if (low <= p && p <= high) coverage += pmf[c] as number;
  }
  return coverage;
}
