/** The report of exercise 7 (experiments/ex-7.ts): the design review of a reported improvement. */
import type { NumbersEx7 as Numbers } from '../../analysis/index.ts';
import { lineChartSvg } from '../figures.ts';
import { reading, section, table, type Report } from '../markdown.ts';

const f = (value: number | null) => (value === null ? 'n/a' : value.toFixed(4));
const needed = (value: number | null, max: number) => (value === null ? `more than ${max}` : String(value));

export async function report({
  claim,
  review,
  withTrainingNoise,
  correlatedSelection,
}: Numbers): Promise<Report> {
  const rows = (r: typeof review) =>
    table(r.paired, {
      'per-task correlation': (row) => row.correlation.toFixed(2),
      'paired SE': (row) => f(row.pairedSE),
      z: (row) => (row.z === null ? 'n/a' : row.z.toFixed(2)),
      'samples per task needed': (row) => needed(row.samplesNeeded, 10_000),
      'seeds per arm needed': (row) => needed(row.seedsNeeded, 1_000),
      'floor (tasks only)': (row) => f(row.floorSE),
    });
  const markdown = section(
    `The claim: ${claim.a} -> ${claim.b} on ${claim.tasks} tasks, ${claim.samples} sample per task, ${claim.seeds} seed per arm, best of ${claim.selectedFrom} checkpoints`,
    table(
      [
        ['SE of one arm (sqrt(p(1-p)/N))', `${f(review.seA)}, ${f(review.seB)}`],
        ['SE of the difference, unpaired', f(review.unpaired.se)],
        ['z of the reported difference, unpaired', review.unpaired.z?.toFixed(2) ?? 'n/a'],
        ['SE that detects it (alpha 0.05, power 0.8)', f(review.targetSE)],
        [
          `selection inflation sigma E[max of ${claim.selectedFrom}], independent evaluations (an upper bound)`,
          `${f(review.selection.evaluationSD)} x ${review.selection.expectedMax.toFixed(3)} = ${f(review.selection.inflation)}`,
        ],
        [
          `the same for checkpoints correlated ${correlatedSelection.correlation.toFixed(2)} (17.4's step 60 and 80), sigma sqrt(1 - r) E[max]`,
          f(correlatedSelection.inflation),
        ],
      ] as const,
      { quantity: (row) => row[0], value: (row) => row[1] },
    ),
    `Paired, by the per-task correlation (intraclass correlation ${claim.icc} assumed; training noise left out):`,
    rows(review),
    'The same with a training-noise SD of 0.01 per arm (one seed cannot measure it):',
    rows(withTrainingNoise),
    reading(
      `the chapter's arithmetic: SE about 0.022 per arm and 0.031 for the difference, so +${(claim.b - claim.a).toFixed(3)} is ${review.unpaired.z?.toFixed(2)} SE unpaired, and the best of five checkpoints is expected to read at most ${f(review.selection.inflation)} high on its own (five independent evaluations), about the whole difference; checkpoints of one run on the same tasks correlate, and at 17.4's ${correlatedSelection.correlation.toFixed(2)} the expected inflation is ${f(correlatedSelection.inflation)}, ${((100 * correlatedSelection.inflation) / (claim.b - claim.a)).toFixed(0)}% of it. Pairing helps only as far as the per-task correlation is high; more samples shrink only the within-task part, so below the task-level floor no number of samples reaches the SE needed; training noise adds a term that only more seeds remove.`,
    ),
  );
  const figure = await lineChartSvg({
    title: 'SE of the difference by per-task correlation (500 tasks, 1 sample)',
    xTitle: 'per-task correlation',
    yTitle: 'SE of the difference',
    series: [
      { name: 'paired SE', points: review.paired.map((row) => ({ x: row.correlation, y: row.pairedSE })) },
      {
        name: 'floor (infinitely many samples)',
        points: review.paired.map((row) => ({ x: row.correlation, y: row.floorSE })),
      },
    ],
    rules: [{ y: review.targetSE, label: 'SE that detects +0.024 (power 0.8)' }],
  });
  return { markdown, figures: { 'ex-7-se-by-correlation.svg': figure } };
}
