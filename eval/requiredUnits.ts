import { normalQuantile } from './normal.ts';

export type PowerDesign = 'paired' | 'unpaired' | 'seeds';

export interface RequiredUnitsOptions {
  /** Per-unit SD: of the paired differences (paired), of one group's units (unpaired, seeds). */
  sigma: number;
  /** The difference to detect, in the same units (e.g. 0.05 for 5 points). */
  delta: number;
  /** Two-sided significance level; default 0.05. */
  alpha?: number;
  /** Power 1 - beta; default 0.8. */
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
 * @throws RangeError if sigma < 0, delta <= 0, alpha or power outside (0, 1).
 * @example requiredUnits({ sigma: 0.0725, delta: 0.02 }).units // 104 (the book: about 103)
 */
export function requiredUnits({ sigma, delta, alpha = 0.05, power = 0.8, design = 'paired' }: RequiredUnitsOptions): RequiredUnits {
  if (!(sigma >= 0) || !Number.isFinite(sigma)) throw new RangeError(`sigma must be a finite number >= 0, got ${sigma}`);
  if (!(delta > 0) || !Number.isFinite(delta)) throw new RangeError(`delta must be a finite number > 0, got ${delta}`);
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  if (!(power > 0 && power < 1)) throw new RangeError(`power must be in (0, 1), got ${power}`);
  if (design !== 'paired' && design !== 'unpaired' && design !== 'seeds') throw new RangeError(`unknown design '${String(design)}'`);
  const zAlpha = normalQuantile(1 - alpha / 2);
  const zPower = normalQuantile(power);
  const sigmaDifference = design === 'paired' ? sigma : Math.SQRT2 * sigma;
  const exact = ((zAlpha + zPower) * sigmaDifference / delta) ** 2;
  // A float such as 16.000000000000004 is 16 units, not 17.
  const units = Math.max(1, Math.ceil(exact - 1e-9));
  return { units, perGroup: design !== 'paired', exact, zAlpha, zPower, design };
}
