import { normalQuantile } from './normal.ts';
import { checkFinite } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

export type PowerDesign = 'paired' | 'unpaired' | 'seeds';

export interface RequiredUnitsOptions {
  /** Per-unit SD: of the paired differences (paired), of one group's units (unpaired, seeds). */
  sigma: number;
  /** The difference to detect, in the same units (e.g. 0.05 for 5 points). */
  delta: number;
  /** Two-sided significance level; default 0.05. */
  alpha?: number;
  /** Power 1 - beta in [0.5, 1); default 0.8. */
  power?: number;
  /** 'paired' (default): N paired differences; 'unpaired' or 'seeds': independent groups, N per group. */
  design?: PowerDesign;
}

export interface RequiredUnits {
  /** Units needed (per group for unpaired and seeds), rounded up, at least 1. */
  units: number;
  perGroup: boolean;
  /** The unrounded N. */
  exact: number;
  zAlpha: number;
  zPower: number;
  design: PowerDesign;
}

/**
 * Units needed to detect a mean difference delta with a two-sided z test (chapter 17.4):
 *
 *   N >= ((z_{1-a/2} + z_{1-b}) sigma_d / delta)^2,
 *
 * where sigma_d = sigma for paired differences and sqrt(2) sigma for the difference of two
 * independent group means ('unpaired' tasks, or 'seeds' of two recipes), N then per group.
 *
 * The formula keeps one tail of the two-sided test; the other adds Phi(-z_{1-a/2} - sqrt(N) delta
 * / sigma_d), negligible at the powers one designs for but not at low power, and below power
 * a/2 the sum z_{1-a/2} + z_{1-b} turns negative and squaring it makes N rise again as the power
 * falls. Power is therefore accepted in [0.5, 1) only.
 *
 * @throws StatisticsError if sigma is not a finite number >= 0, delta not finite and > 0, alpha
 *   outside (0, 1), power outside [0.5, 1), an unknown design, or an N above 2^53 - 1.
 * @example requiredUnits({ sigma: 0.0725, delta: 0.02 }).units // 104 (the book: about 103)
 */
export function requiredUnits({
  sigma,
  delta,
  alpha = 0.05,
  power = 0.8,
  design = 'paired',
}: RequiredUnitsOptions): RequiredUnits {
  checkFinite(sigma, 'sigma', { nonNegative: true });
  checkFinite(delta, 'delta', { positive: true });
  if (typeof alpha !== 'number' || !(alpha > 0 && alpha < 1))
    throw new StatisticsError(`alpha must be in (0, 1), got ${alpha}`);
  if (typeof power !== 'number' || !(power >= 0.5 && power < 1)) {
    throw new StatisticsError(
      `power must be in [0.5, 1), got ${power} (below 0.5 the normal-approximation formula drops a tail that matters, and below alpha/2 it is not monotone)`,
    );
  }
  if (design !== 'paired' && design !== 'unpaired' && design !== 'seeds')
    throw new StatisticsError(`unknown design '${String(design)}'`);
  const zAlpha = normalQuantile(1 - alpha / 2);
  const zPower = normalQuantile(power);
  const sigmaDifference = design === 'paired' ? sigma : Math.SQRT2 * sigma;
  const exact = (((zAlpha + zPower) * sigmaDifference) / delta) ** 2;
  if (!(exact <= Number.MAX_SAFE_INTEGER))
    throw new StatisticsError(
      `N = ((z + z) sigma / delta)^2 = ${exact} exceeds 2^53 - 1: delta is too small for this sigma`,
    );
  // A float such as 16.000000000000004 is 16 units, not 17.
  const units = Math.max(1, Math.ceil(exact - 1e-9));
  return { units, perGroup: design !== 'paired', exact, zAlpha, zPower, design };
}
