import { mean, sampleVariance } from './describe.ts';
import { checkFiniteValues, checkLevel, checkFinite } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * The chi-square bounds of a variance from its sum of squares over `df` degrees of freedom,
 * ss / chi^2_{1-alpha/2, df} and ss / chi^2_{alpha/2, df}, each through `sd` (a square root).
 */
const chiSquareBounds = (sumOfSquares: number, df: number, alpha: number, sd = Math.sqrt) => ({
  low: sd(sumOfSquares / chiSquareQuantile(1 - alpha / 2, df)),
  high: sd(sumOfSquares / chiSquareQuantile(alpha / 2, df)),
});

/** Evaluation noise sigma_e^2-hat = sum d^2 / (2 n) from d = a - b, with its chi-square (n df) interval. */
function evaluationNoise(differences: number[], alpha: number) {
  const variance = mean(differences.map((d) => (d * d) / 2));
  const n = differences.length;
  return { variance, sd: { estimate: Math.sqrt(variance), ...chiSquareBounds(n * variance, n, alpha) } };
}

/**
 * The chi-square interval of a standard deviation from n normal values (Casella & Berger 2002,
 * chapter 9): (n - 1) s^2 / sigma^2 ~ chi^2(n - 1), as scipy's
 * `np.sqrt((n - 1) * s2 / chi2.ppf([1 - a / 2, a / 2], n - 1))`.
 */
export function standardDeviationInterval(
  values: ArrayLike<number>,
  { level = 0.95 }: { level?: number } = {},
) {
  checkFiniteValues(values);
  checkLevel(level);
  if (values.length < 2) throw new StatisticsError('standardDeviationInterval: needs at least 2 values');
  const n = values.length;
  const variance = sampleVariance(values);
  return { estimate: Math.sqrt(variance), ...chiSquareBounds((n - 1) * variance, n - 1, 1 - level) };
}

/**
 * Chapter 17.4's split of the spread of seed means into training noise and evaluation noise, each
 * with a chi-square confidence interval, from two independent evaluations `a[i]`, `b[i]` of each
 * seed i's checkpoint (n seeds).
 *
 * Evaluation noise: d_i = a_i - b_i has mean 0 and variance 2 sigma_e^2, so
 * sigma_e^2-hat = sum d_i^2 / (2 n), and n sigma_e^2-hat / sigma_e^2 ~ chi^2(n) for normal d_i.
 *
 * Training noise (the method of moments): the seed means m_i = (a_i + b_i) / 2 have variance
 * sigma_t^2 + sigma_e^2 / 2, so sigma_t^2-hat = max(0, S_m^2 - sigma_e^2-hat / 2). Its interval
 * is the chi-square interval of the variance of the m_i less the evaluation share at both ends
 * (treated as known), a bound below 0 becoming 0; its coverage is simulated in test/noise-sd.test.ts.
 */
export function noiseStandardDeviations(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  { level = 0.95 }: { level?: number } = {},
) {
  checkFiniteValues(a, 'a');
  checkFiniteValues(b, 'b');
  checkLevel(level);
  const n = a.length;
  if (n < 2 || b.length !== n)
    throw new StatisticsError(
      `noiseStandardDeviations: a and b need the same number (>= 2) of seeds, got ${n} and ${b.length}`,
    );
  const alpha = 1 - level;
  const differences = Array.from(a, (value, i) => value - b[i]!);
  const evaluation = evaluationNoise(differences, alpha);
  const seedMeanVariance = sampleVariance(Array.from(a, (value, i) => (value + b[i]!) / 2));
  const trainingSD = (seedMeans: number) => Math.sqrt(Math.max(0, seedMeans - evaluation.variance / 2));
  return {
    training: {
      estimate: trainingSD(seedMeanVariance),
      ...chiSquareBounds((n - 1) * seedMeanVariance, n - 1, alpha, trainingSD),
    },
    evaluation: evaluation.sd,
    seeds: n,
  };
}

