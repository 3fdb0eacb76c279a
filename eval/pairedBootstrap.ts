import { bootstrapCI, type BootstrapInterval, type BootstrapOptions } from './bootstrap.ts';
import { differences } from './paired.ts';

/**
 * Paired bootstrap of the difference between two systems on the same units (tasks): each
 * replicate resamples the same units for both, so the shared task difficulty cancels; this is
 * `bootstrapCI` of the per-unit differences b_j - a_j (Efron & Tibshirani 1993, ch. 16;
 * chapter 17.4). Positive means B is higher.
 *
 * @throws StatisticsError on fewer than 2 pairs, different lengths, a value that is not finite, or
 *   bad options (see bootstrapCI).
 * @example pairedBootstrapDiff([0.5, 0.9], [0.6, 1.0], { rng: new Rng(1) }) // estimate 0.1
 */
export function pairedBootstrapDiff(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  options: BootstrapOptions,
): BootstrapInterval {
  return bootstrapCI(differences(a, b), options);
}
