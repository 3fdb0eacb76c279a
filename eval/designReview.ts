import { normalQuantile } from './normal.ts';
import { checkInteger, checkProbability, checkFinite } from './validate.ts';
import { expectedMaxNormal } from './winnersCurse.ts';
import { StatisticsError } from '../lib/errors.ts';

export interface DesignReviewOptions extends Omit<DifferenceDesign, 'correlation'> {
  /** The per-task correlation of the two agents; null: a table over `CORRELATIONS`. */
  correlation: number | null;
  /** The checkpoint was the best of this many by the reported metric (1: no selection). */
  selectedFrom: number;
  alpha?: number;
  power?: number;
}

/** The correlations a review tabulates when none is given (17.4 measured 0.97 between two checkpoints of one run). */
export const CORRELATIONS = [0, 0.25, 0.5, 0.7, 0.8, 0.9, 0.95];
const MAX_SAMPLES = 10_000;
const MAX_SEEDS = 1_000;

/** The smallest count in [1, max] whose SE reaches `target`, or null when even `max` does not (the task-level floor). */
function smallest(max: number, se: (count: number) => number, target: number): number | null {
  if (se(max) > target) return null;
  let [low, high] = [1, max];
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (se(mid) <= target) high = mid;
    else low = mid + 1;
  }
  return low;
}

/**
 * The arithmetic of a design review of a reported improvement (chapter 17, exercise 7): the SE of
 * each arm and of the difference, unpaired and paired (`differenceStandardError`), the z of the
 * difference, the expected selection inflation sigma E[max of K] of reporting the best of K
 * checkpoints (17.8), and the samples per task and seeds per arm at which SE <= delta /
 * (z_{1-a/2} + z_{power}) (the requiredUnits bound), null past 10,000 samples or 1,000 seeds.
 * @example designReview({ a: 0.41, b: 0.434, tasks: 500, samples: 1, seeds: 1, selectedFrom: 5, correlation: null, icc: 0.5, seedSD: 0.01 })
 */
export function designReview(options: DesignReviewOptions) {
  const { a, b, tasks, samples, selectedFrom, correlation, alpha = 0.05, power = 0.8 } = options;
  checkInteger(selectedFrom, 'selectedFrom', 1);
  const checkOpen = (value: number, name: string) => {
    checkProbability(value, name);
    if (value === 0 || value === 1) throw new StatisticsError(`${name} must be in (0, 1), got ${value}`);
  };
  checkOpen(alpha, 'alpha');
  checkOpen(power, 'power');
  const delta = b - a;
  const design = { ...options, correlation: 0 };
  const se = (over: Partial<DifferenceDesign>) => differenceStandardError({ ...design, ...over });
  const armSE = (p: number) => se({ a: p, b: p, correlation: 0 }) / Math.SQRT2;
  const target = Math.abs(delta) / (normalQuantile(1 - alpha / 2) + normalQuantile(power));
  const row = (r: number) => {
    const pairedSE = se({ correlation: r });
    return {
      correlation: r,
      pairedSE,
      z: pairedSE > 0 ? delta / pairedSE : null,
      samplesNeeded: smallest(MAX_SAMPLES, (m) => se({ correlation: r, samples: m }), target),
      seedsNeeded: smallest(MAX_SEEDS, (s) => se({ correlation: r, seeds: s }), target),
      // What no number of samples or seeds removes: the task-level part of the variance.
      floorSE: se({ correlation: r, samples: Number.MAX_SAFE_INTEGER, seeds: Number.MAX_SAFE_INTEGER }),
    };
  };
  const unpairedSE = se({});
  const evaluationSD = Math.sqrt((b * (1 - b)) / (tasks * samples));
  const expectedMax = expectedMaxNormal(selectedFrom);
  return {
    delta,
    seA: armSE(a),
    seB: armSE(b),
    unpaired: { se: unpairedSE, z: unpairedSE > 0 ? delta / unpairedSE : null },
    targetSE: target,
    paired: (correlation === null ? CORRELATIONS : [correlation]).map(row),
    selection: {
      selectedFrom,
      evaluationSD,
      expectedMax,
      // The best of K equally good checkpoints scores sigma E[max of K] above them on average (17.8).
      inflation: selectedFrom > 1 ? evaluationSD * expectedMax : 0,
    },
  };
}

export interface DifferenceDesign {
  /** The two reported pass@1 values. */
  a: number;
  b: number;
  /** Tasks, samples (attempts) per task and seed, training seeds per arm. */
  tasks: number;
  samples: number;
  seeds: number;
  /** Correlation of the two agents' per-task pass rates (pairing's gain); 0 for an unpaired analysis. */
  correlation: number;
  /** Share of one attempt's Bernoulli variance p(1-p) that lies between tasks (intraclass correlation). */
  icc: number;
  /** SD of one arm's pass@1 across training seeds (training noise); 0 to leave it out. */
  seedSD: number;
}

/**
 * The SE of the difference of two agents' pass@1 under a design (chapter 17.4, the attempt
 * variance split by the intraclass correlation as in 17.3):
 *
 *   SE^2 = icc (vA + vB - 2 r sqrt(vA vB)) / N + (1 - icc)(vA + vB) / (N m S) + 2 seedSD^2 / S,
 *
 * vA = a(1-a), vB = b(1-b), N tasks, m samples, S seeds per arm, r the per-task correlation. The
 * first term, the task-level part, neither samples nor seeds reduce; unpaired with m = S = 1 and
 * no training noise it is the binomial sqrt(vA/N + vB/N) of the chapter's SWE-bench arithmetic.
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
