import { checkFiniteValues, checkUnits } from './validate.ts';

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

/**
 * Where a sequence that rises and then falls starts to fall: the least-squares change point
 * (`changePoint`, Hinkley 1970) of the sequence from its peak on, so that an early rise is not
 * taken for the change. The index of the first value of the low segment; null when the peak is
 * the last value (no fall). The first peak wins a tie.
 *
 * @throws StatisticsError on an empty sequence or a value that is not finite.
 * @example fallOnset([0.2, 0.6, 0.7, 0.65, 0.1, 0.05]) // 4
 */
export function fallOnset(values: ArrayLike<number>): number | null {
  checkUnits(values, 1, 'values', 'a fall');
  let peak = 0;
  for (let i = 1; i < values.length; i++) if ((values[i] as number) > (values[peak] as number)) peak = i;
  if (peak === values.length - 1) return null;
  return peak + changePoint(Array.prototype.slice.call(values, peak) as number[]);
}

/**
 * The falls of a trajectory (a task's success rate at successive checkpoints): every maximal
 * run of decreases, from the value where it starts (a local peak) to its lowest value (the next
 * local trough), as index pairs `{ from, to }`. A run goes on through equal values and ends
 * where the values rise again; `to` is the first index of its minimum. Every dip is returned,
 * however small: whether it is more than noise is for a test on the counts behind the values
 * (a paired test when the checkpoints played the same episodes, Fisher's exact test otherwise),
 * corrected for the number of falls tested (`holmAdjust`).
 * @throws StatisticsError on no values or a value that is not finite.
 * @example trajectoryFalls([0.1, 0.6, 0.1, 0.1, 0.6, 0.3]) // [{ from: 1, to: 2 }, { from: 4, to: 5 }]
 */
export function trajectoryFalls(values: ArrayLike<number>): Array<{ from: number; to: number }> {
  checkFiniteValues(values);
  const falls: Array<{ from: number; to: number }> = [];
  let i = 0;
  while (i < values.length - 1) {
    if ((values[i + 1] as number) >= (values[i] as number)) {
      i += 1;
      continue;
    }
    let to = i + 1;
    let end = to;
    while (end + 1 < values.length && (values[end + 1] as number) <= (values[end] as number)) {
      end += 1;
      if ((values[end] as number) < (values[to] as number)) to = end;
    }
    falls.push({ from: i, to });
    i = end;
  }
  return falls;
}
