import { normalCdfStandard, normalPdf } from './normal.ts';
import { sampleBinomial, type RandomSource } from './random.ts';
import { checkInteger, checkProbability, checkRandomSource, checkFinite } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * Expected maximum of m iid standard normals, the integral of x m phi(x) Phi(x)^{m-1} by Simpson's
 * rule on [-12, 12]; 1.4236 for m = 8 (Harter 1961), 0 exactly for m = 1 (where the quadrature's
 * -4.9e-17 would print as -0.000). The best of m equally good checkpoints scores mu + sigma E[max]
 * on average (chapter 17.8).
 */
export function expectedMaxNormal(m: number): number {
  checkInteger(m, 'm', 1);
  if (m === 1) return 0;
  const intervals = 4000;
  const from = -12;
  const step = 24 / intervals;
  let sum = 0;
  for (let i = 0; i <= intervals; i++) {
    const x = from + i * step;
    const weight = i === 0 || i === intervals ? 1 : i % 2 === 1 ? 4 : 2;
    sum += weight * x * m * normalPdf(x) * normalCdfStandard(x) ** (m - 1);
  }
  return (sum * step) / 3;
}

export interface WinnersCurseOptions {
  checkpoints: number;
  episodes: number;
  passRate: number;
  /** Simulated selections; default 10,000. */
  trials?: number;
  rng: RandomSource;
}

/**
 * Simulates picking the best of `checkpoints` equally good checkpoints (true rate p), each scored
 * once on `episodes` episodes: the picked score's mean, its bias over p, and the predicted bias
 * sigma E[max of m normals], sigma = sqrt(p (1-p) / episodes) (chapter 17.8).
 */
export function winnersCurseSimulation({
  checkpoints,
  episodes,
  passRate,
  trials = 10_000,
  rng,
}: WinnersCurseOptions) {
  checkInteger(checkpoints, 'checkpoints', 1);
  checkInteger(episodes, 'episodes', 1);
  checkInteger(trials, 'trials', 1);
  checkProbability(passRate, 'passRate');
  checkRandomSource(rng);
  let sum = 0;
  for (let t = 0; t < trials; t++) {
    let best = -1;
    for (let m = 0; m < checkpoints; m++) best = Math.max(best, sampleBinomial(episodes, passRate, rng));
    sum += best / episodes;
  }
  const meanPickedScore = sum / trials;
  const sigma = Math.sqrt((passRate * (1 - passRate)) / episodes);
  return {
    meanPickedScore,
    bias: meanPickedScore - passRate,
    predictedBias: sigma * expectedMaxNormal(checkpoints),
    trials,
  };
}

/**
 * Expected selection inflation of reporting the best of K equally good checkpoints whose
 * evaluations are equicorrelated normals X_i = mu + sigma (sqrt(rho) Z_0 + sqrt(1 - rho) Z_i): the
 * shared Z_0 cannot be selected on, so E[max X_i] - mu = sigma sqrt(1 - rho) E[max of K]
 * (Owen & Steck 1962); rho = 0 gives 17.8's upper bound.
 */
export function correlatedSelectionInflation({
  sigma,
  selectedFrom,
  correlation,
}: {
  sigma: number;
  selectedFrom: number;
  correlation: number;
}): number {
  checkFinite(sigma, 'sigma', { nonNegative: true });
  checkInteger(selectedFrom, 'selectedFrom', 1);
  if (!(correlation >= 0 && correlation <= 1))
    throw new StatisticsError(`correlation must be in [0, 1], got ${correlation}`);
  return sigma * Math.sqrt(1 - correlation) * expectedMaxNormal(selectedFrom);
}
