import { mean } from './describe.ts';
import { checkFinite, checkInteger } from './validate.ts';
import { StatisticsError } from '../lib/errors.ts';

/**
 * Standard error of the mean pass rate with tasks as clusters, the task rates r_j = c_j / n_j the
 * independent units: SE = sqrt(sum (r_j - r-bar)^2 / (N (N - 1))), the cluster-robust (CR1) SE of
 * an equally weighted mean (chapter 17.3). Undefined below 2 tasks.
 */
export function clusteredStandardError(counts: CountsInput): number {
  const rates = taskRates(counts);
  const count = rates.length;
  if (count < 2) throw new StatisticsError('counts has 1 task; a clustered standard error needs at least 2');
  const center = mean(rates);
  let squares = 0;
  for (const rate of rates) squares += (rate - center) ** 2;
  return Math.sqrt(squares / (count * (count - 1)));
}

/**
 * Naive episode-level standard error sqrt(p (1-p) / M) of the pooled share p = S / M, the M
 * episodes treated as independent: too small by sqrt(design effect) when tasks differ.
 */
export function episodeStandardError(counts: CountsInput): number {
  taskRates(counts);
  const { episodes, successes } = pooledCounts(counts);
  if (episodes < 2)
    throw new StatisticsError('counts has 1 episode; an episode-level standard error needs at least 2');
  const p = successes / episodes;
  return Math.sqrt((p * (1 - p)) / episodes);
}

/**
 * Moment (one-way ANOVA) estimate of the intraclass correlation of binary outcomes with tasks
 * as clusters (Fleiss 1981; Ridout, Demetrio & Firth 1999, "Estimating intraclass correlation
 * for binary data", the ANOVA estimator):
 *
 *   MSB = sum n_j (r_j - p)^2 / (N - 1),   MSW = sum n_j r_j (1 - r_j) / (M - N),
 *   n0 = (M - sum n_j^2 / M) / (N - 1),    rho = (MSB - MSW) / (MSB + (n0 - 1) MSW),
 *
 * with p = S / M pooled. It estimates sigma_task^2 / (mu (1 - mu)) of chapter 17.3, slightly
 * negative when tasks are alike (never below -1 / (n0 - 1)).
 * @throws StatisticsError on bad counts, fewer than 2 tasks, no task with 2+ episodes, or every
 *   episode alike (no variance to split).
 */
export function intraclassCorrelation(counts: CountsInput): number {
  const rates = taskRates(counts);
  const tasks = rates.length;
  if (tasks < 2) throw new StatisticsError('intraclassCorrelation needs at least 2 tasks');
  const { episodes, successes } = pooledCounts(counts);
  if (episodes === tasks)
    throw new StatisticsError('intraclassCorrelation needs a task with at least 2 episodes');
  const pooled = successes / episodes;
  let squaredSizes = 0;
  let between = 0;
  let within = 0;
  for (let j = 0; j < tasks; j++) {
    const n = trialsOf(counts.trials, j);
    squaredSizes += n ** 2;
    const rate = rates[j]!;
    between += n * (rate - pooled) ** 2;
    within += n * rate * (1 - rate);
  }
  const meanSquareBetween = between / (tasks - 1);
  const meanSquareWithin = within / (episodes - tasks);
  const typicalSize = (episodes - squaredSizes / episodes) / (tasks - 1);
  const denominator = meanSquareBetween + (typicalSize - 1) * meanSquareWithin;
  if (!(denominator > 0))
    throw new StatisticsError('the intraclass correlation is undefined: every episode has the same outcome');
  return (meanSquareBetween - meanSquareWithin) / denominator;
}

/**
 * Design effect 1 + (n - 1) rho (Kish 1965): how many times the variance of a mean over clusters
 * of n correlated episodes exceeds that under independence; rho in [-1 / (n - 1), 1], since a
 * variance is never negative. n may be an average cluster size.
 */
export function designEffect(episodesPerTask: number, rho: number): number {
  checkFinite(episodesPerTask, 'episodesPerTask');
  if (!(episodesPerTask >= 1))
    throw new StatisticsError(`episodesPerTask must be >= 1, got ${episodesPerTask}`);
  checkFinite(rho, 'rho');
  const lowest = episodesPerTask > 1 ? -1 / (episodesPerTask - 1) : -1;
  if (rho < lowest - 1e-12 || rho > 1)
    throw new StatisticsError(`rho must be in [${lowest}, 1] for clusters of ${episodesPerTask}, got ${rho}`);
  return Math.max(0, 1 + (episodesPerTask - 1) * rho);
}

