import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantileStdlib from '@stdlib/stats-base-dists-normal-quantile';
import { checkLevel } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/** Standard normal quantile Phi^{-1}(p) (@stdlib). @throws StatisticsError if p is outside (0, 1). */
export function normalQuantile(p: number): number {
  if (typeof p !== 'number' || !(p > 0 && p < 1)) throw new StatisticsError(`p must be in (0, 1), got ${p}`);
  return normalQuantileStdlib(p, 0, 1);
}

/** Standard normal CDF Phi(x) (@stdlib). @throws StatisticsError if x is NaN or not a number. */
export function normalCdfStandard(x: number): number {
  if (typeof x !== 'number' || Number.isNaN(x)) throw new StatisticsError(`x must be a number, got ${x}`);
  return normalCdf(x, 0, 1);
}

/** Standard normal density phi(x). */
export function normalPdf(x: number): number {
  return Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
}

/** The two-sided critical value z_{1-(1-level)/2}; 1.959964 at level 0.95. */
export function twoSidedZ(level: number): number {
  checkLevel(level);
  return normalQuantile(1 - (1 - level) / 2);
}
