/**
 * Where the statistics get their randomness: anything with `next()` returning a float in
 * [0, 1). The project's `Rng` (lib/rng.ts) satisfies it; tests may pass any seeded source.
 * Nothing in eval/ calls `Math.random`, so every bootstrap and simulation is reproducible
 * from the seed of the source passed in.
 */
export interface RandomSource {
  next(): number;
}

/** A uniform integer in [0, n), from one draw. */
export function randomIndex(rng: RandomSource, n: number): number {
  return Math.floor(rng.next() * n);
}
