import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantileStdlib from '@stdlib/stats-base-dists-normal-quantile';

/** Standard normal quantile Phi^{-1}(p) (@stdlib). */
export function normalQuantile(p: number): number {
  return normalQuantileStdlib(p, 0, 1);
}

/** Standard normal CDF Phi(x) (@stdlib). */
export function normalCdfStandard(x: number): number {
  return normalCdf(x, 0, 1);
}

/** Standard normal density phi(x). */
export function normalPdf(x: number): number {
  return Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
}

/** The two-sided critical value z_{1-(1-level)/2}; 1.959964 at level 0.95. */
export function twoSidedZ(level: number): number {
  return normalQuantile(1 - (1 - level) / 2);
}
