import { binomialTestGreater } from './fisherExactTest.ts';
import { binomialPmf } from './discrete.ts';
import { checkInteger, checkLevel, checkProbability } from './validate.ts';

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
