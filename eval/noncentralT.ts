import betaCdf from '@stdlib/stats-base-dists-beta-cdf';
import { normalCdfStandard } from './normal.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * The noncentral t distribution's CDF, P(T <= t) for T = (Z + delta) / sqrt(V / df), Z standard
 * normal and V chi-square(df) (Lenth 1989, Applied Statistics algorithm AS 243): for t >= 0, with
 * x = t^2 / (t^2 + df) and lambda = delta^2 / 2,
 *
 *   F(t) = Phi(-delta) + 1/2 sum_j [ p_j I_x(j + 1/2, df/2) + q_j I_x(j + 1, df/2) ],
 *   p_j = e^-lambda lambda^j / j!,  q_j = delta e^-lambda lambda^j / (sqrt 2 Gamma(j + 3/2)),
 *
 * and F(t; df, delta) = 1 - F(-t; df, -delta) for t < 0. The series is summed until its Poisson
 * weights are spent (below 1e-15). Same as scipy's `stats.nct.cdf(t, df, delta)`.
 * @throws StatisticsError when df is not > 0, t or delta not finite, or |delta| > 37 (e^-lambda
 *   underflows).
 * @example noncentralTCdf(2, 10, 1) // 0.8161 (scipy: stats.nct.cdf(2, 10, 1))
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

/**
 * The power of a two-sided t test whose statistic is noncentral t with `df` degrees of freedom and
 * noncentrality `delta`, rejecting beyond +-`critical`: P(T > c) + P(T < -c).
 * @example twoSidedTPower(28, 2.5, 2.048) // 0.679
 */
export function twoSidedTPower(df: number, delta: number, critical: number): number {
  return 1 - noncentralTCdf(critical, df, delta) + noncentralTCdf(-critical, df, delta);
}
