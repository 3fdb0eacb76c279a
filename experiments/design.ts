/**
 * The training design on the held-out tasks (docs/TRAINING-DESIGN.md, sections 3 and 4), not adopted.
 *
 * Question: in the design the chapter describes (RL seeds from one base agent, a task order,
 *   minibatches), is 17.4's seed spread the chapter's? How much of the training noise comes from
 *   the base agent and how much from the RL seed? Does restarting Adam every 10 steps matter?
 * Reads the committed studies of studies/design-held-out: chapter-17.4 (4 RL seeds, two
 *   320-episode evaluations at step 30), chapter-harness and base-1 to base-3 (base agents 0 to
 *   3, their first 4 RL seeds: the nested study), uninterrupted (one Adam, paired by RL seed with
 *   chapter-harness at step 80), and untrained-words.json (chapter-harness's step-80 agents with
 *   their held-out-only words redrawn, written by `npm run exp:design-words`). Study 2 itself
 *   (chapter-harness and our-harness, 16 seeds) is read by exp:recipe-claims beside the default's.
 * Command: npm run exp:design [-- --seed S]
 * Runtime: reads the studies' job outputs; the coverage simulations of the nested split take a
 *   few seconds.
 * Output: results/design.json, results/design.md. A part whose studies are absent or not finished
 *   says so.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { finishedStudy, loadResults, type StudyResults } from '../study/index.ts';
import { designNumbers, parseUntrainedWords, UNTRAINED_WORDS_FILE } from '../analysis/index.ts';
import { isMain, runScript } from '../lib/script.ts';
import { parseStatisticsOptions } from './common.ts';
import { ROOT } from '../lib/paths.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/design.ts';
import { InputError, UsageError } from '../lib/errors.ts';
import { readRegularFile } from '../lib/files.ts';

/** RL seeds per base agent in the nested study (docs/TRAINING-DESIGN.md, section 3). */
const PER_BASE = 4;
const STUDIES = 'studies/design-held-out';

/** exp:design-words' record at `path`, checked; a file that is not one is a one-line InputError naming it. */
function readUntrainedWords(path: string) {
  let value: unknown;
  try {
    value = JSON.parse(readRegularFile(path));
  } catch (error) {
    if (error instanceof SyntaxError) throw new InputError(`${path}: not JSON (${error.message})`);
    throw error;
  }
  return parseUntrainedWords(value, path);
}

export async function main({
  seed = 0,
  outDir = join(ROOT, 'results'),
  studiesDir = join(ROOT, STUDIES),
}: { seed?: number; outDir?: string; studiesDir?: string } = {}) {
  const finished = (name: string): StudyResults | undefined => {
    const state = finishedStudy(join(studiesDir, name));
    return state.state === 'finished' ? loadResults(state.plan) : undefined;
  };
  const segmented = finished('chapter-harness');
  const bases = [segmented, ...['base-1', 'base-2', 'base-3'].map(finished)];
  const wordsFile = join(studiesDir, UNTRAINED_WORDS_FILE);
  const numbers = designNumbers({
    chapter: finished('chapter-17.4'),
    bases: bases.every((results) => results !== undefined) ? (bases as StudyResults[]) : undefined,
    segmented,
    uninterrupted: finished('uninterrupted'),
    untrainedWords: existsSync(wordsFile)
      ? { record: readUntrainedWords(wordsFile), where: wordsFile }
      : undefined,
    perGroup: PER_BASE,
    seed,
  });
  writeResults(outDir, {
    section: 'design',
    title: 'The training design on the held-out tasks (not adopted)',
    seed,
    smoke: false,
    config: { studiesDir: STUDIES, perBase: PER_BASE },
    numbers,
    ...report(numbers),
    echo: true,
  });
  return numbers;
}

if (isMain(import.meta.url)) {
  await runScript('exp:design', async () => {
    const { smoke, ...options } = parseStatisticsOptions();
    if (smoke) throw new UsageError('exp:design has no smoke run: it reads the committed design studies');
    await main(options);
  });
}
