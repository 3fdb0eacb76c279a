import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import betaCdf from '@stdlib/stats-base-dists-beta-cdf';
import { normalQuantile, normalCdfStandard } from './normal.ts';
import { checkFinite } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/** A sample size beyond what the power functions count: the difference is too small for its SD. */
export class BeyondCountError extends StatisticsError {}

export type PowerDesign = 'paired' | 'unpaired' | 'seeds';

export interface RequiredUnitsOptions {
  /** Per-unit SD: of the paired differences (paired), of one group's units (unpaired, seeds). */
  sigma: number;
  /** The difference to detect, in the same units (e.g. 0.05 for 5 points). */
  delta: number;
  /** Two-sided level, default 0.05; power in [0.5, 1), default 0.8; design, default 'paired'. */
  alpha?: number;
  power?: number;
  design?: PowerDesign;
}

/**
 * Units needed to detect a mean difference delta with a two-sided z test (chapter 17.4),
 * N >= ((z_{1-a/2} + z_{1-b}) sigma_d / delta)^2, sigma_d = sigma for paired differences and
 * sqrt(2) sigma for two independent groups ('unpaired' tasks, 'seeds' of two recipes; N per group).
 * The formula drops the test's other tail, which matters at low power, and below power a/2 it
 * rises again as the power falls: power is accepted in [0.5, 1) only.
 * @throws BeyondCountError for an N above 2^53 - 1.
 */
export function requiredUnits({
  sigma,
  delta,
  alpha = 0.05,
  power = 0.8,
  design = 'paired',
}: RequiredUnitsOptions) {
  checkFinite(sigma, 'sigma', { nonNegative: true });
  checkFinite(delta, 'delta', { positive: true });
  if (typeof alpha !== 'number' || !(alpha > 0 && alpha < 1))
    throw new StatisticsError(`alpha must be in (0, 1), got ${alpha}`);
  if (typeof power !== 'number' || !(power >= 0.5 && power < 1))
    throw new StatisticsError(
      `power must be in [0.5, 1), got ${power} (below 0.5 the normal-approximation formula drops a tail that matters, and below alpha/2 it is not monotone)`,
    );
  if (design !== 'paired' && design !== 'unpaired' && design !== 'seeds')
    throw new StatisticsError(`unknown design '${String(design)}'`);
  const zAlpha = normalQuantile(1 - alpha / 2);
  const zPower = normalQuantile(power);
  const sigmaDifference = design === 'paired' ? sigma : Math.SQRT2 * sigma;
  const exact = (((zAlpha + zPower) * sigmaDifference) / delta) ** 2;
  if (!(exact <= Number.MAX_SAFE_INTEGER))
    throw new BeyondCountError(
      `N = ((z + z) sigma / delta)^2 = ${exact} exceeds 2^53 - 1: delta is too small for this sigma`,
    );
  // A float such as 16.000000000000004 is 16 units, not 17; `exact` is the unrounded N, per group unless paired.
  const units = Math.max(1, Math.ceil(exact - 1e-9));
  return { units, perGroup: design !== 'paired', exact, zAlpha, zPower, design };
}

export interface RequiredSeedsOptions {
  /** SD of one seed's score under recipe A, and under B (default sdA). */
  sdA: number;
  sdB?: number;
  /** The difference of the two recipes' means to detect. */
  delta: number;
  /** Two-sided level, default 0.05; power in (alpha, 1), default 0.8. */
  alpha?: number;
  power?: number;
  /**
   * 'equal' (default): Student's two-sample t test, sigma^2 = (sdA^2 + sdB^2) / 2, df 2n - 2;
   * 'unequal': Welch's test, df from Welch-Satterthwaite at n seeds each.
   */
  variances?: 'equal' | 'unequal';
}

/**
 * Seeds per recipe (equal groups of n) for a two-sided t test of two recipes' means to reach a
 * power, from the test's exact power (chapter 17.4): the statistic is noncentral t with
 * noncentrality delta / sqrt((sdA^2 + sdB^2) / n), and n is the smallest with
 * P(|T| > t_{1-alpha/2, df}) >= power. Equal variances: df = 2n - 2 (statsmodels
 * `TTestIndPower().solve_power`, rounded up); unequal: Welch-Satterthwaite's df at the planned n.
 * @throws BeyondCountError for n above 10^7.
 * @example requiredSeeds({ sdA: 0.1, delta: 0.1 }) // 17 (statsmodels: 16.71)
 */
