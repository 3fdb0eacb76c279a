/**
 * Recipes compared over seeds on the development split, and the pre-registered choice.
 *
 * Question: which training recipe should the project use, chosen as docs/RECIPES.md fixed before
 *   any candidate ran? Each candidate is a study of 8 seeds (studies/recipes-dev/NAME, a
 *   `devSplit` recipe: trained outside the development split, evaluated on its five tasks, no
 *   held-out task played). For each: pass@1 at steps 0, 30 and 80 (mean with the t interval on
 *   the seed means, IQM with whole seeds redrawn, SD with its chi-square interval), step 30's training- and
 *   evaluation-noise SDs, and step 80's difference from the default with a 99% interval
 *   (Bonferroni over five comparisons; paired t on the seeds that share their step-0 agent and
 *   episodes, else Welch); then the rule, line by line, and the choice. Then the training design's
 *   pre-registered check (docs/TRAINING-DESIGN.md, section 2): its candidates
 *   (studies/design-dev/NAME) in order, each read for learning and stability, until one passes.
 * Command: npm run exp:recipes [-- --seed S]
 * Runtime: reads the committed studies' job outputs (`tinyagent study run` makes them: 8
 *   trainings and their evaluations per candidate, docs/STUDIES.md, "How long it takes"); seconds,
 *   most of it the 50,000-replicate intervals.
 * Quotes: results/coverage.json's measured coverage of its intervals: the committed file, or in
 *   exp:all, test:repro and the rebaseline the one the batch wrote (`resultsToQuote`).
 * Output: results/recipes.json, results/recipes.md. Candidates not yet run (no study, or one
 *   with jobs not done) are listed as such, and the choice waits for all of them.
 */
import { join } from 'node:path';
import { finishedStudy, loadResults } from '../study/index.ts';
import { recipesNumbers } from '../analysis/index.ts';
import { isMain, runScript } from '../lib/script.ts';
import { parseStatisticsOptions, resultsToQuote, type BatchResults } from './common.ts';
import { ROOT } from '../lib/paths.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/recipes.ts';
import { UsageError } from '../lib/errors.ts';

/** The pre-registered candidates (docs/RECIPES.md, section 1), in its table's order: a tie goes to the earlier. */
export const CANDIDATES = ['default', 'entropy-0', 'lr-0.0005', 'epochs-2', 'kl-0.1', 'bc-160'] as const;
/** Bonferroni over the five comparisons with the default (docs/RECIPES.md, section 3). */
const RULE_LEVEL = 1 - 0.05 / 5;
const STEPS = [0, 30, 80] as const;
/** The training design's candidates, in the pre-registered order (docs/TRAINING-DESIGN.md, section 2): studies/design-dev/NAME. */
const DESIGN_CANDIDATES = ['design-1', 'design-2', 'design-3', 'design-4', 'design-5', 'design-6'] as const;

/** The candidates among `names` whose study in `dir` has finished, with their results and whether mixed code made them. */
function finishedCandidates(dir: string, names: readonly string[]) {
  return names.flatMap((name) => {
    const state = finishedStudy(join(dir, name));
    return state.state === 'finished' ? [{ name, ...state }] : [];
  });
}

export async function main({
  seed = 0,
  outDir = join(ROOT, 'results'),
  studiesDir = join(ROOT, 'studies', 'recipes-dev'),
  designsDir = join(ROOT, 'studies', 'design-dev'),
  batch,
}: { seed?: number; outDir?: string; studiesDir?: string; designsDir?: string; batch?: BatchResults } = {}) {
  // A candidate counts once every evaluation of its study is done; one still running is not run yet.
  const finished = finishedCandidates(studiesDir, CANDIDATES);
  const designs = finishedCandidates(designsDir, DESIGN_CANDIDATES);
  const numbers = recipesNumbers({
    candidates: CANDIDATES,
    loaded: new Map(finished.map(({ name, plan }) => [name, loadResults(plan)])),
    // Which code made each candidate's outputs (study report's rule, agent/fingerprint.ts): named, not refused here.
    mixedCode: [...finished, ...designs].flatMap(({ name, mixedCode: text }) =>
      text === undefined ? [] : [{ name, text }],
    ),
    designs: new Map(designs.map(({ name, plan }) => [name, loadResults(plan)])),
    designOrder: DESIGN_CANDIDATES,
    steps: STEPS,
    ruleLevel: RULE_LEVEL,
    seed,
  });
  writeResults(outDir, {
    section: 'recipes',
    title: 'Recipes over seeds on the development split',
    seed,
    smoke: false,
    config: {
      studiesDir: 'studies/recipes-dev',
      candidates: CANDIDATES,
      designsDir: 'studies/design-dev',
      designCandidates: DESIGN_CANDIDATES,
      steps: STEPS,
      ruleLevel: RULE_LEVEL,
    },
    numbers,
    ...report(numbers, { steps: STEPS, coverageFile: resultsToQuote('coverage', batch) }),
    echo: true,
  });
  return numbers;
}

if (isMain(import.meta.url)) {
  await runScript('exp:recipes', async () => {
    const { smoke, ...options } = parseStatisticsOptions();
    if (smoke) throw new UsageError('exp:recipes has no smoke run: it reads the committed candidate studies');
    await main(options);
  });
}
