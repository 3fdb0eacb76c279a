import type { RandomSource } from './randomSource.ts';
import { checkInteger, checkLevel, checkRandomSource, checkSuccesses, checkUnits } from './validate.ts';

export interface PosteriorInterval {
  /** Posterior mean of the population mean pass rate mu = a / (a + b). */
  mean: number;
  /** Equal-tailed credible interval of mu at `level`. */
  low: number;
  high: number;
  /** Kish's effective sample size of the importance weights, (sum w)^2 / sum w^2. */
  effectiveDraws: number;
}

/** log of prod_{i<m} (x + i), the rising factorial: log Gamma(x + m) - log Gamma(x) without a gamma function. */
function logRising(x: number, m: number): number {
  let sum = 0;
  for (let i = 0; i < m; i++) sum += Math.log(x + i);
  return sum;
}

/**
 * Posterior of the population mean of a hierarchical beta-binomial model, c_j ~ Binomial(n_j,
 * p_j), p_j ~ Beta(a, b), by self-normalised importance sampling from the hyperprior
 * (Gelman et al., "Bayesian Data Analysis", 3rd ed., 5.3 and 10.4). The hyperprior is weak and
 * proper: mu = a / (a + b) ~ Uniform(0, 1) and kappa = a + b with density 1 / (1 + kappa)^2,
 * i.e. u = kappa / (1 + kappa) ~ Uniform(0, 1), so each draw is two uniforms. The p_j integrate
 * out: the weight of (a, b) is prod_j B(a + c_j, b + n_j - c_j) / B(a, b), in rising factorials.
 *
 * @throws RangeError on fewer than 1 task, bad counts, draws < 2, a bad level or no rng.
 * @example betaBinomialMeanPosterior({ successes: [3, 30], trials: [32, 32], draws: 20000, rng: new Rng(1) })
 */
export function betaBinomialMeanPosterior({
  successes,
  trials,
  draws = 20_000,
  level = 0.95,
  rng,
}: {
  successes: readonly number[];
  trials: readonly number[];
  draws?: number;
  level?: number;
  rng: RandomSource;
}): PosteriorInterval {
  checkUnits(successes, 1, 'successes', 'a posterior');
  if (trials.length !== successes.length) throw new RangeError('successes and trials differ in length');
  successes.forEach((c, j) => checkSuccesses(c, trials[j] as number, `successes[${j}]`));
  checkInteger(draws, 'draws', 2);
  checkLevel(level);
  checkRandomSource(rng);
  const mus = new Float64Array(draws);
  const logWeights = new Float64Array(draws);
  for (let d = 0; d < draws; d++) {
    const mu = rng.next();
    const u = rng.next();
    const kappa = u / (1 - u);
    const [a, b] = [mu * kappa, (1 - mu) * kappa];
    let logWeight = 0;
    for (let j = 0; j < successes.length; j++) {
      const [c, n] = [successes[j] as number, trials[j] as number];
      logWeight += logRising(a, c) + logRising(b, n - c) - logRising(kappa, n);
    }
    mus[d] = mu;
    // A draw at mu or u exactly 0 has a zero parameter: its weight is 0 unless no count needs it.
    logWeights[d] = a > 0 && b > 0 && Number.isFinite(kappa) ? logWeight : -Infinity;
  }
  let top = -Infinity;
  for (const value of logWeights) top = Math.max(top, value);
  const weights = Array.from(logWeights, (value) => Math.exp(value - top));
  const total = weights.reduce((sum, w) => sum + w, 0);
  const order = Array.from({ length: draws }, (_, d) => d).sort(
    (x, y) => (mus[x] as number) - (mus[y] as number),
  );
  const quantile = (q: number) => {
    let cumulative = 0;
    for (const d of order) {
      cumulative += (weights[d] as number) / total;
      if (cumulative >= q) return mus[d] as number;
    }
    return mus[order[draws - 1] as number] as number;
  };
  const mean = weights.reduce((sum, w, d) => sum + w * (mus[d] as number), 0) / total;
  const tail = (1 - level) / 2;
  return {
    mean,
    low: quantile(tail),
    high: quantile(1 - tail),
    effectiveDraws: total ** 2 / weights.reduce((sum, w) => sum + w * w, 0),
  };
}
