/**
 * Coverage of every interval the project reports, at the designs its results use, in two worlds.
 *
 * Question: does each nominal-95% interval cover a known truth 95% of the time at the sizes the
 *   results report it at, in the world of the committed studies and in one fitted to them
 *   (analysis/coverageWorld.ts; docs/CLAIMS.md, section 7)? In each world every truth is exact
 *   (binomial sums over the world's seeds and tasks) and every episode a fresh Bernoulli draw.
 *   Designs: 16 seeds x 10 tasks x 64 episodes (the study: a claim's rate, the mean, IQM,
 *   profile and P(improvement) over seeds, the noise SDs, 17.8's figures) and its first 8 seeds
 *   (a recipe of exp:recipe-claims); 10 tasks x 32 episodes (one checkpoint's evaluation: 17.1,
 *   17.5, 17.8, ex-3, ex-4); 5 tasks x 1 sample (a small log at the boundary, where the task
 *   bootstrap falls back to the exact interval); 16 + 8 seeds (`study compare`). Beside them the
 *   Wilson interval's exact coverage over the rates a claim can show, at 16 and 8 seeds.
 * Command: npm run exp:coverage [-- --seed S --smoke --out DIR]
 * Runtime: minutes of one core (2,000 simulations per world, bootstraps of 1,000 replicates,
 *   posteriors of 2,000 draws; MC SE of a coverage near 0.95 about 0.005); smoke: seconds.
 * Output: results/coverage.json, results/coverage.md.
 */
import { join } from 'node:path';
import {
  BOUNDARY,
  COMPARE,
  coverageNumbers,
  EVALUATION,
  loadWorlds,
  STUDY,
  STUDY8,
  type Sizes,
} from '../analysis/index.ts';
import { Rng } from '../lib/rng.ts';
import { DEFAULT_STUDY, ROOT } from '../lib/paths.ts';
import { isMain, runScript } from '../lib/script.ts';
import { parseStatisticsOptions, type StatisticsOptions } from './common.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/coverage.ts';

const SECOND_STUDY = 'studies/entropy-0-8';
/** Below this a method is flagged: more than about 4 MC SEs under 0.95 at 2,000 simulations. */
export const FLAG_BELOW = 0.93;

export async function main({ seed = 1, smoke, outDir }: StatisticsOptions) {
  const simulations = smoke ? 20 : 2_000;
  const sizes: Sizes = smoke ? { reps: 100, draws: 200 } : { reps: 1_000, draws: 2_000 };
  const worlds = loadWorlds(join(ROOT, DEFAULT_STUDY), join(ROOT, SECOND_STUDY), seed);
  const numbers = coverageNumbers({ worlds, simulations, sizes, flagBelow: FLAG_BELOW, rng: new Rng(seed) });
  writeResults(outDir, {
    section: 'coverage',
    title: 'Coverage of the intervals the project reports',
    seed,
    smoke,
    config: {
      simulations,
      ...sizes,
      studies: [DEFAULT_STUDY, SECOND_STUDY],
      worlds: worlds.map((world) => world.name),
      designs: [STUDY, STUDY8, EVALUATION, BOUNDARY, COMPARE],
    },
    numbers,
    echo: isMain(import.meta.url),
    ...report(numbers),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('exp:coverage', () => main(parseStatisticsOptions()));
