import { checkFinite, checkInteger, checkProbability, checkRandomSource } from './validate.ts';

/**
 * Where the statistics get their randomness: anything with `next()` in [0, 1), such as lib/rng.ts's
 * `Rng`. Nothing in eval/ calls `Math.random`, so every result is reproducible from the seed.
 */
export type RandomSource = { next(): number };

/** A uniform integer in [0, n), from one draw. */
export function randomIndex(rng: RandomSource, n: number): number {
  return Math.floor(rng.next() * n);
}

/** A uniform draw in (0, 1): 0 is drawn again. */
function positiveUniform(rng: RandomSource): number {
  let u = 0;
  while (u === 0) u = rng.next();
  return u;
}

/** A standard normal draw (Box-Muller). */
export function sampleStandardNormal(rng: RandomSource): number {
  checkRandomSource(rng);
  return Math.sqrt(-2 * Math.log(positiveUniform(rng))) * Math.cos(2 * Math.PI * rng.next());
}

/**
 * A Gamma(shape, 1) draw by Marsaglia & Tsang (2000), "A simple method for generating gamma
 * variables"; shape < 1 uses Gamma(shape + 1) * U^{1/shape} (their section 6).
 */
export function sampleGamma(shape: number, rng: RandomSource): number {
  checkFinite(shape, 'shape', { positive: true });
  checkRandomSource(rng);
  if (shape < 1) {
    const u = positiveUniform(rng);
    return sampleGamma(shape + 1, rng) * u ** (1 / shape);
  }
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = sampleStandardNormal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rng.next();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** A Beta(a, b) draw as X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b). */
export function sampleBeta(a: number, b: number, rng: RandomSource): number {
  checkFinite(a, 'a', { positive: true });
  checkFinite(b, 'b', { positive: true });
  const x = sampleGamma(a, rng);
  const y = sampleGamma(b, rng);
  return x + y === 0 ? (rng.next() < a / (a + b) ? 1 : 0) : x / (x + y);
}

/** A Binomial(n, p) draw as the sum of n Bernoulli(p) draws: exact, O(n), for the simulations' small n. */
export function sampleBinomial(n: number, p: number, rng: RandomSource): number {
  checkInteger(n, 'n');
  checkProbability(p, 'p');
  checkRandomSource(rng);
  let successes = 0;
  for (let i = 0; i < n; i++) if (rng.next() < p) successes++;
  return successes;
}
