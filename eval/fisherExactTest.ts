import { binomialPmf } from './discrete.ts';
import { checkInteger, checkLevel, checkProbability } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/** log C(n, k) as a sum of logs: exact enough for the hundreds of episodes the evaluations hold. */
function logChoose(n: number, k: number): number {
  let sum = 0;
  for (let i = 1; i <= k; i++) sum += Math.log(n - k + i) - Math.log(i);
  return sum;
}

/**
 * One-sided Fisher's exact test (Fisher 1935) that group 1 (c1 successes of n1) has a higher
 * success rate than an independent group 2 (c2 of n2): the hypergeometric tail P(X >= c1) of
 * group 1's count given the c1 + c2 successes, as scipy's
 * `fisher_exact([[c1, n1 - c1], [c2, n2 - c2]], alternative='greater').pvalue`. For the same
 * episodes seen twice use the paired (McNemar) test instead.
 */
export function fisherExactGreater(c1: number, n1: number, c2: number, n2: number): number {
  checkInteger(n1, 'n1', 1);
  checkInteger(n2, 'n2', 1);
  checkInteger(c1, 'c1', 0, n1);
  checkInteger(c2, 'c2', 0, n2);
  const successes = c1 + c2;
  const total = n1 + n2;
  const denominator = logChoose(total, n1);
  let tail = 0;
  for (let x = Math.min(successes, n1); x >= c1; x--)
    tail += Math.exp(logChoose(successes, x) + logChoose(total - successes, n1 - x) - denominator);
  return Math.min(1, tail);
}

/**
 * One-sided exact binomial test, P(X >= k) for X ~ Binomial(n, p) (scipy's
 * `binomtest(k, n, p, alternative='greater').pvalue`); with p = 1/2 on the discordant pairs of a
 * paired design, the exact one-sided McNemar test.
 */
export function binomialTestGreater(k: number, n: number, p: number): number {
  if (!Number.isInteger(n) || n < 0)
    throw new StatisticsError(`binomialTestGreater: n must be an integer >= 0, got ${n}`);
  if (!Number.isInteger(k) || k < 0 || k > n)
    throw new StatisticsError(`binomialTestGreater: k must be an integer in [0, n], got ${k}`);
  if (!(p >= 0 && p <= 1)) throw new StatisticsError(`binomialTestGreater: p must be in [0, 1], got ${p}`);
  if (k === 0) return 1; // P(X >= 0) is 1 exactly, not a sum that rounds below it
  const pmf = binomialPmf(n, p);
  let tail = 0;
  // Summed from the far tail inwards, so that small terms are not lost against large ones.
  for (let x = n; x >= k; x -= 1) tail += pmf[x]!;
  return Math.min(1, tail);
}

/**
 * Holm's step-down adjusted p-values (Holm 1979): with the m p-values sorted, the i-th becomes
 * max over j <= i of min(1, (m - j + 1) p_(j)); it controls the family-wise error rate under any
 * dependence. Same as statsmodels' `multipletests(p, method='holm')[1]`, in the order given.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  for (const [i, p] of pValues.entries())
    if (typeof p !== 'number' || !(p >= 0 && p <= 1))
      throw new StatisticsError(`holmAdjust: p-value ${i} must be in [0, 1], got ${p}`);
  const m = pValues.length;
  const order = pValues.map((_, i) => i).sort((i, j) => pValues[i]! - pValues[j]!);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * pValues[index]!));
    adjusted[index] = running;
  });
  return adjusted;
}

/**
 * A drop of a task's success rate from `early` to `late` between two checkpoints that play the
 * same `n` episodes, independently: the effect whose detection rate a verdict has (docs/CLAIMS.md, 4).
 */
export type DropEffect = { n: number; early: number; late: number };

function checkEffect({ n, early, late }: DropEffect): void {
  checkInteger(n, 'n', 1);
  checkProbability(early, 'early');
  checkProbability(late, 'late');
}

/**
 * P(c_late < c_early), c ~ Binomial(n, p) at each checkpoint: how often the later count falls
 * below the earlier (the book's reading of narrowing), sum_x P(c_early = x) P(c_late < x).
 */
export function countDropDetection(effect: DropEffect): number {
  checkEffect(effect);
  const early = binomialPmf(effect.n, effect.early);
  const late = binomialPmf(effect.n, effect.late);
  let below = 0; // P(c_late < x), built up as x grows
  let total = 0;
  for (let x = 0; x <= effect.n; x++) {
    total += early[x]! * below;
    below += late[x]!;
  }
  return total;
}

/**
 * The power of the one-sided exact paired (McNemar) test of a drop at level `alpha`: of the
 * episodes only one checkpoint solves, those only the earlier solves ~ Binomial(d, 1/2) under no
 * change (`binomialTestGreater`), rejected when its p < alpha. Each episode is solved by the
 * earlier only with probability a = early (1 - late), by the later only with b = (1 - early) late;
 * the power sums the trinomial P(only early = x, only late = y) over the (x, y) rejected.
 */
export function pairedDropTestPower(effect: DropEffect, alpha: number): number {
  checkEffect(effect);
  checkLevel(1 - alpha);
  const { n, early, late } = effect;
  const onlyEarly = early * (1 - late);
  const onlyLate = (1 - early) * late;
  const discordant = onlyEarly + onlyLate;
  if (discordant === 0) return 0;
  // d discordant episodes ~ Binomial(n, a + b); given d, only-early ~ Binomial(d, a / (a + b)).
  const discordantPmf = binomialPmf(n, discordant);
  let power = 0;
  for (let d = 1; d <= n; d++) {
    const split = binomialPmf(d, onlyEarly / discordant);
    // The smallest x rejected: the tail P(X >= x) falls as x grows.
    let x = d;
    while (x >= 0 && binomialTestGreater(x, d, 0.5) < alpha) x--;
    let rejected = 0;
    for (let k = x + 1; k <= d; k++) rejected += split[k]!;
    power += discordantPmf[d]! * rejected;
  }
  return power;
}
