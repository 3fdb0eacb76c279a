import { checkFiniteValues } from './validate.ts';

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
