import { mean, sampleVariance } from './describe.ts';
import { checkFiniteValues, checkSameLength, checkUnits } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * The per-unit differences b_j - a_j of two paired samples.
 * @throws StatisticsError on empty or different-length inputs or a value that is not finite.
 */
export function differences(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  checkFiniteValues(a, 'a');
  checkFiniteValues(b, 'b');
  checkSameLength(a, b);
  const d = new Float64Array(a.length);
  for (let j = 0; j < a.length; j++) d[j] = (b[j] as number) - (a[j] as number);
  return d;
}

/**
 * Mean per-unit difference d-bar = mean(b_j - a_j); positive means B is higher.
 * @throws StatisticsError on empty or different-length inputs or a value that is not finite.
 * @example meanDifference([0.5, 0.9], [0.6, 1.0]) // 0.1
 */
export function meanDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return mean(differences(a, b));
}

/**
 * Paired standard error sd(b_j - a_j) / sqrt(N): Var(d-bar) = (Var a + Var b - 2 Cov(a, b)) / N
 * (chapter 17.4), the covariance term being what pairing keeps. Undefined below 2 pairs.
 * @throws StatisticsError on fewer than 2 pairs, different lengths or a value that is not finite.
 * @example pairedStandardError([0.5, 0.9, 0.1], [0.6, 1.0, 0.1])
 */
export function pairedStandardError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const d = differences(a, b);
  checkUnits(d, 2, 'a', 'a paired standard error');
  return Math.sqrt(sampleVariance(d) / d.length);
}

/**
 * Unpaired (Welch) standard error of mean(b) - mean(a): sqrt(Var a / N_a + Var b / N_b), as if
 * the two systems had run on independent task samples. Undefined below 2 units per side.
 * @throws StatisticsError on fewer than 2 values on either side or a value that is not finite.
 * @example unpairedStandardError([0.5, 0.9, 0.1], [0.6, 1.0, 0.1])
 */
export function unpairedStandardError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  checkUnits(a, 2, 'a', 'an unpaired standard error');
  checkUnits(b, 2, 'b', 'an unpaired standard error');
  return Math.sqrt(sampleVariance(a) / a.length + sampleVariance(b) / b.length);
}

/**
 * Pearson correlation of paired values (per-task pass rates of two systems). Undefined when
 * either side has no spread (every task the same), which includes a single pair.
 * @throws StatisticsError on fewer than 2 pairs, different lengths, a value that is not finite, or a
 *   side with zero variance.
 * @example pearsonCorrelation([1, 2, 3], [2, 4, 7]) // 0.9934
 */
export function pearsonCorrelation(a: ArrayLike<number>, b: ArrayLike<number>): number {
  checkFiniteValues(a, 'a');
  checkFiniteValues(b, 'b');
  checkSameLength(a, b);
  checkUnits(a, 2, 'a', 'a correlation');
  const meanA = mean(a);
  const meanB = mean(b);
  let covariance = 0;
  let varianceA = 0;
  let varianceB = 0;
  for (let j = 0; j < a.length; j++) {
    const da = (a[j] as number) - meanA;
    const db = (b[j] as number) - meanB;
    covariance += da * db;
    varianceA += da * da;
    varianceB += db * db;
  }
  if (varianceA === 0 || varianceB === 0)
    throw new StatisticsError(
      `the correlation is undefined: ${varianceA === 0 ? 'a' : 'b'} has zero variance`,
    );
  return Math.max(-1, Math.min(1, covariance / Math.sqrt(varianceA * varianceB)));
}
