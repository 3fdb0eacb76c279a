import { checkFinite, checkInteger } from './validate.ts';
import { expectedMaxNormal } from './winnersCurse.ts';
import { StatisticsError } from '../lib/errors.ts';

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
