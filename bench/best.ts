/** A suite's figures, as `npm run bench` writes them under `figures.<suite>`. */
export type Figures = Record<string, number | string | Record<string, number | string>>;

/** What `f` returns and how long it took. */
export function timed<T>(f: () => T): { value: T; ms: number; seconds: number } {
  const started = performance.now();
  const value = f();
  const ms = performance.now() - started;
  return { value, ms, seconds: ms / 1000 };
}

/** What `f` resolves to and how long it took. */
export async function timedAsync<T>(f: () => Promise<T>): Promise<{ value: T; ms: number; seconds: number }> {
  const started = performance.now();
  const value = await f();
  const ms = performance.now() - started;
  return { value, ms, seconds: ms / 1000 };
}

/** The run that took the least `seconds` (the first of equals). */
export function fastest<T>(runs: readonly T[], seconds: (run: T) => number): T {
  return runs.reduce((best, next) => (seconds(next) < seconds(best) ? next : best));
}

/** The least of `repeats` runs of `time`, one after another. */
export async function leastOf(repeats: number, time: () => Promise<number> | number): Promise<number> {
  let least = Infinity;
  for (let i = 0; i < repeats; i += 1) least = Math.min(least, await time());
  return least;
}

/**
 * Each of `variants` in turn, `repeats` rounds after `warmUps` untimed ones: the fastest run of
 * each (taking turns keeps a slow spell of a shared machine from falling on one side only).
 */
export async function fastestInTurn<T>(
  variants: ReadonlyArray<() => Promise<T>>,
  seconds: (run: T) => number,
  { repeats, warmUps = 0 }: { repeats: number; warmUps?: number },
): Promise<T[]> {
  for (let i = 0; i < warmUps; i += 1) for (const variant of variants) await variant();
  const runs: T[][] = variants.map(() => []);
  for (let i = 0; i < repeats; i += 1)
    for (const [v, variant] of variants.entries()) runs[v]!.push(await variant());
  return runs.map((each) => fastest(each, seconds));
}

/** `time` on one thread (no worker) and on two (`worker`), in turn (`fastestInTurn`). */
export async function fastestAlternating<T, W>(
  time: (worker?: W) => Promise<T>,
  worker: W,
  seconds: (run: T) => number,
  options: { repeats: number; warmUps?: number },
): Promise<{ one: T; two: T }> {
  const [one, two] = await fastestInTurn([() => time(), () => time(worker)], seconds, options);
  return { one: one!, two: two! };
}
