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
 * @throws RangeError on no tasks, a length mismatch, n_j < 1 or c_j outside [0, n_j].
 */
export function taskRates({ successes, trials }: CountsInput): Float64Array {
  if (successes.length === 0) throw new RangeError('no tasks');
  if (typeof trials !== 'number' && trials.length !== successes.length) {
    throw new RangeError(`successes has ${successes.length} tasks but trials has ${trials.length}`);
  }
  const rates = new Float64Array(successes.length);
  for (let j = 0; j < successes.length; j++) {
    const n = trialsOf(trials, j);
    const c = successes[j] as number;
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`task ${j}: trials must be a positive integer, got ${n}`);
    if (!Number.isInteger(c) || c < 0 || c > n) throw new RangeError(`task ${j}: successes must be an integer in [0, ${n}], got ${c}`);
    rates[j] = c / n;
  }
  return rates;
}
