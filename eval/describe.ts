import { checkFinite, checkFiniteValues, checkInteger, checkUnits } from './validate.ts';

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

/** One group's sample SD and size. */
export interface GroupSpread {
  sd: number;
  n: number;
}

/**
 * The pooled SD of two groups, the one SD a two-sample t test with equal variances assumes:
 *
 *   s_p = sqrt(((n_a - 1) s_a^2 + (n_b - 1) s_b^2) / (n_a + n_b - 2))
 *
 * (Student's two-sample test; statsmodels `ttest_ind(usevar="pooled")` pools the same way). Each
 * group's SD weighs by its degrees of freedom.
 *
 * @throws StatisticsError on an SD that is not finite and >= 0, or a group of fewer than 2 units.
 * @example pooledStandardDeviation({ sd: 0.1193, n: 16 }, { sd: 0.0495, n: 8 }) // 0.1024
 */
export function pooledStandardDeviation(a: GroupSpread, b: GroupSpread): number {
  checkFinite(a.sd, 'a.sd', { nonNegative: true });
  checkFinite(b.sd, 'b.sd', { nonNegative: true });
  checkInteger(a.n, 'a.n', 2);
  checkInteger(b.n, 'b.n', 2);
  return Math.sqrt(((a.n - 1) * a.sd ** 2 + (b.n - 1) * b.sd ** 2) / (a.n + b.n - 2));
}

/**
 * Shannon entropy in bits of the empirical distribution of counts, H = -sum q_i log2 q_i with
 * q_i = count_i / total (Cover & Thomas, "Elements of Information Theory", 2.1); 0 log 0 = 0.
 * Null when there is nothing counted. Chapter 17, exercise 4: the spread of the first edit.
 *
 * @throws StatisticsError on a count that is not a finite number >= 0.
 * @example shannonEntropy({ a: 1, b: 1 }) // 1
 */
export function shannonEntropy(counts: Readonly<Record<string, number>>): number | null {
  const values = Object.values(counts);
  values.forEach((value, i) => checkFinite(value, `counts[${i}]`, { nonNegative: true }));
  const total = values.reduce((sum, value) => sum + value, 0);
  if (total === 0) return null;
  return values.reduce(
    (sum, value) => (value === 0 ? sum : sum - (value / total) * Math.log2(value / total)),
    0,
  );
}
