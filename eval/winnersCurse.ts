import { normalCdfStandard, normalPdf } from './normal.ts';
import { sampleBinomial, type RandomSource } from './random.ts';
import { checkInteger, checkProbability, checkRandomSource, checkFinite } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * Expected maximum of m iid standard normals, E[max Z_i] = integral of x m phi(x) Phi(x)^{m-1},
 * by Simpson's rule on [-12, 12] (4000 intervals); 0.5642 for m = 2, 1.4236 for m = 8
 * (Harter 1961, "Expected values of normal order statistics"); 0 exactly for m = 1, the mean of
 * one standard normal (the quadrature gives -4.9e-17, which a report prints as -0.000). The
 * winner's curse of chapter 17.8: the best of m equally good checkpoints scores
 * mu + sigma E[max] on average.
 *
 * @throws StatisticsError if m is not a positive safe integer.
 * @example expectedMaxNormal(8) // 1.4236
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
  /** Number of equally good checkpoints to pick from. */
  checkpoints: number;
  /** Episodes in the test set each checkpoint is scored on. */
  episodes: number;
  /** The common true pass rate. */
  passRate: number;
  /** Simulated selections; default 10,000. */
  trials?: number;
  rng: RandomSource;
}

export interface WinnersCurseResult {
  /** Mean score of the picked checkpoint on the set that picked it. */
  meanPickedScore: number;
  /** Mean bias of that score over the true rate. */
  bias: number;
  /** sigma E[max of m normals], sigma = sqrt(p (1-p) / episodes). */
  predictedBias: number;
  trials: number;
}

/**
 * Simulates picking the best of m checkpoints that are all equally good (true rate p), each
 * scored once on a test set of `episodes` independent episodes, and reports how much the
 * picked score overstates p (chapter 17.8: 160 episodes, 8 checkpoints, about +0.04).
 *
 * Work grows as trials x checkpoints x episodes random draws.
 *
 * @throws StatisticsError if checkpoints, episodes or trials is not a positive safe integer, passRate
 *   is outside [0, 1], or there is no rng.
 * @example winnersCurseSimulation({ checkpoints: 8, episodes: 160, passRate: 0.77, rng: new Rng(1) })
 */
export function winnersCurseSimulation({
  checkpoints,
  episodes,
  passRate,
  trials = 10_000,
  rng,
}: WinnersCurseOptions): WinnersCurseResult {
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
 * evaluations are correlated (chapter 17.8 with 17.4's correlation): with scores
 * X_i = mu + sigma (sqrt(rho) Z_0 + sqrt(1 - rho) Z_i), equicorrelated normals, the shared Z_0
 * moves every score alike and cannot be selected on, so
 *
 *   E[max X_i] - mu = sigma sqrt(1 - rho) E[max of K iid standard normals].
 *
 * rho = 0 gives 17.8's sigma E[max of K], an upper bound for checkpoints that correlate
 * positively (Owen & Steck 1962 on equicorrelated normal order statistics).
 * @throws StatisticsError when sigma is not finite and >= 0, selectedFrom not a positive integer, or
 *   correlation outside [0, 1].
 * @example correlatedSelectionInflation({ sigma: 0.0222, selectedFrom: 5, correlation: 0.67 }) // 0.0148
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
