import { agrestiCoullInterval } from './agrestiCoullInterval.ts';
import { clopperPearsonInterval } from './clopperPearsonInterval.ts';
import { jeffreysInterval } from './jeffreysInterval.ts';
import { waldInterval } from './waldInterval.ts';
import { wilsonInterval } from './wilsonInterval.ts';
import { StatisticsError } from '../lib/errors.ts';

export const PROPORTION_METHODS = ['wilson', 'wald', 'clopper-pearson', 'jeffreys', 'agresti-coull'] as const;
export type ProportionMethod = (typeof PROPORTION_METHODS)[number];

export interface ProportionEstimate {
  estimate: number;
  low: number;
  high: number;
  method: ProportionMethod;
  level: number;
}

const INTERVALS = {
  wilson: wilsonInterval,
  wald: waldInterval,
  'clopper-pearson': clopperPearsonInterval,
  jeffreys: jeffreysInterval,
  'agresti-coull': agrestiCoullInterval,
} as const;

/**
 * One proportion c/n with an interval by name (default Wilson, level 0.95); see each method's
 * own file for its formula and source.
 *
 * @throws StatisticsError as the chosen method, or on an unknown method.
 * @example proportionInterval(3, 10, { method: 'clopper-pearson' })
 */
export function proportionInterval(
  c: number,
  n: number,
  { method = 'wilson', level = 0.95 }: { method?: ProportionMethod; level?: number } = {},
): ProportionEstimate {
  const interval = INTERVALS[method];
  if (interval === undefined)
    throw new StatisticsError(
      `unknown interval method '${String(method)}' (have ${PROPORTION_METHODS.join(', ')})`,
    );
  const { low, high } = interval(c, n, { level });
  return { estimate: c / n, low, high, method, level };
}
