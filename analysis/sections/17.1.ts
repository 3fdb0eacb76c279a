/**
 * The numbers of 17.1 (experiments/17.1.ts), with 17.3 on the measured counts: each agent's pass
 * rate and per-task counts, its first edits task by task, and how wide its episode- and
 * task-level intervals are, with the intraclass correlation of a task's episodes.
 */
import { firstEditCounts } from '../../gym/index.ts';
import type { Evaluation } from '../../agent/index.ts';
import {
  DEFAULT_REPLICATES,
  designEffect,
  episodeBootstrapCI,
  intraclassCorrelation,
  taskBootstrapCI,
  taskVarianceIntraclassCorrelation,
} from '../../eval/index.ts';
import type { Rng } from '../../lib/rng.ts';
import { recordOf } from '../../lib/collections.ts';
import { countsOf } from '../counts.ts';

/** The 17.3 quantities of one evaluation's counts. */
function clusterSummary(evaluation: Evaluation, rng: Rng) {
  const counts = countsOf(evaluation.perTask);
  const episode = episodeBootstrapCI(counts, { rng: rng.fork('episode'), reps: DEFAULT_REPLICATES });
  const task = taskBootstrapCI(counts, { rng: rng.fork('task'), reps: DEFAULT_REPLICATES });
  const allSame =
    counts.successes.every((c, j) => c === counts.successes[0] && counts.trials[j] === counts.trials[0]) &&
    (counts.successes[0] === 0 || counts.successes[0] === counts.trials[0]);
  // The chapter's rho (between-task variance over mu (1 - mu), binomial noise taken out) is the
  // headline; the one-way ANOVA estimate stands beside it (docs/METRICS.md).
  const rho = allSame ? null : taskVarianceIntraclassCorrelation(counts);
  const rhoAnova = allSame ? null : intraclassCorrelation(counts);
  const n = evaluation.provenance.episodesPerTask;
  const effect = (value: number | null) =>
    value === null ? null : designEffect(n, Math.min(1, Math.max(value, -1 / (n - 1))));
  return {
    episodeLevel: { low: episode.low, high: episode.high, width: episode.high - episode.low },
    taskLevel: { low: task.low, high: task.high, width: task.high - task.low },
    widthRatio: episode.high > episode.low ? (task.high - task.low) / (episode.high - episode.low) : null,
    rho,
    designEffect: effect(rho),
    rhoAnova,
    designEffectAnova: effect(rhoAnova),
  };
}

/**
 * What 17.1 reports: one row per agent (the checkpoint at `step`), its intervals drawn from the
 * stream `17.3/<step>` of `rng`, and the harness and checkpoint its evaluation ran with.
 */
export function passRateNumbers<Step extends number>(
  agents: ReadonlyArray<{ step: Step; evaluation: Evaluation }>,
  rng: Rng,
) {
  return agents.map(({ step, evaluation }) => ({
    step,
    passAt1: evaluation.passAt1,
    perTask: evaluation.perTask,
    firstEditByTask: recordOf(
      evaluation.perTask.map((count) => count.name),
      (task) => firstEditCounts(evaluation.records.filter((record) => record.task === task)),
    ),
    clusters: clusterSummary(evaluation, rng.fork(`17.3/${step}`)),
    harness: evaluation.provenance.harness,
    harnessHash: evaluation.provenance.harnessHash,
    checkpoint: evaluation.provenance.checkpoint,
    backend: evaluation.provenance.backend,
  }));
}

/** The chapter's two agents: the base (step 0) and the trained one (step 80). */
export type Numbers171 = ReturnType<typeof passRateNumbers<0 | 80>>;