/**
 * The nested split of training noise into a base-agent and an RL component, beside evaluation
 * noise: `a[g][r]` and `b[g][r]` are two independent evaluations of the checkpoint of RL seed r
 * trained from base agent g (B base agents, R RL seeds each, a balanced design). One-way random
 * effects on the seed means m = (a + b) / 2, the base agent as the group:
 *
 *   MSW = sum (m_gr - m_g)^2 / (B (R - 1)),  E[MSW] = sigma_rl^2 + sigma_e^2 / 2
 *   MSB = R sum (m_g - m)^2 / (B - 1),        E[MSB] = R sigma_base^2 + sigma_rl^2 + sigma_e^2 / 2
 *
 * with sigma_e^2-hat from d = a - b as in `noiseStandardDeviations`.
 * - RL component: sqrt(max(0, MSW - sigma_e^2-hat / 2)), with MSW's chi-square interval (B (R - 1)
 *   df) less the evaluation share, as `noiseStandardDeviations`' training noise.
 * - Base-agent component: sqrt(max(0, (MSB - MSW) / R)). When MSB > MSW its interval is the
 *   chi-square interval with Satterthwaite's degrees of freedom
 *   nu = (MSB - MSW)^2 / (MSB^2 / (B - 1) + MSW^2 / (B (R - 1))) (Satterthwaite 1946; Burdick &
 *   Graybill 1992, section 3.2). Otherwise the estimate is 0, nu null, and the interval runs from
 *   0 to the bound MSB alone gives, sqrt((B - 1) MSB / (R chi^2_{alpha/2, B-1})).
 * These intervals assume normal effects.
 */
export function nestedNoiseStandardDeviations(
  a: ReadonlyArray<ArrayLike<number>>,
  b: ReadonlyArray<ArrayLike<number>>,
  { level = 0.95 }: { level?: number } = {},
) {
  checkLevel(level);
  const groups = a.length;
  const perGroup = a[0]?.length ?? 0;
  const balanced =
    b.length === groups && [...a, ...b].every((row) => row.length === perGroup && row.length > 0);
  if (groups < 2 || perGroup < 2 || !balanced)
    throw new StatisticsError(
      `nestedNoiseStandardDeviations: needs a and b of the same B >= 2 groups of R >= 2 values each, got ${groups} and ${b.length} groups`,
    );
  [...a, ...b].forEach((row, i) => checkFiniteValues(row, i < groups ? 'a' : 'b'));
  const means = a.map((row, g) => Array.from(row, (value, r) => (value + b[g]![r]!) / 2));
  const groupMeans = means.map((row) => mean(row));
  const grand = mean(groupMeans);
  const within = means.reduce(
    (sum, row, g) => sum + row.reduce((s, m) => s + (m - groupMeans[g]!) ** 2, 0),
    0,
  );
  const withinDf = groups * (perGroup - 1);
  const msw = within / withinDf;
  const msb = (perGroup * groupMeans.reduce((s, m) => s + (m - grand) ** 2, 0)) / (groups - 1);
  const alpha = 1 - level;
  const differences = a.flatMap((row, g) => Array.from(row, (value, r) => value - b[g]![r]!));
  const evaluation = evaluationNoise(differences, alpha);
  const lessEvaluation = (variance: number) => Math.sqrt(Math.max(0, variance - evaluation.variance / 2));
  const baseVariance = (msb - msw) / perGroup;
  const satterthwaite =
    baseVariance > 0 ? (msb - msw) ** 2 / (msb ** 2 / (groups - 1) + msw ** 2 / withinDf) : null;
  return {
    base: {
      estimate: Math.sqrt(Math.max(0, baseVariance)),
      ...(satterthwaite === null
        ? {
            low: 0,
            high: Math.sqrt(((groups - 1) * msb) / (perGroup * chiSquareQuantile(alpha / 2, groups - 1))),
          }
        : chiSquareBounds(satterthwaite * baseVariance, satterthwaite, alpha)),
      df: satterthwaite,
    },
    rl: {
      estimate: lessEvaluation(msw),
      ...chiSquareBounds(withinDf * msw, withinDf, alpha, lessEvaluation),
      df: withinDf,
    },
    evaluation: { ...evaluation.sd, df: groups * perGroup },
    meanSquares: { between: msb, within: msw },
    groups,
    perGroup,
  };
}

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

/** Chi-square CDF, P(df / 2, x / 2) (the regularized lower incomplete gamma), as scipy's `chi2.cdf(x, df)`. */
export function chiSquareCdf(x: number, df: number): number {
  checkFinite(df, 'df', { positive: true });
  checkFinite(x, 'x');
  return lowerGammaRegularized(df / 2, x / 2);
}

/**
 * Chi-square quantile by bisection on the CDF to a relative width of 1e-14, or to adjacent floats
 * where it underflows; scipy's `chi2.ppf(p, df)` to about 12 digits.
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
