import { AGGREGATE_METRICS, rliableAggregates, type AggregateMetric } from '../stratifiedBootstrap.ts';
import { AGGREGATE_REPS, probabilityOfImprovementInterval } from '../stratifiedBootstrap.ts';
import type { Estimate as Replicated } from '../stratifiedBootstrap.ts';
import type { AlgorithmScores } from '../io/formats/scores.ts';
import { fileError } from '../io/errors.ts';
import type { Estimate } from './resample.ts';
import { progressBar, type Progress } from '../../lib/progress.ts';
import { Rng } from '../../lib/rng.ts';

/** How the profile's taus are spaced and its axis drawn: `log` is the symmetric log sign(x) log(1 + |x|) (Vega-Lite's symlog), which takes 0 and negative scores. */
export const TAU_SCALES = ['linear', 'log'] as const;
export type TauScale = (typeof TAU_SCALES)[number];

const symlog = (x: number) => Math.sign(x) * Math.log1p(Math.abs(x));
const symexp = (y: number) => Math.sign(y) * Math.expm1(Math.abs(y));

/**
 * The performance profile's default thresholds: 21 from min(0, lowest score) to max(1, highest),
 * evenly spaced or, with `log`, evenly spaced in sign(x) log(1 + |x|), so that a profile over -1
 * to 60 (normalised Atari scores) has as many taus below 1 as above.
 */
export function profileTaus(algorithms: readonly AlgorithmScores[], scale: TauScale = 'linear'): number[] {
  // A loop, not Math.min(...scores): a large file's scores would overflow the call stack.
  let low = 0;
  let high = 1;
  for (const { scores } of algorithms)
    for (const row of scores)
      for (const score of row) {
        low = Math.min(low, score);
        high = Math.max(high, score);
      }
  if (scale === 'linear') return Array.from({ length: 21 }, (_, i) => low + ((high - low) * i) / 20);
  const [from, to] = [symlog(low), symlog(high)];
  return Array.from({ length: 21 }, (_, i) =>
    i === 0 ? low : i === 20 ? high : symexp(from + ((to - from) * i) / 20),
  );
}

/**
 * numpy.linspace(start, stop, count) as numpy computes it (numpy/_core/function_base.py: step =
 * (stop - start) / (count - 1), start + i * step, the last set to stop), so that `--tau 0:8:81`
 * gives rliable's `np.linspace(0.0, 8.0, 81)` to the bit.
 */
export function linspace(start: number, stop: number, count: number): number[] {
  const step = (stop - start) / (count - 1);
  return Array.from({ length: count }, (_, i) => (i === count - 1 ? stop : start + i * step));
}

/** Which runs a replicate redraws: rliable's, within each task apart, or whole runs. */
export const RESAMPLINGS = ['within-tasks', 'whole-runs'] as const;
export type Resampling = (typeof RESAMPLINGS)[number];

/** The most replicates x `replicateWork` of a default run, so that its time stops growing with the data. */
export const WORK_BUDGET = 5e8;
/** The fewest replicates a default run takes: rliable's `create_performance_profile` default. */
export const MIN_REPS = 2000;

/**
 * The work of one replicate: every score of every algorithm, drawn once for its aggregates and
 * once for each pair it is in (P(X > Y) counts in O(runs) per task, `probabilityOfImprovementInterval`).
 */
export function replicateWork(algorithms: readonly AlgorithmScores[]): number {
  const cells = algorithms.map(({ runs, tasks }) => runs.length * tasks.length);
  return cells.reduce((work, own) => work + own * algorithms.length, 0);
}

/** The default replicates for these algorithms: AGGREGATE_REPS, or as many as WORK_BUDGET allows. */
export function defaultReps(algorithms: readonly AlgorithmScores[]): number {
  const fit = Math.floor(WORK_BUDGET / replicateWork(algorithms) / 1000) * 1000;
  return Math.min(AGGREGATE_REPS, Math.max(MIN_REPS, fit));
}

/** `--gamma`'s bound: far beyond any score scale, and with scores within `largestScore` every gap's sum stays finite. */
export const GAMMA_LIMIT = 1e100;

/**
 * The largest |score| of an algorithm of `cells` scores whose every sum stays finite: a mean's
 * or a median's (up to `cells` terms), an optimality gap's (`cells` terms of gamma - x, each at
 * most GAMMA_LIMIT + |x|, for any count of scores below 10^200), the default taus' (20 times
 * the scores' span) and a percentile interval's (the difference of two replicates), with room
 * to spare for rounding.
 */
