import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { normalCdfStandard } from './normal.ts';
import { checkInteger, checkLevel } from './validate.ts';

/**
 * The level at which to read a percentile bootstrap over n units so that it is as wide as a t
 * interval would be: the expanded percentile interval (Hesterberg 2015, "What Teachers Should Know
 * About the Bootstrap", The American Statistician 69(4), section 4.4). The percentile interval of
 * a mean from n units is narrow by sqrt((n - 1) / n) and uses z where t belongs; reading it at
 * the percentiles a'/2 and 1 - a'/2 with z_{1 - a'/2} = sqrt(n / (n - 1)) t_{1 - a/2, n - 1}
 * corrects both. Returns 1 - a'.
 *
 * The result stays below 1, where a few units would round it there (the interval is then the
 * replicates' range).
 * @throws StatisticsError if n < 2 or level is outside (0, 1).
 * @example expandedPercentileLevel(16, 0.95) // 0.97229 (scipy: 1 - 2 norm.sf(sqrt(16/15) t.ppf(0.975, 15)))
 */
export function expandedPercentileLevel(n: number, level: number): number {
  checkInteger(n, 'n', 2);
  checkLevel(level);
  const z = Math.sqrt(n / (n - 1)) * tQuantile(1 - (1 - level) / 2, n - 1);
  // At 2 or 3 units z is so far out that 1 - 2 P(Z > z) rounds to 1: the extreme replicates then.
  return Math.min(1 - 2 * (1 - normalCdfStandard(z)), 1 - 1e-12);
}