export function requiredSeeds({
  sdA,
  sdB = sdA,
  delta,
  alpha = 0.05,
  power = 0.8,
  variances = 'equal',
}: RequiredSeedsOptions): number {
  checkFinite(sdA, 'sdA', { positive: true });
  checkFinite(sdB, 'sdB', { positive: true });
  checkFinite(delta, 'delta', { positive: true });
  if (!(alpha > 0 && alpha < 1)) throw new StatisticsError(`alpha must be in (0, 1), got ${alpha}`);
  if (!(power > alpha && power < 1)) throw new StatisticsError(`power must be in (alpha, 1), got ${power}`);
  const [va, vb] = [sdA * sdA, sdB * sdB];
  const powerAt = (n: number) => {
    const df = variances === 'equal' ? 2 * n - 2 : ((va + vb) ** 2 * (n - 1)) / (va * va + vb * vb);
    const noncentrality = delta / Math.sqrt((va + vb) / n);
    return twoSidedTPower(df, Math.min(noncentrality, 37), tQuantile(1 - alpha / 2, df));
  };
  // Power rises with n: double until it is reached, then bisect.
  let [low, high] = [1, 2];
  while (powerAt(high) < power) {
    [low, high] = [high, high * 2];
    if (high > 1e7)
      throw new BeyondCountError(`more than 10^7 seeds per recipe are needed to detect ${delta}`);
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (powerAt(middle) >= power) high = middle;
    else low = middle;
  }
  return high;
}

/**
 * The noncentral t CDF (Lenth 1989, algorithm AS 243): for t >= 0, with x = t^2 / (t^2 + df) and
 * lambda = delta^2 / 2,
 *
 *   F(t) = Phi(-delta) + 1/2 sum_j [ p_j I_x(j + 1/2, df/2) + q_j I_x(j + 1, df/2) ],
 *   p_j = e^-lambda lambda^j / j!,  q_j = delta e^-lambda lambda^j / (sqrt 2 Gamma(j + 3/2)),
 *
 * and F(t; df, delta) = 1 - F(-t; df, -delta) for t < 0, summed until the Poisson weights are
 * spent; scipy's `stats.nct.cdf(t, df, delta)`. |delta| is at most 37, where e^-lambda underflows.
 */
export function noncentralTCdf(t: number, df: number, delta: number): number {
  if (!(df > 0)) throw new StatisticsError(`noncentralTCdf: df must be > 0, got ${df}`);
  if (!Number.isFinite(t) || !Number.isFinite(delta))
    throw new StatisticsError(`noncentralTCdf: t and delta must be finite, got ${t} and ${delta}`);
  if (Math.abs(delta) > 37) throw new StatisticsError(`noncentralTCdf: |delta| must be <= 37, got ${delta}`);
  if (t < 0) return 1 - noncentralTCdf(-t, df, -delta);
  const x = (t * t) / (t * t + df);
  const lambda = (delta * delta) / 2;
  let p = Math.exp(-lambda);
  let q = ((delta * Math.exp(-lambda)) / Math.SQRT2) * (2 / Math.sqrt(Math.PI));
  let sum = 0;
  let spent = 0;
  for (let j = 0; j < 10_000 && (j <= lambda || 1 - spent > 1e-15); j++) {
    sum += p * betaCdf(x, j + 0.5, df / 2) + q * betaCdf(x, j + 1, df / 2);
    spent += p;
    p *= lambda / (j + 1);
    q *= lambda / (j + 1.5);
  }
  return Math.min(1, Math.max(0, normalCdfStandard(-delta) + sum / 2));
}

/** The power P(T > c) + P(T < -c) of a two-sided t test whose statistic is noncentral t(df, delta). */
export function twoSidedTPower(df: number, delta: number, critical: number): number {
  return 1 - noncentralTCdf(critical, df, delta) + noncentralTCdf(-critical, df, delta);
}
