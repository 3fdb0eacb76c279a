/**
 * The report of the chapter's claims across recipes (experiments/recipe-claims.ts): each claim's
 * count, interval and standing per recipe by docs/CLAIMS.md, and where it stands across them.
 */
import type { ClaimName, NumbersRecipeClaims as Numbers, ValueClaimName } from '../../analysis/index.ts';
import { intervalChartSvg, intervalPoint } from '../figures.ts';
import { coverageNote } from '../coverageNotes.ts';
import { CLAIM_RATE_METHOD, TRAINING_SD_METHOD, eightSeeds, selectionMethod } from '../../analysis/index.ts';
import { interval as range, markdownTable, pct as f3, signed, table, type Report } from '../markdown.ts';
import { CLAIM_SHORT, CLAIM_TEXT, standingText } from './seeds.ts';

/** The short names the figures and the summary use. */
const SHORT: Record<ClaimName | ValueClaimName, string> = {
  ...CLAIM_SHORT,
  trainingNoise30: '17.4 training-noise SD at 30',
  winnersCurse: "17.8 winner's curse (ours)",
  bookCurse: "17.8 winner's curse (book's design)",
  greedy: '17.5 greedy - T 1.0',
  hot: '17.5 T 1.3 - T 1.0',
};
/** What each value claim says, and the line its standing is read against. */
const VALUE_TEXT: Record<ValueClaimName, string> = {
  trainingNoise30:
    '17.4: "highly reproducible across seeds" (the book\'s training-noise SD at step 30 is estimated at 0): fails when the chi-square 95% interval lies above 0, holds when its high end is below the evaluation-noise SD',
  winnersCurse:
    "17.8: the winner's curse is positive (the book's +0.03), ours: the pick's score on the first half of the test episodes minus on the second (t 95% over seeds)",
  bookCurse:
    "17.8: the winner's curse in the book's design: 8-episode-per-task evaluations each pick a step, the others score it (t 95% over seeds)",
  greedy:
    '17.5: greedy decoding moves step 80 by +0.03 to +0.04 (t 95% over seeds): agrees when the interval reaches that range',
  hot: '17.5: temperature 1.3 moves step 80 by -0.10 (t 95% over seeds): agrees when the interval reaches it',
};

function rateTable(numbers: Numbers, names: readonly string[]): string {
  return markdownTable(
    ['claim', ...names.map((name) => `${name}: seeds; two-stage 95%; detection`), 'across recipes'],
    numbers.rates.map((row) => [
      CLAIM_TEXT[row.claim],
      ...row.recipes.map(
        (cell) =>
          `${cell.holds}/${cell.seeds} ${range(cell.interval)}; ${cell.detection === null ? 'none' : f3(cell.detection)}: **${standingText(cell)}**`,
      ),
      row.across,
    ]),
  );
}

function valueTable(numbers: Numbers, names: readonly string[]): string {
  return markdownTable(
    ['claim', ...names.map((name) => `${name} (95%)`), 'across recipes'],
    numbers.values.map((row) => [
      VALUE_TEXT[row.claim],
      ...row.recipes.map(
        (cell) =>
          `${row.claim === 'trainingNoise30' ? f3(cell.estimate) : signed(cell.estimate)} ${range(cell)}${'evaluationNoise' in cell && cell.evaluationNoise !== undefined ? ` (evaluation noise ${f3(cell.evaluationNoise)})` : ''}: **${cell.standing}**${'power' in cell && cell.power !== undefined && cell.standing === 'not detected' ? ` (power ${f3(cell.power)})` : ''}`,
      ),
      row.across,
    ]),
  );
}

function recipeTable(numbers: Numbers): string {
  return table(numbers.recipes, {
    recipe: (recipe) => recipe.name,
    study: (_, i) => `\`${numbers.studies[i]!.study}\` (recipe \`${numbers.studies[i]!.recipe}\`)`,
    seeds: (recipe) => String(recipe.seeds.length),
    'step-80 held-out pass@1 over seeds': ({ step80 }) =>
      `mean ${f3(step80.mean)}, SD ${f3(step80.sd)} ${range(step80.sdInterval)}, ${f3(step80.min)} to ${f3(step80.max)}`,
  });
}

