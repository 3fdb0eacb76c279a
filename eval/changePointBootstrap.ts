import { DEFAULT_REPLICATES } from './bootstrap.ts';
import { changePoint } from './changePoint.ts';
import type { RandomSource } from './randomSource.ts';
import { sampleBinomial } from './random/sampleBeta.ts';
import { checkInteger, checkLevel, checkRandomSource, checkSuccesses, checkUnits } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * A percentile interval for the change point of success rates across checkpoints: each
 * replicate redraws every checkpoint's count from Binomial(n_t, c_t / n_t) (the parametric
 * bootstrap of each checkpoint's episodes; Efron & Tibshirani, "An Introduction to the
 * Bootstrap", 6.5) and takes the least-squares change point of the rates (`changePoint`).
 * `statistic` replaces the change point (e.g. `fallOnset`); a replicate where it is null (no
 * change) counts in `noneShare`, and the interval is over all replicates (null when the null
 * replicates reach a tail). Returns indices into the sequence; `share` is the bootstrap
 * distribution of the index.
 *
 * @throws StatisticsError on fewer than 2 checkpoints, bad counts, reps < 1, a bad level or no rng.
 * @example changePointBootstrap({ successes: [40, 41, 20, 5], trials: [64, 64, 64, 64], rng: new Rng(1) })
 */
export function changePointBootstrap({
  successes,
  trials,
  reps = DEFAULT_REPLICATES,
  level = 0.95,
  rng,
  statistic = changePoint,
}: {
  successes: readonly number[];
  trials: readonly number[];
  reps?: number;
  level?: number;
  rng: RandomSource;
  statistic?: (rates: number[]) => number | null;
}): { index: number | null; low: number | null; high: number | null; share: number[]; noneShare: number } {
  checkUnits(successes, 2, 'successes', 'a change point');
  if (trials.length !== successes.length) throw new StatisticsError('successes and trials differ in length');
  successes.forEach((c, t) => checkSuccesses(c, trials[t] as number, `successes[${t}]`));
  checkInteger(reps, 'reps', 1);
  checkLevel(level);
  checkRandomSource(rng);
  const rates = successes.map((c, t) => c / (trials[t] as number));
  const counts = new Array<number>(successes.length).fill(0);
  let none = 0;
  for (let r = 0; r < reps; r++) {
    const index = statistic(trials.map((n, t) => sampleBinomial(n, rates[t] as number, rng) / n));
    if (index === null) none += 1;
    else counts[index]! += 1;
  }
  const share = counts.map((count) => count / reps);
  const tail = (1 - level) / 2;
  // Null replicates sort last (no change is "later" than any index).
  const indexAt = (q: number) => {
    let cumulative = 0;
    for (let t = 0; t < share.length; t++) if ((cumulative += share[t] as number) >= q - 1e-12) return t;
    return null;
  };
  return {
    index: statistic(rates),
    low: indexAt(tail),
    high: indexAt(1 - tail),
    share,
    noneShare: none / reps,
  };
}
