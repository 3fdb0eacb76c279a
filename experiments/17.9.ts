/**
 * 17.9 Design problems in practice.
 *
 * Question: three ways an evaluation misleads. (1) Evaluation noise: how far apart are small
 *   evaluations of one checkpoint? (2) Harness drift: what does the stacker canary score under
 *   the training harness and under the plain env? (3) Reusing the training reward: what does the
 *   gaming policy score when the evaluation counts public-test reward instead of hidden-test
 *   success?
 * Command: npm run exp:17.9 [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: a few seconds with a trained checkpoint.
 * Output: results/17.9.json, results/17.9.md.
 */
import { makeTasks, plainEnv, trainingHarness } from '../gym/index.ts';
import { designProblemNumbers } from '../analysis/index.ts';
import { isMain, runScript } from '../lib/script.ts';
import { writeResults } from '../publish/results.ts';
import { report } from '../publish/sections/17.9.ts';
import { ensureRun, evaluateOnCores, parseRunOptions, runOptions, type RunOptions } from './runs.ts';

const NOISE_EVALS = 8;

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const at = await ensureRun(run, { smoke, steps: [80] });

  // (1) Eight evaluations of 4 episodes per held-out task (40 episodes each), each with its own seed.
  const noise = [];
  for (let i = 0; i < NOISE_EVALS; i += 1)
    noise.push(
      (await evaluateOnCores({ checkpoint: at(80), episodes: 4, seed: `${seed}/noise/${i}` })).passAt1,
    );

  // (2) and (3): scripted canaries on the held-out tasks, as the book's figures are; the scripted policies need no checkpoint.
  const tasks = makeTasks('heldout');
  const episodes = smoke ? 2 : 10;
  const scripted = (policy: 'stacker' | 'gamer', harness: ReturnType<typeof trainingHarness>) =>
    evaluateOnCores({ scripted: policy, harness, tasks, episodes, seed });
  const numbers = designProblemNumbers({
    noise,
    stacker: {
      train: await scripted('stacker', trainingHarness()),
      plain: await scripted('stacker', plainEnv()),
    },
    gamer: {
      public: await scripted('gamer', trainingHarness({ reward: 'public' })),
      hidden: await scripted('gamer', trainingHarness()),
    },
  });
  const config = {
    run,
    noiseEvaluations: NOISE_EVALS,
    episodesPerTask: 4,
    scriptedEpisodesPerTask: episodes,
    scriptedTasks: tasks.length,
  };
  writeResults(outDir, {
    section: '17.9',
    title: 'Design problems in practice',
    seed,
    smoke,
    config,
    numbers,
    echo: isMain(import.meta.url),
    ...report(numbers, config),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('exp:17.9', () => main(parseRunOptions(process.argv.slice(2))));