/** Per-task success counts c_j and trial counts n_j (a number when every task has the same n). */
export type CountsInput = { successes: ArrayLike<number>; trials: ArrayLike<number> | number };

function trialsOf(trials: ArrayLike<number> | number, j: number): number {
  return typeof trials === 'number' ? trials : trials[j]!;
}

/** Validates counts and returns the per-task pass rates c_j / n_j. */
export function taskRates(counts: CountsInput): Float64Array {
  if (typeof counts !== 'object' || counts === null)
    throw new StatisticsError('counts must be { successes, trials }');
  const { successes, trials } = counts;
  if (successes === null || typeof successes !== 'object' || typeof successes.length !== 'number')
    throw new StatisticsError('successes must be an array of counts');
  if (successes.length === 0) throw new StatisticsError('successes is empty: no tasks');
  if (
    typeof trials !== 'number' &&
    (trials === null || typeof trials !== 'object' || trials.length !== successes.length)
  )
    throw new StatisticsError(
      `trials must be a number or an array as long as successes (${successes.length} tasks)`,
    );
  const rates = new Float64Array(successes.length);
  for (let j = 0; j < successes.length; j++) {
    const n = trialsOf(trials, j);
    const c = successes[j]!;
    checkInteger(n, typeof trials === 'number' ? 'trials' : `trials[${j}]`, 1);
    checkInteger(c, `successes[${j}]`, 0, n);
    rates[j] = c / n;
  }
  return rates;
}

/** Total episodes M = sum n_j and successes S = sum c_j of validated counts. */
export function pooledCounts(counts: CountsInput): { episodes: number; successes: number } {
  let episodes = 0;
  let successes = 0;
  for (let j = 0; j < counts.successes.length; j++) {
    episodes += trialsOf(counts.trials, j);
    successes += counts.successes[j]!;
  }
  if (!Number.isSafeInteger(episodes))
    throw new StatisticsError(`the total number of episodes (${episodes}) exceeds 2^53 - 1`);
  return { episodes, successes };
}

/**
 * The chapter's intraclass correlation rho = sigma_task^2 / (mu (1 - mu)) (chapter 17.3, from
 * the law of total variance mu (1 - mu) = sigma_task^2 + E[p_j (1 - p_j)]), with the between-task
 * variance corrected for binomial noise:
 *
 *   mu = (1/N) sum r_j,   s^2 = sum (r_j - mu)^2 / (N - 1),
 *   sigma_task^2 = s^2 - (1/N) sum r_j (1 - r_j) / (n_j - 1),   rho = sigma_task^2 / (mu (1 - mu)),
 *
 * where r_j = c_j / n_j: the subtracted term is unbiased for the binomial part of E[s^2]. Unlike
 * `intraclassCorrelation` it weights tasks equally, as the mean pass rate does. Returned as is:
 * negative when tasks are alike, above 1 when few tasks sit at 0 and 1.
 * @throws StatisticsError on fewer than 2 tasks, a task of fewer than 2 episodes, or mu of 0 or 1.
 */
export function taskVarianceIntraclassCorrelation(counts: CountsInput): number {
  const rates = taskRates(counts);
  const tasks = rates.length;
  if (tasks < 2) throw new StatisticsError('taskVarianceIntraclassCorrelation needs at least 2 tasks');
  let sum = 0;
  let binomial = 0;
  for (let j = 0; j < tasks; j++) {
    const n = trialsOf(counts.trials, j);
    if (n < 2)
      throw new StatisticsError(
        `taskVarianceIntraclassCorrelation needs 2+ episodes per task; task ${j} has ${n}`,
      );
    const rate = rates[j]!;
    sum += rate;
    binomial += (rate * (1 - rate)) / (n - 1);
  }
  const mu = sum / tasks;
  if (!(mu > 0 && mu < 1))
    throw new StatisticsError('the intraclass correlation is undefined: every episode has the same outcome');
  let squares = 0;
  for (const rate of rates) squares += (rate - mu) ** 2;
  const taskVariance = squares / (tasks - 1) - binomial / tasks;
  return taskVariance / (mu * (1 - mu));
}
