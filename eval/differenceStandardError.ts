import { checkFinite, checkInteger, checkProbability } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

export interface DifferenceDesign {
  /** The two reported pass@1 values. */
  a: number;
  b: number;
  tasks: number;
  /** Samples (attempts) per task and seed. */
  samples: number;
  /** Training seeds per arm, each evaluated on every task. */
  seeds: number;
  /**
   * Correlation of the two agents' per-task pass rates (pairing's gain); 0 for an unpaired
   * analysis.
   */
  correlation: number;
  /** Share of one attempt's Bernoulli variance p(1-p) that lies between tasks (intraclass correlation). */
  icc: number;
  /** SD of one arm's pass@1 across training seeds (training noise); 0 to leave it out. */
  seedSD: number;
}

/**
 * The SE of the difference of two agents' pass@1 under a design (chapter 17.4, Var(d) = (Var A +
 * Var B - 2 Cov) / N, with the attempt variance split by the intraclass correlation as in 17.3):
 *
 *   SE^2 = icc (vA + vB - 2 r sqrt(vA vB)) / N + (1 - icc)(vA + vB) / (N m S) + 2 seedSD^2 / S,
 *
 * vA = a(1-a), vB = b(1-b), N tasks, m samples, S seeds per arm, r the per-task correlation. The
 * first term is the task-level part, which neither samples nor seeds reduce; with m = S = 1 and
 * no training noise the sum is (vA + vB - 2 r icc sqrt(vA vB)) / N, and unpaired (r = 0) it is
 * the binomial sqrt(vA/N + vB/N) of the chapter's SWE-bench arithmetic.
 *
 * @throws StatisticsError on a or b outside [0, 1], counts below 1, r outside [-1, 1], icc outside [0, 1] or seedSD < 0.
 * @example differenceStandardError({ a: 0.41, b: 0.434, tasks: 500, samples: 1, seeds: 1, correlation: 0, icc: 0.5, seedSD: 0 }) // 0.0312
 */
export function differenceStandardError(design: DifferenceDesign): number {
  const { a, b, tasks, samples, seeds, correlation, icc, seedSD } = design;
  checkProbability(a, 'a');
  checkProbability(b, 'b');
  checkInteger(tasks, 'tasks', 1);
  checkInteger(samples, 'samples', 1);
  checkInteger(seeds, 'seeds', 1);
  checkFinite(correlation, 'correlation');
  if (correlation < -1 || correlation > 1)
    throw new StatisticsError(`correlation must be in [-1, 1], got ${correlation}`);
  checkProbability(icc, 'icc');
  checkFinite(seedSD, 'seedSD', { nonNegative: true });
  const [vA, vB] = [a * (1 - a), b * (1 - b)];
  const between = (icc * (vA + vB - 2 * correlation * Math.sqrt(vA * vB))) / tasks;
  const within = ((1 - icc) * (vA + vB)) / (tasks * samples * seeds);
  return Math.sqrt(Math.max(0, between) + within + (2 * seedSD ** 2) / seeds);
}
