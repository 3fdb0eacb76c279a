import { sampleStandardDeviation } from './describe.ts';

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
