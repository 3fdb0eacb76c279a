/**
 * Exercise 7. The design review of a reported improvement.
 *
 * Question: a colleague reports that a new advantage estimator lifts SWE-bench Verified pass@1
 *   from 41.0% to 43.4%, one training run per arm, one sample per task, the checkpoint the best
 *   of the last five. What is the SE of the difference unpaired and paired, how much of it can
 *   the selection explain, and how many seeds and samples would detect it? The arithmetic is
 *   `tinyagent review` (the same `designReview`); this script records it for the chapter's claim.
 * Command: npm run ex:7 [-- --seed S --smoke --out DIR]   (or: npx tinyagent review --a 0.410
 *   --b 0.434 --tasks 500 --samples 1 --seeds 1 --selection best-of-5)
 * Runtime: seconds, most of it starting node and drawing the figure (no random draws: the seed is
 *   recorded only).
 * Quotes: results/17.4.json's measured correlation of the paired step-60 and step-80 evaluations:
 *   the committed file, or in exp:all, test:repro and the rebaseline the one the batch wrote
 *   (`resultsToQuote`).
 * Output: results/ex-7.json, results/ex-7.md, results/figures/ex-7-se-by-correlation.svg.
 */
import { readFileSync } from 'node:fs';
import { designReviewNumbers } from '../analysis/index.ts';
import { isMain, runScript } from '../lib/script.ts';
import { parseStatisticsOptions, resultsToQuote, type BatchResults } from './common.ts';
import { ROOT } from '../lib/paths.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/ex-7.ts';

/** The chapter's claim, with the assumptions the review states (intraclass correlation; training noise left out, then 0.01). */
export const CLAIM = { a: 0.41, b: 0.434, tasks: 500, samples: 1, seeds: 1, selectedFrom: 5, icc: 0.5 };

export async function main({
  seed = 0,
  smoke = false,
  outDir = `${ROOT}/results`,
  batch,
}: { seed?: number; smoke?: boolean; outDir?: string; batch?: BatchResults } = {}) {
  // 17.4's measured correlation of its paired step-60 and step-80 evaluations (`resultsToQuote`).
  const measured = JSON.parse(readFileSync(resultsToQuote('17.4', batch), 'utf8')) as {
    numbers: { paired: { correlation: number } };
  };
  const numbers = designReviewNumbers(CLAIM, {
    source: 'results/17.4.json numbers.paired.correlation',
    correlation: measured.numbers.paired.correlation,
  });
  writeResults(outDir, {
    section: 'ex-7',
    title: 'The design review',
    seed,
    smoke,
    config: { claim: CLAIM },
    numbers,
    echo: isMain(import.meta.url),
    ...(await report(numbers)),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('ex:7', () => main(parseStatisticsOptions()));
