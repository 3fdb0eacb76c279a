/** The report of the recipe comparison (experiments/recipes.ts): pass@1 by step, the noise, the rule line by line, the choice. */
import type { NumbersRecipes as Numbers } from '../../analysis/index.ts';
import { coverageNote } from '../coverageNotes.ts';
import { eightSeeds, MEAN_OVER_SEEDS_METHOD, TRAINING_SD_METHOD } from '../../analysis/index.ts';
import {
  blocks,
  interval,
  markdownTable,
  pct as f3,
  section,
  signed,
  table,
  withInterval,
} from '../markdown.ts';

const yes = (value: boolean) => (value ? 'yes' : 'no');
const NONE_RAN = 'No candidate has run.';

function stepTable(candidates: Numbers['candidates'], steps: readonly number[]): string {
  if (candidates.length === 0) return NONE_RAN;
  return markdownTable(
    ['candidate', 'seeds', ...steps.flatMap((step) => [`step ${step} mean [95%]`, `step ${step} SD`])],
    candidates.map((c) => [
      c.name,
      String(c.seeds.length),
      ...c.steps.flatMap((s) => [withInterval(s.mean), f3(s.sd.estimate)]),
    ]),
  );
}

function noiseTable(candidates: Numbers['candidates']): string {
  if (candidates.length === 0) return NONE_RAN;
  return table(candidates, {
    candidate: (c) => c.name,
    'training-noise SD at 30 [95%]': (c) => withInterval(c.noise30.training),
    'evaluation-noise SD at 30 [95%]': (c) => withInterval(c.noise30.evaluation),
    'IQM at 80 [95%]': (c) => withInterval(c.steps[2]!.iqm),
  });
}

function ruleTable(rule: Numbers['rule']): string {
  return table(rule, {
    candidate: (row) => row.name,
    design: (row) =>
      row.difference.design === 'paired t' ? `paired t, ${row.difference.seeds.length} seeds` : 'Welch',
    'step-80 difference [99%]': (row) => `${signed(row.difference.difference)} ${interval(row.difference)}`,
    'lower end > 0': (row) => yes(row.above),
    'power at the largest gain': (row) =>
      row.powerAtLargestGain === null ? 'n/a' : f3(row.powerAtLargestGain),
    'read at 95%': (row) =>
      `${row.difference95.low > 0 ? 'better' : row.difference95.high < 0 ? 'worse' : 'not shown better or worse'} (95% ${interval(row.difference95)})`,
    'training noise at 30 <= default': (row) => `${yes(row.steadier)} (${f3(row.trainingNoise30)})`,
    qualifies: (row) => yes(row.qualifies),
  });
}

function designSection(check: NonNullable<Numbers['designCheck']>): string {
  const outcome =
    check.status === 'passed'
      ? `${check.adopted} passes: it is the new design, to be measured on the held-out tasks (docs/TRAINING-DESIGN.md, section 3)`
      : check.status === 'none-passed'
        ? 'no candidate passes: the default stays the current design, and the new design is reported beside it, labelled not adopted'
        : `pending: ${check.notRun.join(', ')} not run yet`;
  return section(
    'The training design on the development split',
    `The pre-registered check (${check.protocol}): a candidate learns when its step-80 mean is at least ${check.learnsAt.toFixed(2)} and the lower end of its t interval lies above the upper end of step 0's; it is no less stable when its step-30 training-noise SD is at or below the default's above (${f3(check.baselineNoise)}). The candidates run in order; the first that passes both is the design.`,
    check.rows.length === 0
      ? NONE_RAN
      : table(check.rows, {
          candidate: (row) => row.name,
          'step 0 mean [95%]': (row) => withInterval(row.steps[0]!.mean),
          'step 30 mean [95%]': (row) => withInterval(row.steps[1]!.mean),
          'step 80 mean [95%]': (row) => withInterval(row.steps[2]!.mean),
          learns: (row) => yes(row.learns),
          'training-noise SD at 30 [95%]': (row) => withInterval(row.noise30.training),
          'no less stable': (row) => yes(row.stable),
          passes: (row) => yes(row.passes),
        }),
    `**Outcome:** ${outcome}.`,
  );
}

/** recipes.md: `steps` are the steps the candidates were measured at; `coverageFile` the coverage results it quotes. */
export function report(
  { tasks, candidates, rule, choice, designCheck, mixedCode }: Numbers,
  { steps, coverageFile }: { steps: readonly number[]; coverageFile: string },
): { markdown: string } {
  const defaultRan = candidates.some((candidate) => candidate.name === 'default');
  const markdown = blocks(
    `Development split (${tasks.join(', ')}): no held-out task is played. The protocol, fixed before any candidate ran, is docs/RECIPES.md.`,
    section('Pass@1 by step', stepTable(candidates, steps)),
    section('Noise at step 30, IQM at step 80', noiseTable(candidates)),
    section(
      'The rule (99% intervals, Bonferroni over five comparisons)',
      rule.length === 0
        ? `Not applied: ${defaultRan ? 'no other candidate has run' : 'the default has not run'}.`
        : ruleTable(rule),
      `The 99% intervals' coverage is not simulated at 8 seeds (results/coverage.md simulates the paired t at 95%). ${coverageNote([eightSeeds(MEAN_OVER_SEEDS_METHOD), eightSeeds(TRAINING_SD_METHOD)], coverageFile)} The IQM's interval at 8 seeds is not simulated.`,
      `**Choice:** ${choice.text}.`,
    ),
    ...(designCheck === null ? [] : [designSection(designCheck)]),
    ...(mixedCode.length === 0
      ? []
      : ['**Mixed code.** ' + mixedCode.map(({ name, text }) => `${name}: ${text}.`).join(' ')]),
  );
  return { markdown };
}
