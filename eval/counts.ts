import { checkSuccesses, checkTrials } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/** Per-task success counts c_j and trial counts n_j (a number when every task has the same n). */
export interface CountsInput {
  successes: ArrayLike<number>;
  trials: ArrayLike<number> | number;
}

/** n_j of task j. */
export function trialsOf(trials: ArrayLike<number> | number, j: number): number {
  return typeof trials === 'number' ? trials : (trials[j] as number);
}

/**
 * Validates counts and returns the per-task pass rates c_j / n_j.
 * @throws StatisticsError on no tasks, a length mismatch, n_j not a positive safe integer or c_j not
 *   an integer in [0, n_j].
 * @example taskRates({ successes: [3, 0], trials: 4 }) // [0.75, 0]
 */
export function taskRates(counts: CountsInput): Float64Array {
  if (typeof counts !== 'object' || counts === null)
    throw new StatisticsError('counts must be { successes, trials }');
  const { successes, trials } = counts;
  if (successes === null || typeof successes !== 'object' || typeof successes.length !== 'number')
    throw new StatisticsError('successes must be an array of counts');
  if (successes.length === 0) throw new StatisticsError('successes is empty: no tasks');
  if (
    typeof trials !== 'number' &&
    (trials === null || typeof trials !== 'object' || trials.length !== successes.length)
  ) {
    throw new StatisticsError(
      `trials must be a number or an array as long as successes (${successes.length} tasks)`,
    );
  }
  const rates = new Float64Array(successes.length);
  for (let j = 0; j < successes.length; j++) {
    const n = trialsOf(trials, j);
    const c = successes[j] as number;
    checkTrials(n, typeof trials === 'number' ? 'trials' : `trials[${j}]`);
    checkSuccesses(c, n, `successes[${j}]`);
    rates[j] = c / n;
  }
  return rates;
}

/** Total episodes M = sum n_j and successes S = sum c_j of validated counts. */
export function pooledCounts(counts: CountsInput): { episodes: number; successes: number } {
  let episodes = 0;
  let successes = 0;
  for (let j = 0; j < counts.successes.length; j++) {
    episodes += trialsOf(counts.trials, j);
    successes += counts.successes[j] as number;
  }
  if (!Number.isSafeInteger(episodes))
    throw new StatisticsError(`the total number of episodes (${episodes}) exceeds 2^53 - 1`);
  return { episodes, successes };
}
