/** Argument checks shared by the estimators; each throws a RangeError naming the argument. */

export function checkTrials(n: number, name = 'n'): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be a positive integer, got ${n}`);
}

export function checkSuccesses(c: number, n: number, name = 'c'): void {
  if (!Number.isInteger(c) || c < 0 || c > n) throw new RangeError(`${name} must be an integer in [0, ${n}], got ${c}`);
}

/** 1 <= k <= n, both integers. */
export function checkK(k: number, n: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  if (k > n) throw new RangeError(`k = ${k} exceeds the number of samples n = ${n}; pass@k needs 1 <= k <= n`);
}

export function checkLevel(level: number): void {
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
}

export function checkNonEmpty(values: ArrayLike<number>, name = 'values'): void {
  if (values.length === 0) throw new RangeError(`${name} is empty`);
}

export function checkSameLength(a: ArrayLike<number>, b: ArrayLike<number>): void {
  if (a.length !== b.length) throw new RangeError(`paired samples differ in length: ${a.length} vs ${b.length}`);
}
