import { StatisticsError } from '../lib/errors.ts';
/**
 * Interquartile mean (Agarwal et al. 2021, "Deep RL at the edge of the statistical precipice",
 * section 4.2; rliable's `metrics.aggregate_iqm`, which is `scipy.stats.trim_mean(x, 0.25)`): the
 * mean of the middle 50% of the values, after dropping floor(0.25 n) from each end of the sorted
 * list. Robust to a few outlying runs and, unlike the median, uses half of the data.
 * @throws StatisticsError on no values or a value that is not finite.
 * @example interquartileMean([0, 0.1, 0.5, 0.6, 0.9, 1]) // 0.4 (drops 0 and 1: floor(1.5) = 1 each end)
 */
export function interquartileMean(values: ArrayLike<number>): number {
  if (values.length === 0) throw new StatisticsError('interquartileMean: no values');
  const sorted = Float64Array.from(values).sort();
  if (!sorted.every(Number.isFinite)) throw new StatisticsError('interquartileMean: a value is not finite');
  const cut = Math.floor(0.25 * sorted.length);
  let sum = 0;
  for (let i = cut; i < sorted.length - cut; i += 1) sum += sorted[i] as number;
  return sum / (sorted.length - 2 * cut);
}