function acrossList(summary: Numbers['summary']): string {
  const list = (claims: ReadonlyArray<ClaimName | ValueClaimName>) =>
    claims.length === 0 ? 'none' : claims.map((claim) => SHORT[claim]).join('; ');
  return [
    `- Hold whatever the recipe: ${list(summary.holdsWhatever)}.`,
    `- Fail whatever the recipe: ${list(summary.failsWhatever)}.`,
    `- Agree with the book whatever the recipe: ${list(summary.agreesWhatever)}.`,
    `- Differ from the book whatever the recipe: ${list(summary.differsWhatever)}.`,
    `- Belong to a recipe: ${list(summary.belongsToRecipe)}.`,
    `- False by construction: ${list(summary.falseByConstruction)}.`,
    `- Open at these seeds: ${list(summary.open)}.`,
  ].join('\n');
}

export async function report(
  numbers: Numbers,
  { names, episodes, coverageFile }: { names: string[]; episodes: number; coverageFile: string },
): Promise<Report> {
  const markdown = [
    `Each recipe is a study on the 10 held-out tasks at every chapter step, ${episodes} episodes per task; each claim is computed as in results/seeds.json (\`seedClaims\`, each study's own eval seed) and judged by docs/CLAIMS.md: a verdict **holds** when its rate's two-stage interval lies above one half, **fails** when it lies below and its detection rate at the book's effect is at least 0.8, is **not detected** when it lies below with less power, and is **open** when it crosses one half; a magnitude **agrees** with the book when its interval reaches the book's value. Across recipes a claim holds (fails, agrees, differs) whatever the recipe when it does so in every recipe, **belongs to a recipe** when it holds in one and fails in another, and is open otherwise.`,
    recipeTable(numbers),
    '## Verdicts counted over seeds',
    rateTable(numbers, names),
    '## Values',
    valueTable(numbers, names),
    '## Across recipes',
    acrossList(numbers.summary),
    coverageNote(
      [
        CLAIM_RATE_METHOD,
        TRAINING_SD_METHOD,
        selectionMethod('winnersCurse'),
        selectionMethod('bookCurse'),
      ].flatMap((id) => [id, eightSeeds(id)]),
      coverageFile,
    ),
    ...(numbers.notRun.length === 0
      ? []
      : [
          `**Not run:** ${numbers.notRun.map((row) => `${row.name} (\`${row.study}\`: ${row.why})`).join('; ')}.`,
        ]),
    ...(numbers.mixedCode.length === 0
      ? []
      : ['**Mixed code.** ' + numbers.mixedCode.map(({ name, text }) => `${name}: ${text}.`).join(' ')]),
  ].join('\n\n');
  return { markdown, figures: await figures(numbers) };
}

async function figures(numbers: Numbers): Promise<NonNullable<Report['figures']>> {
  const rates = await intervalChartSvg({
    title: 'Share of seeds in which each claim holds, per recipe (two-stage 95%); the line at one half',
    xTitle: '',
    yTitle: 'share of seeds',
    points: numbers.rates.flatMap((row) =>
      row.recipes.map((cell) => intervalPoint(SHORT[row.claim], cell.recipe, cell.fraction, cell.interval)),
    ),
    rules: [{ y: 0.5, label: 'one half' }],
    width: 760,
  });
  const valuePoints = numbers.values.flatMap((row) =>
    row.recipes.map((cell) => intervalPoint(SHORT[row.claim], cell.recipe, cell.estimate, cell)),
  );
  const reach = Math.max(
    0.05,
    ...valuePoints.flatMap((point) => [Math.abs(point.low), Math.abs(point.high)]),
  );
  const values = await intervalChartSvg({
    title:
      "17.4's training-noise SD at step 30 (chi-square 95%), 17.8's winner's curse and 17.5's moves (t 95% over seeds), per recipe",
    xTitle: '',
    yTitle: 'pass@1',
    points: valuePoints,
    rules: [{ y: 0, label: '0' }],
    yDomain: [-Math.ceil(reach * 20) / 20, Math.ceil(reach * 20) / 20],
    width: 760,
  });
  return { 'recipe-claims-rates.svg': rates, 'recipe-claims-values.svg': values };
}
