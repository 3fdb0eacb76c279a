import { join } from 'node:path';
import { mean, probabilityOfImprovement, sampleStandardDeviation, stratifiedIqm } from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';
import { diskError, evaluationOf, loadResults, taskRates, type Plan } from '../study/index.ts';
import { writeResults } from './common.ts';
import { intervalChartSvg } from './figures.ts';
import { markdownTable } from './report/markdown.ts';

const f3 = (value: number | null) => (value === null ? 'n/a' : value.toFixed(3));

/**
 * Merges a finished study's evaluations into `<study>/results/`: study.json (every seed's
 * held-out pass@1 at every chapter step, the mean, SD and range over seeds, the interquartile
 * mean over seeds x tasks with a stratified bootstrap interval, and the probability that step 80
 * improves on step 0), study.md and figures/study-pass.svg. Every number is a function of the
 * job outputs and the study's eval seed alone, so the same plan gives the same report wherever
 * its jobs ran (generatedAt aside).
 */
export async function writeStudyReport(plan: Plan): Promise<{ outDir: string; numbers: StudyReportNumbers }> {
  const results = loadResults(plan);
  const rng = new Rng(plan.evalSeed).fork('report');
  const perSeed = results.seeds.map((seed) => ({
    seed,
    passAt1: plan.measure.steps.map((step) => evaluationOf(results, seed, step).passAt1),
  }));
  const steps = plan.measure.steps.map((step, i) => {
    const values = perSeed.map((row) => row.passAt1[i]!);
    return {
      step,
      mean: mean(values),
      sd: values.length > 1 ? sampleStandardDeviation(values) : null,
      min: Math.min(...values),
      max: Math.max(...values),
      iqm: stratifiedIqm(taskRates(results, step), { reps: 2000, rng: rng.fork(`iqm/${step}`) }),
    };
  });
  const numbers: StudyReportNumbers = {
    recipe: plan.recipe,
    configHash: plan.configHash,
    seeds: plan.seeds,
    episodes: plan.measure.episodes,
    perSeed,
    steps,
    // Only when the study evaluated step 80: an undefined number is null, never a guess.
    probabilityOfImprovement: plan.measure.steps.includes(80)
      ? probabilityOfImprovement(taskRates(results, 80), taskRates(results, 0))
      : null,
  };
  const figure = await intervalChartSvg({
    title: `Held-out pass@1 of every seed (${plan.seeds.length} seeds, ${plan.measure.episodes} episodes per task), with the IQM and its stratified 95% interval`,
    xTitle: 'chapter step',
    yTitle: 'held-out pass@1',
    points: [
      ...steps.map((row) => ({
        group: `step ${row.step}`,
        series: 'IQM [95%]',
        estimate: row.iqm.estimate,
        low: row.iqm.low,
        high: row.iqm.high,
      })),
      ...perSeed.flatMap((row) =>
        plan.measure.steps.map((step, i) => ({
          group: `step ${step}`,
          series: 'seeds',
          estimate: row.passAt1[i]!,
          low: row.passAt1[i]!,
          high: row.passAt1[i]!,
        })),
      ),
    ],
  });
  const markdown = [
    `Recipe \`${plan.recipe}\` (config hash ${plan.configHash}), seeds ${plan.seeds.join(', ')}; every evaluation ${plan.measure.episodes} episodes per held-out task under the training harness, its eval seed forked from study seed ${plan.evalSeed} by the training seed.`,
    '',
    markdownTable(
      ['step', 'mean', 'SD over seeds', 'min', 'max', 'IQM [stratified 95%]'],
      steps.map((row) => [
        row.step,
        f3(row.mean),
        f3(row.sd),
        f3(row.min),
        f3(row.max),
        `${f3(row.iqm.estimate)} [${f3(row.iqm.low)}, ${f3(row.iqm.high)}]`,
      ]),
    ),
    '',
    `Probability of improvement P(step 80 > step 0) over seeds x tasks: ${f3(numbers.probabilityOfImprovement)}.`,
    '',
    markdownTable(
      ['seed', ...plan.measure.steps.map((step) => `step ${step}`)],
      perSeed.map((row) => [row.seed, ...row.passAt1.map(f3)]),
    ),
  ].join('\n');
  const outDir = join(plan.dir, 'results');
  try {
    writeResults(outDir, {
      section: 'study',
      title: `Seed study of the ${plan.recipe} recipe`,
      seed: plan.evalSeed,
      smoke: plan.measure.stepScale !== 1,
      config: { recipe: plan.recipe, configHash: plan.configHash, seeds: plan.seeds, measure: plan.measure },
      numbers,
      markdown,
      figures: { 'study-pass.svg': figure },
    });
  } catch (error) {
    throw diskError(error, outDir);
  }
  return { outDir, numbers };
}

export interface StudyReportNumbers {
  recipe: string;
  configHash: string;
  seeds: number[];
  episodes: number;
  perSeed: Array<{ seed: number; passAt1: number[] }>;
  steps: Array<{
    step: number;
    mean: number;
    sd: number | null;
    min: number;
    max: number;
    iqm: { estimate: number; low: number; high: number };
  }>;
  probabilityOfImprovement: number | null;
}
