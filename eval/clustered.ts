import { taskRates, trialsOf, type CountsInput } from './counts.ts';

/**
 * Standard error of the mean pass rate with tasks as clusters: the task rates r_j = c_j / n_j
 * are the independent units, so SE = sqrt( sum (r_j - r-bar)^2 / (N (N - 1)) ), the
 * cluster-robust (CR1) SE of an equally weighted mean (chapter 17.3: Var(mu-hat) =
 * (sigma_task^2 + E[p(1-p)]/n) / N, estimated by the spread of the task rates). 0 for one task.
 *
 * @throws RangeError on bad counts.
 * @example clusteredStandardError({ successes: [32, 31, 1], trials: 32 })
 */
export function clusteredStandardError(counts: CountsInput): number {
  const rates = taskRates(counts);
  const count = rates.length;
  if (count < 2) return 0;
  let sum = 0;
  for (const rate of rates) sum += rate;
  const center = sum / count;
  let squares = 0;
  for (const rate of rates) squares += (rate - center) ** 2;
  return Math.sqrt(squares / (count * (count - 1)));
}

/**
 * Naive episode-level standard error sqrt(p (1-p) / M) of the pooled share p = S / M over all
 * M episodes treated as independent; too small by sqrt(design effect) when tasks differ.
 *
 * @throws RangeError on bad counts.
 * @example episodeStandardError({ successes: [16, 16], trials: 32 }) // sqrt(0.25 / 64) = 0.0625
 */
export function episodeStandardError(counts: CountsInput): number {
  taskRates(counts);
  let episodes = 0;
  let successes = 0;
  for (let j = 0; j < counts.successes.length; j++) {
    episodes += trialsOf(counts.trials, j);
    successes += counts.successes[j] as number;
  }
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
 * with p = S / M pooled. It estimates sigma_task^2 / (mu (1 - mu)) of chapter 17.3 and can be
 * slightly negative when tasks are alike (returned as is). NaN when every outcome is the same.
 *
 * @throws RangeError on bad counts, fewer than 2 tasks, or no task with 2+ episodes.
 * @example intraclassCorrelation({ successes: [32, 32, 0, 0], trials: 32 }) // 1
 */
export function intraclassCorrelation(counts: CountsInput): number {
  const rates = taskRates(counts);
  const tasks = rates.length;
  if (tasks < 2) throw new RangeError('intraclassCorrelation needs at least 2 tasks');
  let episodes = 0;
  let successes = 0;
  let squaredSizes = 0;
  for (let j = 0; j < tasks; j++) {
    const n = trialsOf(counts.trials, j);
    episodes += n;
    successes += counts.successes[j] as number;
    squaredSizes += n * n;
  }
  if (episodes === tasks) throw new RangeError('intraclassCorrelation needs a task with at least 2 episodes');
  const pooled = successes / episodes;
  let between = 0;
  let within = 0;
  for (let j = 0; j < tasks; j++) {
    const n = trialsOf(counts.trials, j);
    const rate = rates[j] as number;
    between += n * (rate - pooled) ** 2;
    within += n * rate * (1 - rate);
  }
  const meanSquareBetween = between / (tasks - 1);
  const meanSquareWithin = within / (episodes - tasks);
  const typicalSize = (episodes - squaredSizes / episodes) / (tasks - 1);
  return (meanSquareBetween - meanSquareWithin) / (meanSquareBetween + (typicalSize - 1) * meanSquareWithin);
}

/**
 * Design effect 1 + (n - 1) rho (Kish 1965): how many times the true variance of a mean over
 * clusters of n correlated episodes exceeds the variance assuming independence.
 *
 * @throws RangeError if n < 1 or rho is not a number.
 * @example designEffect(32, 0.63) // 20.53
 */
export function designEffect(episodesPerTask: number, rho: number): number {
  if (!(episodesPerTask >= 1)) throw new RangeError(`episodesPerTask must be >= 1, got ${episodesPerTask}`);
  if (Number.isNaN(rho)) throw new RangeError('rho is NaN');
  return 1 + (episodesPerTask - 1) * rho;
}
