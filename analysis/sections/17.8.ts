/**
 * The numbers of 17.8 (experiments/17.8.ts): choosing a checkpoint without touching the test set.
 * Validation and test pass rates by checkpoint and the checkpoint each picks; the winner's curse
 * measured on small evaluations and simulated; the seeds' step-30 checkpoints with episode- and
 * task-level intervals (Figure 17.4).
 */
import type { Evaluation } from '../../agent/index.ts';
import {
  DEFAULT_REPLICATES,
  episodeBootstrapCI,
  expectedMaxNormal,
  mean,
  sampleVariance,
  taskBootstrapCI,
  winnersCurseSimulation,
} from '../../eval/index.ts';
import type { Rng } from '../../lib/rng.ts';
import { countsOf } from '../counts.ts';

/**
 * One checkpoint's pass rates on the validation and test halves, with their task-level intervals
 * (streams `validation/<step>` and `test/<step>`), and each test task's successes in the order of
 * the test half.
 */
function selectionRow(
  { step, validation, test }: { step: number; validation: Evaluation; test: Evaluation },
  rng: Rng,
) {
  const interval = (side: 'validation' | 'test', result: Evaluation) =>
    taskBootstrapCI(countsOf(result.perTask), { reps: DEFAULT_REPLICATES, rng: rng.fork(`${side}/${step}`) });
  const [validationInterval, testInterval] = [interval('validation', validation), interval('test', test)];
  return {
    step,
    validation: validation.passAt1,
    validationLow: validationInterval.low,
    validationHigh: validationInterval.high,
    test: test.passAt1,
    testLow: testInterval.low,
    testHigh: testInterval.high,
    testCounts: test.perTask.map((count) => count.successes),
  };
}

/**
 * The winner's curse, measured: `scores[e][i]` is small evaluation e's score of candidate i; each
 * evaluation picks its best candidate (ties to the later), which is then scored on the others.
 */
function curseOf(scores: readonly (readonly number[])[], candidates: readonly number[]) {
  const picks = scores.map((row, e) => {
    const index = row.reduce((top, value, i) => (value >= row[top]! ? i : top), 0);
    return {
      evaluation: e,
      step: candidates[index]!,
      onPicking: row[index]!,
      onRest: mean(scores.filter((_, other) => other !== e).map((other) => other[index]!)),
    };
  });
  const onPicking = mean(picks.map((pick) => pick.onPicking));
  const onRest = mean(picks.map((pick) => pick.onRest));
  // The SE of one small evaluation, measured: each candidate's SD over the evaluations, pooled.
  const evaluationSD = Math.sqrt(
    mean(candidates.map((_, i) => sampleVariance(scores.map((row) => row[i]!)))),
  );
  return { picks, onPicking, onRest, optimism: onPicking - onRest, evaluationSD };
}

/**
 * What 17.8 reports (every draw from the stream `17.8` of `rng`): the split's task names, the
 * table by checkpoint and the checkpoint each half picks (ties to the later: more training for
 * the same score), the winner's curse with the candidates sharing each evaluation's seed and with
 * seeds of their own, the curse simulated at the validation pick's test rate, and the seeds.
 */
export function selectionNumbers({
  split,
  table: evaluated,
  curse,
  candidates,
  seeds,
  rng: parent,
}: {
  split: { validation: ReadonlyArray<{ name: string }>; test: ReadonlyArray<{ name: string }> };
  table: ReadonlyArray<{ step: number; validation: Evaluation; test: Evaluation }>;
  curse: { sharedSeed: readonly number[][]; independentSeeds: readonly number[][] };
  candidates: readonly number[];
  seeds: ReadonlyArray<{ seed: number; evaluation: Evaluation }>;
  rng: Rng;
}) {
  const rng = parent.fork('17.8');
  const table = evaluated.map((row) => selectionRow(row, rng));
  const best = (side: 'validation' | 'test') =>
    table.reduce((top, row) => (row[side] >= top[side] ? row : top));
  const byValidation = best('validation');
  return {
    split: {
      validation: split.validation.map((task) => task.name),
      test: split.test.map((task) => task.name),
    },
    table,
    byValidation,
    byTest: best('test'),
    curse: {
      sharedSeed: curseOf(curse.sharedSeed, candidates),
      independentSeeds: curseOf(curse.independentSeeds, candidates),
    },
    simulated: {
      ...winnersCurseSimulation({
        checkpoints: 8,
        episodes: 160,
        passRate: byValidation.test,
        rng: rng.fork('simulated'),
      }),
      e8: expectedMaxNormal(8),
    },
    seeds: seeds.map(({ seed, evaluation }) => {
      const counts = countsOf(evaluation.perTask);
      return {
        seed,
        passAt1: evaluation.passAt1,
        episodeLevel: episodeBootstrapCI(counts, { rng: rng.fork(`seed${seed}/episode`) }),
        taskLevel: taskBootstrapCI(counts, { rng: rng.fork(`seed${seed}/task`) }),
      };
    }),
  };
}

export type Numbers178 = ReturnType<typeof selectionNumbers>;
