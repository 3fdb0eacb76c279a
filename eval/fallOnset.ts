import { changePoint } from './changePoint.ts';
import { checkUnits } from './validate.ts';

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
