import { AGGREGATE_REPS, standardDeviationInterval } from '../eval/index.ts';
import { evaluationOf, type StudyResults } from '../study/index.ts';
import { improvement, stepAggregates } from './aggregates.ts';

/**
 * What `tinyagent study report` records of a finished study: every seed's pass@1 at every
 * measured step, and per step the mean over seeds, the SD and range over seeds and the
 * interquartile mean over seeds x tasks, each interval over seeds from `stepAggregates` (a seed
 * the unit, the function `exp:seeds` prints them with), and the probability that step 80 improves
 * on step 0 (`improvement`). Every number is a function of the job outputs and the study's eval
 * seed alone. `mixedCode`: which jobs were made by other code than the rest, and how it differs
 * (agent/fingerprint.ts), in a report merged with --allow-mixed.
 */
export function studyReportNumbers(results: StudyResults, { mixedCode }: { mixedCode?: string } = {}) {
  const { plan } = results;
  const perSeed = results.seeds.map((seed) => ({
    seed,
    passAt1: plan.measure.steps.map((step) => evaluationOf(results, seed, step).passAt1),
  }));
  const steps = plan.measure.steps.map((step, i) => {
    const values = perSeed.map((row) => row.passAt1[i]!);
    const { mean, iqm } = stepAggregates(results, step, { seed: plan.evalSeed });
    return {
      step,
      mean,
      // Only with two seeds or more: one seed has no spread to measure, and it is null, never 0.
      sd: values.length > 1 ? standardDeviationInterval(values) : null,
      min: Math.min(...values),
      max: Math.max(...values),
      iqm,
    };
  });
  return {
    recipe: plan.recipe,
    configHash: plan.configHash,
    seeds: plan.seeds,
    episodes: plan.measure.episodes,
    perSeed,
    steps,
    reps: AGGREGATE_REPS,
    // Only when the study evaluated step 80: an undefined number is null, never a guess.
    probabilityOfImprovement: plan.measure.steps.includes(80)
      ? improvement(results, 80, 0, { seed: plan.evalSeed })
      : null,
    // Only when asked to merge outputs of different code (`study report --allow-mixed`).
    ...(mixedCode !== undefined ? { mixedCode } : {}),
  };
}

export type StudyReportNumbers = ReturnType<typeof studyReportNumbers>;
