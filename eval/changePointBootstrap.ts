import { changePoint } from './changePoint.ts';
import type { RandomSource } from './randomSource.ts';
import { sampleBinomial } from './random/sampleBinomial.ts';
import { checkInteger, checkLevel, checkRandomSource, checkSuccesses, checkUnits } from './validate.ts';

/**
 * A percentile interval for the change point of success rates across checkpoints: each
 * replicate redraws every checkpoint's count from Binomial(n_t, c_t / n_t) (the parametric
 * bootstrap of each checkpoint's episodes; Efron & Tibshirani, "An Introduction to the
 * Bootstrap", 6.5) and takes the least-squares change point of the rates (`changePoint`).
 * Returns indices into the sequence; `share` is the bootstrap distribution of the index.
 *
 * @throws RangeError on fewer than 2 checkpoints, bad counts, reps < 1, a bad level or no rng.
 * @example changePointBootstrap({ successes: [40, 41, 20, 5], trials: [64, 64, 64, 64], rng: new Rng(1) })
 */
export function changePointBootstrap({
  successes,
  trials,
  reps = 2000,
  level = 0.95,
  rng,
}: {
  successes: readonly number[];
  trials: readonly number[];
  reps?: number;
  level?: number;
  rng: RandomSource;
}): { index: number; low: number; high: number; share: number[] } {
  checkUnits(successes, 2, 'successes', 'a change point');
  if (trials.length !== successes.length) throw new RangeError('successes and trials differ in length');
  successes.forEach((c, t) => checkSuccesses(c, trials[t] as number, `successes[${t}]`));
  checkInteger(reps, 'reps', 1);
  checkLevel(level);
  checkRandomSource(rng);
  const rates = successes.map((c, t) => c / (trials[t] as number));
  const counts = new Array<number>(successes.length).fill(0);
  for (let r = 0; r < reps; r++) {
    const redrawn = trials.map((n, t) => sampleBinomial(n, rates[t] as number, rng) / n);
    counts[changePoint(redrawn)]! += 1;
  }
  const share = counts.map((count) => count / reps);
  const tail = (1 - level) / 2;
  const indexAt = (q: number) => {
    let cumulative = 0;
    for (let t = 0; t < share.length; t++) if ((cumulative += share[t] as number) >= q - 1e-12) return t;
    return share.length - 1;
  };
  return { index: changePoint(rates), low: indexAt(tail), high: indexAt(1 - tail), share };
}
