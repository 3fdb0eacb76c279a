import { checkUnits } from './validate.ts';

/**
 * The single change point of a sequence by least squares (Hinkley 1970, "Inference about the
 * change-point in a sequence of random variables"): the index t in [1, m-1] that minimises the
 * squared error of a mean before t and a mean from t on. Ties go to the earliest t. It returns
 * the first index of the second segment: for success counts by checkpoint, the first checkpoint
 * of the new level.
 *
 * @throws StatisticsError on fewer than 2 values or a value that is not finite.
 * @example changePoint([10, 11, 10, 3, 2]) // 3
 */
export function changePoint(values: ArrayLike<number>): number {
  checkUnits(values, 2, 'values', 'a change point');
  const m = values.length;
  let best = 1;
  let bestCost = Infinity;
  for (let t = 1; t < m; t++) {
    let cost = 0;
    for (const [from, to] of [
      [0, t],
      [t, m],
    ] as const) {
      let sum = 0;
      for (let i = from; i < to; i++) sum += values[i] as number;
      const segmentMean = sum / (to - from);
      for (let i = from; i < to; i++) cost += ((values[i] as number) - segmentMean) ** 2;
    }
    if (cost < bestCost - 1e-12) [best, bestCost] = [t, cost];
  }
  return best;
}
