/**
 * 17.6 Held-out splits and leakage.
 *
 * Question: does the trained agent generalise to a bug type it never saw, or only to new variants
 *   of the types it trained on? The recipe trained 30 steps on the four types other than `zero`
 *   (and on variants 0-3 only), then measured on the six `zero` tasks and on the eight held-out
 *   variants of the other types: pass@1, read calls, how often the first edit is right. Then the
 *   leakage audit: every channel by which held-out tasks reach training, the share of training
 *   episodes that carry a held-out function name, and the default run evaluated with the rename
 *   pool restricted to training names and to held-out names: two independent evaluations, each
 *   with its own episode seeds, and their difference with Welch's unpaired interval.
 * Command: npm run exp:17.6 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: from a fresh clone mostly training, first the type-split run (30 steps against the
 *   default run's 80, whose time results/train.json records), then the default run; once they
 *   exist, seconds: six evaluations of 32 episodes per task (steps 0 and 30 on each task set,
 *   step 80 of the run under each rename pool).
 * Output: results/17.6.json, results/17.6.md.
 */
import { HELD_OUT_VARIANTS, makeTasks } from '../gym/index.ts';
import { heldOutNumbers } from '../analysis/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/17.6.ts';
import {
  ensureRun,
  ensureTypeRun,
  evaluateOnCores,
  parseRunOptions,
  runOptions,
  stepOf,
  type RunOptions,
} from './runs.ts';

const HELD_OUT_TYPE = 'zero';

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const episodes = smoke ? 4 : 32;
  const { dir: typeRun, at: typeAt } = await ensureTypeRun(run, HELD_OUT_TYPE, smoke);
  const all = makeTasks('all');
  const unseenType = all.filter((task) => task.type === HELD_OUT_TYPE);
  const seenVariants = all.filter(
    (task) => task.type !== HELD_OUT_TYPE && HELD_OUT_VARIANTS.includes(task.variant),
  );
  const typeSplit = [];
  for (const step of [0, 30]) {
    for (const [set, tasks] of [
      ['unseen type (zero, 6 tasks)', unseenType],
      ['held-out variants of the seen types (8 tasks)', seenVariants],
    ] as const)
      typeSplit.push({
        step,
        set,
        evaluation: await evaluateOnCores({ checkpoint: typeAt(step), tasks, episodes, seed }),
      });
  }

  // Each pool gets an evaluation of its own, with episode seeds of its own: on shared seeds a
  // policy that ignores the name would play the same episodes twice, and a zero difference would
  // be forced. The difference is unpaired (Welch over the two evaluations' episodes).
  const at = await ensureRun(run, { smoke, steps: [80] });
  const pool = async (name: 'train' | 'heldout') => ({
    pool: name,
    evaluation: await evaluateOnCores({
      checkpoint: at(80),
      harness: { renamePool: name },
      episodes,
      seed: `${seed}/pool/${name}`,
    }),
  });
  const pools = [await pool('train'), await pool('heldout')] as const;
  const numbers = heldOutNumbers({ typeSplit, resets: smoke ? 500 : 20_000, pools, rng: new Rng(seed) });
  writeResults(outDir, {
    section: '17.6',
    title: 'Held-out splits and leakage',
    seed,
    smoke,
    config: { run, typeRun, episodes, heldOutType: HELD_OUT_TYPE },
    numbers,
    echo: isMain(import.meta.url),
    ...report(numbers, { episodes, heldOutType: HELD_OUT_TYPE, trainedSteps: stepOf(30, smoke) }),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('exp:17.6', () => main(parseRunOptions(process.argv.slice(2))));
