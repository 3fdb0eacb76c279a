/** The run that took the least `seconds` (the first of equals). */
export function fastest<T>(runs: readonly T[], seconds: (run: T) => number): T {
  return runs.reduce((best, next) => (seconds(next) < seconds(best) ? next : best));
}

/**
 * `time` on one thread (no worker) and on two (`worker`), one after the other `repeats` times,
 * after `warmUps` untimed rounds of both: the fastest run of each (the machine is shared and
 * noisy, so alternating keeps a slow spell from falling on one side only).
 */
export async function fastestAlternating<T, W>(
  time: (worker?: W) => Promise<T>,
  worker: W,
  seconds: (run: T) => number,
  { repeats, warmUps = 0 }: { repeats: number; warmUps?: number },
): Promise<{ one: T; two: T }> {
  for (let i = 0; i < warmUps; i += 1) {
    await time();
    await time(worker);
  }
  const one: T[] = [];
  const two: T[] = [];
  for (let i = 0; i < repeats; i += 1) {
    one.push(await time());
    two.push(await time(worker));
  }
  return { one: fastest(one, seconds), two: fastest(two, seconds) };
}
