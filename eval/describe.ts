import { checkFiniteValues, checkProbability, checkUnits } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * Arithmetic mean.
 * @throws StatisticsError on an empty array or a value that is not finite.
 * @example mean([1, 2, 3]) // 2
 */
export function mean(values: ArrayLike<number>): number {
  checkFiniteValues(values);
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i] as number;
  return sum / values.length;
}

/**
 * Sample variance with the n - 1 denominator (numpy `var(ddof=1)`). One value has no sample
 * variance (numpy returns nan with a warning); here that is an error.
 * @throws StatisticsError on fewer than 2 values or a value that is not finite.
 * @example sampleVariance([1, 2, 3, 4]) // 1.6667
 */
export function sampleVariance(values: ArrayLike<number>): number {
  checkUnits(values, 2, 'values', 'a sample variance');
  const center = mean(values);
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += ((values[i] as number) - center) ** 2;
  return sum / (values.length - 1);
}

/** Sample standard deviation (n - 1 denominator). @throws StatisticsError as sampleVariance. */
export function sampleStandardDeviation(values: ArrayLike<number>): number {
  return Math.sqrt(sampleVariance(values));
}

/**
 * Quantile of already sorted values by linear interpolation between order statistics
 * (Hyndman & Fan type 7, numpy's default `np.quantile`).
 * @throws StatisticsError on an empty array, a value that is not finite, values not in ascending
 *   order, or q outside [0, 1].
 * @example quantileSorted([1, 2, 3, 4], 0.5) // 2.5
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  checkFiniteValues(sorted, 'sorted');
  for (let i = 1; i < sorted.length; i++) {
    if ((sorted[i] as number) < (sorted[i - 1] as number))
      throw new StatisticsError(
        `sorted must be in ascending order; sorted[${i}] = ${sorted[i]} < sorted[${i - 1}] = ${sorted[i - 1]}`,
      );
  }
  checkProbability(q, 'q');
  const position = q * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  const weight = position - below;
  return (sorted[below] as number) * (1 - weight) + (sorted[above] as number) * weight;
}

/**
 * Standard error of a mean of n values: s / sqrt(n), s the sample standard deviation (n - 1
 * denominator). It is lm-evaluation-harness's `mean_stderr` (`lm_eval/api/metrics.py`:
 * `sample_stddev(arr) / math.sqrt(len(arr))`), the `acc_stderr` it reports beside a task's
 * accuracy, and scipy's `scipy.stats.sem` (ddof=1). With one value per task (a task mean) it is the
 * task-level standard error of the mean over tasks.
 * @throws StatisticsError on fewer than 2 values or a value that is not finite.
 * @example meanStandardError([1, 0, 1, 1]) // 0.25
 */
export function meanStandardError(values: ArrayLike<number>): number {
  return sampleStandardDeviation(values) / Math.sqrt(values.length);
}
