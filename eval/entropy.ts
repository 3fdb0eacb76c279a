import { checkFinite } from './validate.ts';

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
