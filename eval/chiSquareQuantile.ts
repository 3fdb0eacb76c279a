import { checkFinite } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/** log Gamma(x) for x > 0 (Lanczos, g = 7, 9 terms; Numerical Recipes 3rd ed., section 6.1): about 15 digits. */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = c[0]!;
  for (let i = 1; i < 9; i++) sum += c[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/**
 * The regularized lower incomplete gamma function P(a, x) = gamma(a, x) / Gamma(a): its series
 * for x < a + 1, else 1 minus the continued fraction of Q (Lentz's method); Numerical Recipes
 * 3rd ed., section 6.2 (`gser`, `gcf`).
 */
function lowerGammaRegularized(a: number, x: number): number {
  if (x <= 0) return 0;
  const front = Math.exp(-x + a * Math.log(x) - logGamma(a));
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 1000 && Math.abs(term) > Math.abs(sum) * 1e-16; n++) sum += term *= x / (a + n);
    return sum * front;
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    d = Math.abs(d) < tiny ? tiny : d;
    c = b + an / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return 1 - front * h;
}

/**
 * Chi-square CDF with `df` degrees of freedom: P(df / 2, x / 2), the regularized lower
 * incomplete gamma function. Same as scipy's `chi2.cdf(x, df)`.
 * @throws StatisticsError if df is not a finite number > 0 or x is not finite.
 * @example chiSquareCdf(27.488, 15) // 0.975
 */
export function chiSquareCdf(x: number, df: number): number {
  checkFinite(df, 'df', { positive: true });
  checkFinite(x, 'x');
  return lowerGammaRegularized(df / 2, x / 2);
}

/**
 * Chi-square quantile: the x with chiSquareCdf(x, df) = p, by bisection on the CDF (monotone,
 * so it cannot fail to converge) to a relative width of 1e-14, or to adjacent floats where the
 * quantile underflows (a small df at a small p). Same as scipy's
 * `chi2.ppf(p, df)` to about 12 digits.
 * @throws StatisticsError if p is outside (0, 1) or df is not a finite number > 0.
 * @example chiSquareQuantile(0.975, 15) // 27.4884
 */
export function chiSquareQuantile(p: number, df: number): number {
  if (typeof p !== 'number' || !(p > 0 && p < 1)) throw new StatisticsError(`p must be in (0, 1), got ${p}`);
  checkFinite(df, 'df', { positive: true });
  let low = 0;
  let high = Math.max(1, df);
  while (chiSquareCdf(high, df) < p) high *= 2;
  while (high - low > 1e-14 * high) {
    const middle = (low + high) / 2;
    // No float lies between them (a quantile that underflows, at a small df): done.
    if (middle === low || middle === high) break;
    if (chiSquareCdf(middle, df) < p) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}
