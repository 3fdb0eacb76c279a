/** Up to this many factors the product is formed directly. */
export const DIRECT_FACTORS = 100_000;
/** The series past DIRECT_FACTORS stops after this many terms at the latest. */
export const MAX_SERIES_TERMS = 99;

export interface NoneDrawn {
  /** C(n - marked, draws) / C(n, draws). */
  probability: number;
  /** 1 - probability, computed without cancellation. */
  complement: number;
  /** The work done, factors multiplied or series terms summed (the tests bound it, not the time). */
  terms: number;
}

/**
 * The probability that `draws` items drawn without replacement from n, of which `marked` are
 * marked, include none of the marked ones (the hypergeometric zero term):
 *
 *   C(n - a, b) / C(n, b) = prod_{i=n-m+1}^{n} (1 - M / i),   m = min(a, b), M = max(a, b),
 *
 * symmetric in a and b, so min(a, b) factors suffice. Past 100,000 factors the work no longer
 * grows with the counts: either
 * m M / n > 746, and since each log-factor is below -M/n the value underflows to 0, or else
 * M / n < 0.0075 and n > 1.3e7, and the log is
 *
 *   sum_{u=n-m+1}^{n} log(1 - M/u) = int_{n-m+1/2}^{n+1/2} log(1 - M/u) du
 *                                    - (f'(n+1/2) - f'(n-m+1/2)) / 24 + O(m M / n^5),
 *
 * (the midpoint Euler-Maclaurin formula, f(u) = log(1 - M/u)), with the integral expanded as
 * -sum_j M^j/j int u^-j du, a series in M/u < 0.0075 that converges in a few terms.
 * Callers validate the counts (safe integers, a, b in [0, n]).
 */
export function noneDrawn(n: number, a: number, b: number): NoneDrawn {
  if (a === 0 || b === 0) return { probability: 1, complement: 0, terms: 0 };
  if (a + b > n) return { probability: 0, complement: 1, terms: 0 };
  const few = Math.min(a, b);
  const many = Math.max(a, b);
  if (few <= DIRECT_FACTORS) {
    let product = 1;
    for (let i = n - few + 1; i <= n; i++) product *= 1 - many / i;
    return { probability: product, complement: 1 - product, terms: few };
  }
  if ((few * many) / n > 746) return { probability: 0, complement: 1, terms: 0 };
  const { log, terms } = logNoneDrawnSeries(n, few, many);
  return { probability: Math.exp(log), complement: -Math.expm1(log), terms };
}

/** The log of the product of `few` factors (1 - many/u), u = n-few+1..n, by the series above. */
function logNoneDrawnSeries(n: number, few: number, many: number): { log: number; terms: number } {
  const low = n - few + 0.5;
  const high = n + 0.5;
  const shrink = Math.log1p(-few / high); // log(low / high)
  // j = 1: -M int du/u = -M log(high / low)
  let sum = -many * Math.log1p(few / low);
  let power = 1; // (M / low)^(j - 1)
  let terms = 1;
  for (let j = 2; terms < MAX_SERIES_TERMS; j++) {
    power *= many / low;
    // -M^j/j int u^-j du = -M (M/low)^(j-1) (1 - (low/high)^(j-1)) / (j (j - 1))
    const term = (-many * power * -Math.expm1((j - 1) * shrink)) / (j * (j - 1));
    sum += term;
    terms += 1;
    if (Math.abs(term) < 1e-18 * Math.abs(sum)) break;
  }
  const slope = (u: number) => many / (u * (u - many));
  return { log: sum - (slope(high) - slope(low)) / 24, terms };
}
