import { join } from 'node:path';
import { fileSystemError } from '../lib/files.ts';
import { loadResults, splitName, type Plan } from '../study/index.ts';
import { studyReportNumbers, type StudyReportNumbers } from '../analysis/index.ts';
import { writeResults } from './results.ts';
import type { Fingerprint } from '../agent/index.ts';
import { intervalChartSvg, intervalPoint } from './figures.ts';
import { blocks, markdownTable, table, withInterval } from './markdown.ts';
import { coverageNote } from './coverageNotes.ts';
import { IMPROVEMENT_METHOD, IQM_METHOD } from '../analysis/index.ts';

const f3 = (value: number | null) => (value === null ? 'n/a' : value.toFixed(3));

/** The study's pass@1 of every seed at every step, with the IQM and its interval. */
function passFigure(plan: Plan, { steps, perSeed }: StudyReportNumbers) {
  return intervalChartSvg({
    title: `${capitalised(splitName(plan))} pass@1 of every seed (${plan.seeds.length} seeds, ${plan.measure.episodes} episodes per task), with the IQM and its 95% interval (whole seeds redrawn)`,
    xTitle: 'chapter step',
    yTitle: `${splitName(plan)} pass@1`,
    points: [
      ...steps.map((row) => intervalPoint(`step ${row.step}`, 'IQM [95%]', row.iqm.estimate, row.iqm)),
      ...perSeed.flatMap((row) =>
        plan.measure.steps.map((step, i) =>
          intervalPoint(`step ${step}`, 'seeds', row.passAt1[i]!, { low: null, high: null }),
        ),
      ),
    ],
  });
}

/** study.md: the recipe and its seeds, the table by step, what the mean and IQM say, P(improvement), every seed's pass@1. */
function studyMarkdown(plan: Plan, numbers: StudyReportNumbers): string {
  const { steps, perSeed, mixedCode } = numbers;
  return blocks(
    ...(mixedCode === undefined
      ? []
      : [
          `**Mixed code.** These outputs were made by different code (merged with --allow-mixed): ${mixedCode}. A difference between their numbers may come from the code, not the seeds.`,
        ]),
    `Recipe \`${plan.recipe}\` (config hash ${plan.configHash}), seeds ${plan.seeds.join(', ')}; every evaluation ${plan.measure.episodes} episodes per ${splitName(plan)} task under the training harness, its eval seed forked from study seed ${plan.evalSeed} by the training seed.`,
    table(steps, {
      step: (row) => row.step,
      'mean [t 95% on seed means]': (row) => withInterval(row.mean),
      'SD over seeds [chi-square 95%]': (row) => (row.sd === null ? 'n/a' : withInterval(row.sd)),
      min: (row) => f3(row.min),
      max: (row) => f3(row.max),
      'IQM [whole seeds redrawn, 95%]': (row) => withInterval(row.iqm),
    }),
    `Means and IQMs are over the seed x task pass rates; the IQM drops the lowest and the highest quarter of them, so a task that collapses in a few seeds moves the mean and not the IQM: read the two side by side. A seed is one policy evaluated on every task, so it is the unit: the mean's interval is the t interval on the seed means, the IQM's and P(improvement)'s redraw whole seeds (${numbers.reps.toLocaleString('en-US')} replicates).`,
    numbers.probabilityOfImprovement === null
      ? 'Probability of improvement P(step 80 > step 0): not measured (the study has no step 80).'
      : `Probability of improvement P(step 80 > step 0) over seeds x tasks: ${withInterval(numbers.probabilityOfImprovement)} (whole seeds redrawn, 95%).`,
    coverageNote([IQM_METHOD, IMPROVEMENT_METHOD]),
    markdownTable(
      ['seed', ...plan.measure.steps.map((step) => `step ${step}`)],
      perSeed.map((row) => [row.seed, ...row.passAt1.map(f3)]),
    ),
  );
}

/**
 * Merges a finished study's evaluations into `<study>/results/`: study.json (its numbers,
 * `studyReportNumbers`), study.md and figures/study-pass.svg. Every number is a function of the
 * job outputs and the study's eval seed alone, so the same plan gives the same report wherever
 * its jobs ran (generatedAt aside).
 */
export async function writeStudyReport(
  plan: Plan,
  { mixedCode, outputsFingerprint }: { mixedCode?: string; outputsFingerprint?: Fingerprint } = {},
): Promise<{ outDir: string; numbers: StudyReportNumbers }> {
  const numbers = studyReportNumbers(loadResults(plan), mixedCode !== undefined ? { mixedCode } : {});
  const figure = await passFigure(plan, numbers);
  const markdown = studyMarkdown(plan, numbers);
  const outDir = join(plan.dir, 'results');
  try {
    writeResults(outDir, {
      section: 'study',
      title: `Seed study of the ${plan.recipe} recipe`,
      seed: plan.evalSeed,
      smoke: plan.measure.stepScale !== 1,
      config: {
        recipe: plan.recipe,
        configHash: plan.configHash,
        seeds: plan.seeds,
        measure: plan.measure,
        // What made the job outputs these numbers are computed from (the file's own fingerprint is the report's process).
        ...(outputsFingerprint !== undefined ? { outputsFingerprint } : {}),
      },
      numbers,
      markdown,
      figures: { 'study-pass.svg': figure },
    });
  } catch (error) {
    throw fileSystemError(error, outDir);
  }
  return { outDir, numbers };
}

const capitalised = (text: string) => `${text[0]!.toUpperCase()}${text.slice(1)}`;
