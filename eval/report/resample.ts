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

export interface Estimate {
  estimate: number;
  low: number;
  high: number;
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
  means.sort();
  const at = (q: number) => {
    const position = q * (reps - 1);
    const below = Math.floor(position);
    const above = Math.min(below + 1, reps - 1);
    return (means[below] as number) + ((means[above] as number) - (means[below] as number)) * (position - below);
  };
  const alpha = 1 - level;
  return { estimate: total / units, low: at(alpha / 2), high: at(1 - alpha / 2) };
}
