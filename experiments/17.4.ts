/**
 * 17.4 Comparing two training runs.
 *
 * Question: when two runs of one recipe differ, is it the training or the evaluation? Four
 *   seeds of the recipe, each seed's step-30 and step-80 checkpoints evaluated twice,
 *   independently: the SD of one evaluation against the binomial SD, the seed means, and the
 *   training-noise SD by the method of moments. Then a paired comparison with common random
 *   numbers (step 60 against step 80 of one run, on the same episodes), and the sample sizes a
 *   comparison needs (power).
 * Command: npm run exp:17.4 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: with trained checkpoints, 18 evaluations of 32 episodes per held-out task (four seeds'
 *   steps 30 and 80 twice each, and steps 60 and 80 paired); training the seeds first, when they
 *   are missing, takes what `npm run train` takes (README, results/train.json) for each (they are
 *   runs/seed-1 ... seed-3, shared with `npm run train -- --seeds 0,1,2,3`; seed 0 is the run
 *   itself when it is the default recipe, see `seedRun`).
 * Output: results/17.4.json, results/17.4.md.
 */
import { makeTasks } from '../gym/index.ts';
import { comparingRunsNumbers } from '../analysis/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/17.4.ts';
import { ensureRun, evaluateOnCores, parseRunOptions, runOptions, seedRun, type RunOptions } from './runs.ts';

const SEEDS = [0, 1, 2, 3];

/** Episodes in one evaluation: every held-out task, `episodes` times. */
const HELD_OUT_TASKS = makeTasks('heldout').length;

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const episodes = smoke ? 4 : 32;
  const seeds = smoke ? SEEDS.slice(0, 2) : SEEDS;

  // Seed noise against evaluation noise: every checkpoint evaluated twice, with independent episodes.
  const repeats = [];
  for (const trainingSeed of seeds) {
    const at = await ensureRun(seedRun(run, trainingSeed, smoke), {
      seed: trainingSeed,
      smoke,
      steps: [30, 80],
    });
    for (const step of [30, 80]) {
      // Each training seed has evaluation seeds of its own: two seeds' means share no random numbers,
      // as the training-noise estimate assumes.
      const [a, b] = [
        await evaluateOnCores({ checkpoint: at(step), episodes, seed: `${seed}/repeat/${trainingSeed}/a` }),
        await evaluateOnCores({ checkpoint: at(step), episodes, seed: `${seed}/repeat/${trainingSeed}/b` }),
      ];
      repeats.push({ trainingSeed, step, first: a.passAt1, second: b.passAt1 });
    }
  }

  // Common random numbers: step 60 and step 80 of one run on the same episodes (one seed for both).
  const at = await ensureRun(run, { smoke, steps: [60, 80] });
  const [early, late] = [
    await evaluateOnCores({ checkpoint: at(60), episodes, seed: `${seed}/paired` }),
    await evaluateOnCores({ checkpoint: at(80), episodes, seed: `${seed}/paired` }),
  ];
  const numbers = comparingRunsNumbers({
    repeats,
    episodesPerEvaluation: episodes * HELD_OUT_TASKS,
    early,
    late,
    rng: new Rng(seed),
  });
  writeResults(outDir, {
    section: '17.4',
    title: 'Comparing two training runs',
    seed,
    smoke,
    config: { run, seeds, episodes },
    numbers,
    echo: isMain(import.meta.url),
    ...report(numbers, { run, seeds, episodesPerEvaluation: episodes * HELD_OUT_TASKS }),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('exp:17.4', () => main(parseRunOptions(process.argv.slice(2))));
