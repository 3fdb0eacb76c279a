import { sampleStandardNormal, type RandomSource } from './random.ts';
import { checkInteger, checkLevel, checkRandomSource, checkUnits } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/** log of prod_{i<m} (x + i), the rising factorial: log Gamma(x + m) - log Gamma(x) without a gamma function. */
function logRising(x: number, m: number): number {
  let sum = 0;
  for (let i = 0; i < m; i++) sum += Math.log(x + i);
  return sum;
}

/** The log-likelihood of (a, b) = (mu kappa, (1 - mu) kappa): prod_j B(a + c_j, b + n_j - c_j) / B(a, b), in rising factorials. */
function logLikelihood(mu: number, kappa: number, successes: readonly number[], trials: readonly number[]) {
  const [a, b] = [mu * kappa, (1 - mu) * kappa];
  if (!(a > 0 && b > 0 && Number.isFinite(kappa))) return -Infinity;
  let sum = 0;
  for (let j = 0; j < successes.length; j++) {
    const [c, n] = [successes[j]!, trials[j]!];
    sum += logRising(a, c) + logRising(b, n - c) - logRising(kappa, n);
  }
  return sum;
}

const logistic = (x: number) => 1 / (1 + Math.exp(-x));
const logNormalPdf = (x: number, m: number, sd: number) =>
  -0.5 * ((x - m) / sd) ** 2 - Math.log(sd * Math.sqrt(2 * Math.PI));

/**
 * Posterior of the population mean of a hierarchical beta-binomial model, c_j ~ Binomial(n_j,
 * p_j), p_j ~ Beta(a, b) (Gelman et al., "Bayesian Data Analysis", 3rd ed., 5.3), by adaptive
 * importance sampling with a defensive mixture (Hesterberg 1995, "Weighted average importance
 * sampling and defensive mixture distributions"). The hyperprior is weak and proper: mu = a /
 * (a + b) ~ Uniform(0, 1) and kappa = a + b with density 1 / (1 + kappa)^2, i.e. u = kappa / (1 +
 * kappa) ~ Uniform(0, 1). The p_j integrate out (`logLikelihood`). A first quarter of the draws
 * comes from the prior; the rest from 0.9 N(m, (1.5 s)^2) + 0.1 prior in (logit mu, logit u),
 * m and s the first stage's weighted means and SDs, weighted prior x likelihood / proposal.
 * Returns mu's posterior mean, its equal-tailed credible interval at `level`, and Kish's effective
 * sample size of the second stage's weights, (sum w)^2 / sum w^2.
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
}) {
  checkUnits(successes, 1, 'successes', 'a posterior');
  if (trials.length !== successes.length) throw new StatisticsError('successes and trials differ in length');
  successes.forEach((c, j) => checkInteger(c, `successes[${j}]`, 0, trials[j]!));
  checkInteger(draws, 'draws', 8);
  checkLevel(level);
  checkRandomSource(rng);
  const logLik = (mu: number, u: number) => logLikelihood(mu, u / (1 - u), successes, trials);
  // Stage 1, from the prior: where the posterior lies, in (logit mu, logit u).
  const first = Math.floor(draws / 4);
  const pilot = Array.from({ length: first }, () => {
    const [mu, u] = [rng.next(), rng.next()];
    return { x: Math.log(mu / (1 - mu)), y: Math.log(u / (1 - u)), logWeight: logLik(mu, u) };
  });
  const pilotWeights = normalised(pilot.map((draw) => draw.logWeight));
  const moments = (key: 'x' | 'y') => {
    const usable = pilot.map((draw, d) => [draw[key], pilotWeights[d]!] as const).filter(([, w]) => w > 0);
    const m = usable.reduce((sum, [v, w]) => sum + v * w, 0);
    const sd = Math.sqrt(usable.reduce((sum, [v, w]) => sum + w * (v - m) ** 2, 0));
    return { m, sd: 1.5 * Math.max(sd, 0.05) };
  };
  const [px, py] = [moments('x'), moments('y')];
  // Stage 2, from the defensive mixture; the prior density in (x, y) is mu(1 - mu) u(1 - u).
  const mus = new Float64Array(draws - first);
  const logWeights = new Float64Array(draws - first);
  for (let d = 0; d < mus.length; d++) {
    const fromPrior = rng.next() < 0.1;
    const x = fromPrior ? logitOf(rng.next()) : px.m + px.sd * sampleStandardNormal(rng);
    const y = fromPrior ? logitOf(rng.next()) : py.m + py.sd * sampleStandardNormal(rng);
    const [mu, u] = [logistic(x), logistic(y)];
    const logPrior = Math.log(mu * (1 - mu) * u * (1 - u));
    const proposal =
      0.9 * Math.exp(logNormalPdf(x, px.m, px.sd) + logNormalPdf(y, py.m, py.sd)) + 0.1 * Math.exp(logPrior);
    mus[d] = mu;
    logWeights[d] =
      logPrior > -Infinity && proposal > 0 ? logLik(mu, u) + logPrior - Math.log(proposal) : -Infinity;
  }
  const weights = normalised(Array.from(logWeights));
  const order = Array.from({ length: mus.length }, (_, d) => d).sort((i, j) => mus[i]! - mus[j]!);
  const quantile = (q: number) => {
    let cumulative = 0;
    for (const d of order) if ((cumulative += weights[d]!) >= q) return mus[d]!;
    return mus[order[order.length - 1]!]!;
  };
  const tail = (1 - level) / 2;
  return {
    mean: weights.reduce((sum, w, d) => sum + w * mus[d]!, 0),
    low: quantile(tail),
    high: quantile(1 - tail),
    effectiveDraws: 1 / weights.reduce((sum, w) => sum + w * w, 0),
  };
}

const logitOf = (p: number) => Math.log(p / (1 - p));

/** Weights that sum to 1 from log-weights (the largest subtracted first, so none overflows). */
function normalised(logWeights: readonly number[]): number[] {
  let top = -Infinity;
  for (const value of logWeights) top = Math.max(top, value);
  const weights = logWeights.map((value) => Math.exp(value - top));
  const total = weights.reduce((sum, w) => sum + w, 0);
  return weights.map((w) => w / total);
}
