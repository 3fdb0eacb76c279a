import { checkInteger, checkOutcomes } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/** A task's samples in generation order: 1/true = passed, 0/false = failed. */
export type Outcomes = ArrayLike<number | boolean>;

function checkPrefix(outcomes: Outcomes, k: number): void {
  checkOutcomes(outcomes);
  checkInteger(k, 'k', 1);
  if (k > outcomes.length)
    throw new StatisticsError(`k = ${k} exceeds the ${outcomes.length} samples of this task`);
}

/**
 * Prefix pass@k of one task: 1 if any of the first k samples (generation order) passed, else 0.
 * Monotone in k on one batch with no independence assumption (the pass@k-inversion note:
 * a success among the first j samples stays a success among the first j+1).
 *
 * @throws StatisticsError if k < 1, k exceeds the number of samples, or an outcome is not 0/1/true/false.
 * @example prefixPassAtK([0, 1, 1, 0], 2) // 1
 */
export function prefixPassAtK(outcomes: Outcomes, k: number): 0 | 1 {
  checkPrefix(outcomes, k);
  for (let i = 0; i < k; i++) if (outcomes[i]) return 1;
  return 0;
}

/**
 * Prefix all-k-correct (pass^k) of one task: 1 if all of the first k samples passed.
 * Non-increasing in k.
 *
 * @throws StatisticsError if k < 1, k exceeds the number of samples, or an outcome is not 0/1/true/false.
 * @example prefixAllCorrectAtK([1, 1, 0], 2) // 1
 */
export function prefixAllCorrectAtK(outcomes: Outcomes, k: number): 0 | 1 {
  checkPrefix(outcomes, k);
  for (let i = 0; i < k; i++) if (!outcomes[i]) return 0;
  return 1;
}
