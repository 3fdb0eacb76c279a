/**
 * The chapter's claims across seeds.
 *
 * Question: is each claim of the chapter a property of the recipe or of one seed? A committed
 *   study of the default recipe (at least 16 seeds, every chapter step, 64 episodes per held-out
 *   task), judged by docs/CLAIMS.md: each claim's verdict in every seed (the book's reading as the
 *   headline, other readings beside it) with its resample support, the rate over seeds with the
 *   two-stage interval, the detection rate at the book's effect and the standing; every held-out
 *   task's trajectory and its steepest drop; 17.4's noise SDs; 17.8's winner's curse in ours and
 *   in the book's design; 17.5's magnitudes; 17.3's base rho; the mean, IQM, profiles and
 *   P(improvement) over seeds (whole seeds redrawn).
 * Command: npm run exp:seeds [-- --study DIR --seed S --out DIR]
 * Runtime: under a minute on 2 cores (most of it the episode resamples and the 50,000-replicate
 *   intervals); it reads the study's job outputs, which `tinyagent study run` makes.
 * Quotes: results/coverage.json's measured coverage of its intervals: the committed file, or in
 *   exp:all, test:repro and the rebaseline the one the batch wrote (`resultsToQuote`).
 * Output: results/seeds.json, results/seeds.md, results/figures/seeds-*.svg (results/<study name>/
 *   for a study other than studies/default-16).
 */
import { basename, join, resolve } from 'node:path';
import { readPlan, loadResults } from '../study/index.ts';
import { seedClaims, SELECTION_FIGURES } from '../analysis/index.ts';
import { UsageError } from '../lib/errors.ts';
import { DEFAULT_STUDY, ROOT } from '../lib/paths.ts';
import { resultsToQuote, type BatchResults } from './common.ts';
import { isMain, parseScriptFlags, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/seeds.ts';
import { coverageNote } from '../publish/coverageNotes.ts';
import {
  CLAIM_RATE_METHOD,
  EVALUATION_SD_METHOD,
  IMPROVEMENT_METHOD,
  IQM_METHOD,
  MEAN_OVER_SEEDS_METHOD,
  PROFILE_METHOD,
  TRAINING_SD_METHOD,
  WILSON_METHOD,
  selectionMethod,
} from '../analysis/index.ts';

/** The interval methods seeds.md prints whose coverage exp:coverage measures. */
const SEEDS_COVERAGE = [
  CLAIM_RATE_METHOD,
  WILSON_METHOD,
  MEAN_OVER_SEEDS_METHOD,
  IQM_METHOD,
  PROFILE_METHOD,
  IMPROVEMENT_METHOD,
  TRAINING_SD_METHOD,
  EVALUATION_SD_METHOD,
  ...SELECTION_FIGURES.map(selectionMethod),
];

export interface SeedsOptions {
  study: string;
  seed: number;
  outDir: string;
  batch: BatchResults | undefined;
}

export async function main(options: Partial<SeedsOptions> = {}) {
  const study = options.study ?? join(ROOT, DEFAULT_STUDY);
  const outDir =
    options.outDir ??
    (resolve(study) === resolve(ROOT, DEFAULT_STUDY)
      ? join(ROOT, 'results')
      : join(ROOT, 'results', basename(study)));
  const plan = readPlan(study);
  // The study's own eval seed by default, so that the aggregates equal the study report's.
  const seed = options.seed ?? plan.evalSeed;
  const numbers = seedClaims(loadResults(plan), { seed });
  const smoke = plan.measure.stepScale !== 1;
  writeResults(outDir, {
    section: 'seeds',
    title: "The chapter's claims across seeds",
    seed,
    smoke,
    config: {
      study: basename(study),
      recipe: plan.recipe,
      configHash: plan.configHash,
      seeds: plan.seeds,
      measure: plan.measure,
    },
    numbers,
    echo: isMain(import.meta.url),
    ...(await report(numbers, {
      study: basename(study),
      recipe: plan.recipe,
      coverage: coverageNote(SEEDS_COVERAGE, resultsToQuote('coverage', options.batch)),
      seed,
    })),
  });
  return numbers;
}

function parseSeedsOptions(argv: string[]): Partial<SeedsOptions> {
  const values = parseScriptFlags(
    argv,
    { study: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' } },
    '--study DIR, --seed S, --out DIR',
  );
  if (values.seed !== undefined && !/^\d{1,9}$/.test(values.seed))
    throw new UsageError(`--seed must be a decimal integer, got '${values.seed}'`);
  return {
    ...(values.study !== undefined ? { study: values.study } : {}),
    ...(values.seed !== undefined ? { seed: Number(values.seed) } : {}),
    ...(values.out !== undefined ? { outDir: resolve(values.out) } : {}),
  };
}

if (isMain(import.meta.url))
  await runScript('exp:seeds', () => main(parseSeedsOptions(process.argv.slice(2))));
