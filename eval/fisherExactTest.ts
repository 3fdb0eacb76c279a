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
 * One-sided Fisher's exact test that group 1 (c1 successes of n1) has a higher success rate than
 * group 2 (c2 of n2), for two independent samples (Fisher 1935): given the c1 + c2 successes,
 * group 1's count is hypergeometric under equal rates, and the p-value is
 * P(X >= c1) = sum_{x >= c1} C(c1 + c2, x) C(n1 + n2 - c1 - c2, n1 - x) / C(n1 + n2, n1).
 * Same as scipy's `fisher_exact([[c1, n1 - c1], [c2, n2 - c2]], alternative='greater').pvalue`.
 * For the same episodes seen twice use the paired (McNemar) test instead.
 * @throws StatisticsError if n1 or n2 < 1, or a count is outside [0, n].
 * @example fisherExactGreater(37, 64, 6, 64) // 3.0e-9
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
 * One-sided exact binomial test (Clopper & Pearson's exact tail; scipy's
 * `binomtest(k, n, p, alternative='greater').pvalue`): the p-value P(X >= k) for X ~ Binomial(n, p),
 * summed from the probability mass function. With p = 1/2 on the discordant pairs of a paired
 * design (k of n pairs go one way) it is the exact one-sided McNemar test.
 * @throws StatisticsError if n < 0, k outside [0, n] or p outside [0, 1].
 * @example binomialTestGreater(8, 10, 0.5) // 0.0546875
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
  for (let x = n; x >= k; x -= 1) tail += pmf[x] as number;
  return Math.min(1, tail);
}

/**
 * Holm's step-down adjusted p-values (Holm 1979, "A simple sequentially rejective multiple test
 * procedure"): with the m p-values sorted, p_(1) <= ... <= p_(m), the adjusted value of the
 * i-th is max over j <= i of min(1, (m - j + 1) p_(j)). Rejecting every hypothesis whose adjusted
 * p-value is below alpha controls the family-wise error rate at alpha, for any dependence between
 * the tests, and rejects at least what Bonferroni (m p_i < alpha) does. Same as statsmodels'
 * `multipletests(p, method='holm')[1]`. The values come back in the order given.
 * @throws StatisticsError on a p-value outside [0, 1].
 * @example holmAdjust([0.01, 0.04, 0.03]) // [0.03, 0.06, 0.06]
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
 * How often a drop of a task's success rate from `early` to `late` is seen in one evaluation of
 * `n` episodes played by both checkpoints, the two outcomes of an episode independent: the
 * detection rate of a verdict at a given effect (docs/CLAIMS.md, section 4). Exact sums over the
 * binomial (or trinomial) counts.
 */
export interface DropEffect {
  /** Episodes each checkpoint plays (the same episodes). */
  n: number;
  /** The task's success rate at the earlier checkpoint. */
  early: number;
  /** Its success rate at the later one. */
  late: number;
}

function checkEffect({ n, early, late }: DropEffect): void {
  checkInteger(n, 'n', 1);
  checkProbability(early, 'early');
  checkProbability(late, 'late');
}

/**
 * P(c_late < c_early) for c ~ Binomial(n, p) at each checkpoint: how often the later point count
 * falls below the earlier one (the book's reading of narrowing: a task that ends below the base
 * agent). sum_x P(c_early = x) P(c_late < x).
 * @throws StatisticsError if n < 1 or a rate is outside [0, 1].
 * @example countDropDetection({ n: 64, early: 10 / 64, late: 3 / 64 }) // 0.9763
 */
export function countDropDetection(effect: DropEffect): number {
  checkEffect(effect);
  const early = binomialPmf(effect.n, effect.early);
  const late = binomialPmf(effect.n, effect.late);
  let below = 0; // P(c_late < x), built up as x grows
  let total = 0;
  for (let x = 0; x <= effect.n; x++) {
    total += (early[x] as number) * below;
    below += late[x] as number;
  }
  return total;
}

/**
 * The power of the one-sided exact paired (McNemar) test of a drop at level `alpha`: of the
 * episodes only one checkpoint solves, those only the earlier solves ~ Binomial(d, 1/2) under no
 * change (`binomialTestGreater`), rejected when its p < alpha. Each episode is solved by the
 * earlier only with probability a = early (1 - late), by the later only with b = (1 - early) late;
 * the power sums the trinomial P(only early = x, only late = y) over the (x, y) rejected.
 * @throws StatisticsError if n < 1, a rate is outside [0, 1] or alpha outside (0, 1).
 * @example pairedDropTestPower({ n: 64, early: 10 / 64, late: 3 / 64 }, 0.05) // 0.5565
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
    for (let k = x + 1; k <= d; k++) rejected += split[k] as number;
    power += (discordantPmf[d] as number) * rejected;
  }
  return power;
}
