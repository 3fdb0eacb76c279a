/**
 * 17.1 What a pass rate estimates (and 17.3 on the measured counts).
 *
 * Question: what does the base agent (step 0) and the trained agent (step 80) pass on the
 *   held-out tasks, task by task, and what do they do first? Then, on those counts: how wide are
 *   the episode-level and the task-level intervals, how correlated are a task's episodes (the
 *   moment estimate of the intraclass correlation rho) and what is the design effect 1 + (n-1) rho?
 * Command: npm run exp:17.1 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: about 10 s with trained checkpoints; training the default run first takes what
 *   `npm run train` takes (README, results/train.json).
 * Output: results/17.1.json, results/17.1.md.
 */
import { firstEditCounts } from '../gym/index.ts';
import {
  designEffect,
  episodeBootstrapCI,
  intraclassCorrelation,
  taskBootstrapCI,
  taskVarianceIntraclassCorrelation,
} from '../eval/index.ts';
import type { Evaluation } from '../agent/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/17.1.ts';
import {
  countsOf,
  ensureRun,
  evaluateOnCores,
  parseRunOptions,
  runOptions,
  type RunOptions,
} from './runs.ts';
import { coverageNote, EPISODE_BOOTSTRAP_METHOD, TASK_BOOTSTRAP_METHOD } from '../publish/coverageNotes.ts';

const STEPS = [0, 80] as const;

/** The 17.3 quantities of one evaluation's counts. */
function clusterSummary(evaluation: Evaluation, rng: Rng) {
  const counts = countsOf(evaluation.perTask);
  const episode = episodeBootstrapCI(counts, { rng: rng.fork('episode') });
  const task = taskBootstrapCI(counts, { rng: rng.fork('task') });
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

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const episodes = smoke ? 4 : 32;
  const at = await ensureRun(run, { smoke, steps: STEPS });
  const agents = [];
  for (const step of STEPS) {
    const evaluation = await evaluateOnCores({ checkpoint: at(step), episodes, seed });
    const firstEditByTask = Object.fromEntries(
      evaluation.perTask.map((count) => [
        count.name,
        firstEditCounts(evaluation.records.filter((record) => record.task === count.name)),
      ]),
    );
    agents.push({
      step,
      passAt1: evaluation.passAt1,
      perTask: evaluation.perTask,
      firstEditByTask,
      clusters: clusterSummary(evaluation, new Rng(seed).fork(`17.3/${step}`)),
      provenance: evaluation.provenance,
    });
  }
  const numbers = agents.map(({ provenance, ...rest }) => ({
    ...rest,
    harness: provenance.harness,
    harnessHash: provenance.harnessHash,
    checkpoint: provenance.checkpoint,
    backend: provenance.backend,
  }));
  writeResults(outDir, {
    section: '17.1',
    title: 'What a pass rate estimates',
    seed,
    smoke,
    config: { run, episodes, steps: STEPS },
    numbers,
    echo: isMain(import.meta.url),
    ...report(numbers, {
      episodes,
      coverage: coverageNote([TASK_BOOTSTRAP_METHOD, EPISODE_BOOTSTRAP_METHOD]),
    }),
  });
  return { agents: numbers };
}

if (isMain(import.meta.url)) await runScript('exp:17.1', () => main(parseRunOptions(process.argv.slice(2))));
