import { percentileOfSorted } from '../bootstrap.ts';
import { randomIndex, type RandomSource } from '../randomSource.ts';

/**
 * One shared set of task-level resamples (reps x units indices), so that every metric of a report
 * is bootstrapped over the same resampled task sets and their intervals stay mutually coherent.
 */
export function resampleIndices(units: number, reps: number, rng: RandomSource): Int32Array {
  const indices = new Int32Array(units * reps);
  for (let i = 0; i < indices.length; i++) indices[i] = randomIndex(rng, units);
  return indices;
}

/** A number with its interval; low and high are null where no interval exists (fewer than 2 units). */
export interface Estimate {
  estimate: number;
  low: number | null;
  high: number | null;
}

/** Type-7 quantiles a/2 and 1 - a/2 of replicate statistics (sorted in place). */
function percentileInterval(replicates: Float64Array, level: number): { low: number; high: number } {
  replicates.sort();
  const alpha = 1 - level;
  return {
    low: percentileOfSorted(replicates, alpha / 2),
    high: percentileOfSorted(replicates, 1 - alpha / 2),
  };
}

/** Percentile interval of the mean of `values` over the resamples in `indices`. */
export function resampledInterval(values: ArrayLike<number>, indices: Int32Array, level: number): Estimate {
  const units = values.length;
  const reps = indices.length / units;
  const means = new Float64Array(reps);
  let total = 0;
  for (let j = 0; j < units; j++) total += values[j] as number;
  for (let r = 0; r < reps; r++) {
    let sum = 0;
    const offset = r * units;
    for (let i = 0; i < units; i++) sum += values[indices[offset + i] as number] as number;
    means[r] = sum / units;
  }
  return { estimate: total / units, ...percentileInterval(means, level) };
}

/**
 * Percentile interval of the ratio sum(numerators) / sum(denominators) over the same resampled
 * tasks: the pooled share S / M with tasks as the resampled unit (a cluster bootstrap of a
 * ratio estimator; Field & Welsh 2007).
 */
export function resampledRatioInterval(
  numerators: ArrayLike<number>,
  denominators: ArrayLike<number>,
  indices: Int32Array,
  level: number,
): Estimate {
  const units = numerators.length;
  const reps = indices.length / units;
  const ratios = new Float64Array(reps);
  let top = 0;
  let bottom = 0;
  for (let j = 0; j < units; j++) {
    top += numerators[j] as number;
    bottom += denominators[j] as number;
  }
  for (let r = 0; r < reps; r++) {
    let sumTop = 0;
    let sumBottom = 0;
    const offset = r * units;
    for (let i = 0; i < units; i++) {
      const j = indices[offset + i] as number;
      sumTop += numerators[j] as number;
      sumBottom += denominators[j] as number;
    }
    ratios[r] = sumTop / sumBottom;
  }
  return { estimate: top / bottom, ...percentileInterval(ratios, level) };
}
