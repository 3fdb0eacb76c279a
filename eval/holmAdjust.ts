import { StatisticsError } from '../lib/errors.ts';

/**
 * Holm's step-down adjusted p-values (Holm 1979, "A simple sequentially rejective multiple test
 * procedure"): with the m p-values sorted, p_(1) <= ... <= p_(m), the adjusted value of the
 * i-th is max over j <= i of min(1, (m - j + 1) p_(j)). Rejecting every hypothesis whose adjusted
 * p-value is below alpha controls the family-wise error rate at alpha, for any dependence between
 * the tests, and rejects at least what Bonferroni (m p_i < alpha) does. Same as statsmodels'
 * `multipletests(p, method='holm')[1]`. The values come back in the order given.
 * @throws StatisticsError on a p-value outside [0, 1].
 * @example holmAdjust([0.01, 0.04, 0.03]) // [0.03, 0.06, 0.06]
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  for (const [i, p] of pValues.entries())
    if (typeof p !== 'number' || !(p >= 0 && p <= 1))
      throw new StatisticsError(`holmAdjust: p-value ${i} must be in [0, 1], got ${p}`);
  const m = pValues.length;
  const order = pValues.map((_, i) => i).sort((i, j) => pValues[i]! - pValues[j]!);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * pValues[index]!));
    adjusted[index] = running;
  });
  return adjusted;
}