export const largestScore = (cells: number) => Number.MAX_VALUE / (8 * Math.max(cells, 20));

/** Refuses, naming the file, an algorithm with a score too large for its sums (`largestScore`). */
function checkSummable(algorithms: readonly AlgorithmScores[]): void {
  for (const { algorithm, path, runs, tasks, scores } of algorithms) {
    const limit = largestScore(runs.length * tasks.length);
    scores.forEach((row, run) =>
      row.forEach((score, task) => {
        if (Math.abs(score) > limit)
          throw fileError(
            path,
            `algorithm '${algorithm}': run '${runs[run]}' scores ${score} on task '${tasks[task]}', too large to sum: the aggregates of ${runs.length * tasks.length} scores need every |score| at most ${limit.toPrecision(3)} to keep their sums finite (rescale the scores)`,
          );
      }),
    );
  }
}

/**
 * An estimate as the report shows it: its interval null where it would claim certainty, from
 * fewer than 2 runs (nothing to redraw) or replicates with no spread (a zero-width interval).
 */
const withoutCertainty =
  (runs: number) =>
  ({ estimate, low, high }: Replicated): Estimate =>
    runs < 2 || !(low < high) ? { estimate, low: null, high: null } : { estimate, low, high };

export interface AggregateSettings {
  /** Replicates; default `defaultReps`. */
  reps?: number;
  seed: number;
  gamma: number;
  /** The profile's taus; default `profileTaus` at `tauScale`. */
  taus?: number[];
  tauScale?: TauScale;
  resample?: Resampling;
  /** The progress bar over every bootstrap's replicates, given their total; default on stderr. */
  progress?: (total: number) => Progress;
}

/**
 * `tinyagent aggregate`'s numbers: every algorithm's aggregates and every pair's probability of
 * improvement, each interval null where it would claim certainty (`withoutCertainty`). Refuses scores too
 * large to sum (`largestScore`) before any work.
 */
export function aggregateNumbers(algorithms: readonly AlgorithmScores[], settings: AggregateSettings) {
  checkSummable(algorithms);
  const {
    reps = defaultReps(algorithms),
    seed,
    gamma,
    tauScale = 'linear',
    taus = profileTaus(algorithms, tauScale),
    resample = 'within-tasks',
    progress = (total: number) => progressBar('aggregate', total),
  } = settings;
  const rng = new Rng(seed);
  const wholeRuns = resample === 'whole-runs';
  const pairs = (algorithms.length * (algorithms.length - 1)) / 2;
  const bar = progress(reps * (algorithms.length + pairs));
  let before = 0;
  const ticking = () => {
    const offset = before;
    before += reps;
    return (done: number) => bar.tick(offset + done);
  };
  const perAlgorithm = algorithms.map(({ algorithm, path, runs, tasks, scores }) => {
    const { metrics, profile } = rliableAggregates(scores, {
      metrics: AGGREGATE_METRICS,
      taus,
      gamma,
      reps,
      wholeRuns,
      progress: ticking(),
      rng: rng.fork(`aggregate/${algorithm}`),
    });
    const shown = withoutCertainty(runs.length);
    const aggregates = Object.fromEntries(
      AGGREGATE_METRICS.map((metric) => [metric, shown(metrics[metric]!)]),
    ) as Record<AggregateMetric, Estimate>;
    return {
      algorithm,
      path,
      runs: runs.length,
      tasks: tasks.length,
      ...aggregates,
      profile: profile.map(({ tau, ...estimate }) => ({ tau, ...shown(estimate) })),
    };
  });
  const improvements = algorithms.flatMap((earlier, i) =>
    algorithms.slice(i + 1).map((later) => ({
      x: later.algorithm,
      y: earlier.algorithm,
      // Fewer than 2 runs on either side: that side's runs are not redrawn, its spread not counted.
      ...withoutCertainty(Math.min(later.runs.length, earlier.runs.length))(
        probabilityOfImprovementInterval(later.scores, earlier.scores, {
          reps,
          wholeRuns,
          progress: ticking(),
          rng: rng.fork(`improvement/${later.algorithm}>${earlier.algorithm}`),
        }),
      ),
    })),
  );
  bar.done();
  return {
    reps,
    defaultReps: defaultReps(algorithms),
    seed,
    gamma,
    level: 0.95,
    resample,
    tauScale,
    taus,
    algorithms: perAlgorithm,
    improvements,
  };
}
