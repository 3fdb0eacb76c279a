/**
 * 17.9 Design problems in practice.
 *
 * Question: three ways an evaluation misleads. (1) Evaluation noise: how far apart are small
 *   evaluations of one checkpoint? (2) Harness drift: what does the stacker canary score under
 *   the training harness and under the plain env? (3) Reusing the training reward: what does the
 *   gaming policy score when the evaluation counts public-test reward instead of hidden-test
 *   success?
 * Command: npm run exp:17.9 [-- --run DIR --seed S --smoke]
 * Runtime: a few seconds with a trained checkpoint.
 * Output: results/17.9.json, results/17.9.md.
 */
import { makeTasks, plainEnv, trainingHarness } from '../gym/index.ts';
import { isMain, runScript, writeResults } from './common.ts';
import { markdownTable, pct } from './report/markdown.ts';
import { ensureRun, evaluateOnCores, parseRunOptions, runOptions, type RunOptions } from './runs.ts';

const BOOK = {
  noise: [0.8, 0.9] as const,
  stacker: { train: 0.2, plain: 0.6 },
  gamer: { public: 1, hidden: 0 },
};
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

  // (2) and (3): scripted canaries on all 30 tasks; the scripted policies need no checkpoint.
  const tasks = makeTasks('all');
  const episodes = smoke ? 2 : 10;
  const scripted = async (policy: 'stacker' | 'gamer', harness: ReturnType<typeof trainingHarness>) => {
    const result = await evaluateOnCores({ scripted: policy, harness, tasks, episodes, seed });
    const meanReward = result.records.reduce((sum, record) => sum + record.reward, 0) / result.records.length;
    return { success: result.passAt1, meanReward, harnessHash: result.provenance.harnessHash };
  };
  const stacker = {
    train: await scripted('stacker', trainingHarness()),
    plain: await scripted('stacker', plainEnv()),
  };
  const gamer = {
    public: await scripted('gamer', trainingHarness({ reward: 'public' })),
    hidden: await scripted('gamer', trainingHarness()),
  };

  const markdown = [
    `## Evaluation noise: one checkpoint (step 80), ${NOISE_EVALS} evaluations of 40 episodes (4 per held-out task)`,
    '',
    markdownTable(
      ['', 'ours', 'book'],
      [
        ['pass@1 of each evaluation', noise.map(pct).join(', '), ''],
        [
          'range',
          `${pct(Math.min(...noise))} to ${pct(Math.max(...noise))}`,
          `${BOOK.noise[0]} to ${BOOK.noise[1]}`,
        ],
      ],
    ),
    '',
    'Reading: the same checkpoint, measured eight times on 40 episodes, moves by several points from run to run; a difference of that size between two checkpoints means nothing without an interval.',
    `Where ours differs: the range sits ${Math.min(...noise) > BOOK.noise[0] ? 'higher than' : 'near'} the book's because our step-80 agent passes more (17.1); its width, ${pct(Math.max(...noise) - Math.min(...noise))} against the book's 0.10, is the point.`,
    '',
    `## Harness drift canary: the stacker (three fixed repair ops, then submit), ${episodes} episodes on each of the 30 tasks`,
    '',
    markdownTable(
      ['harness', 'success (ours)', 'book'],
      [
        [
          `training harness (one edit), ${stacker.train.harnessHash}`,
          pct(stacker.train.success),
          BOOK.stacker.train,
        ],
        [
          `plain env (unlimited edits), ${stacker.plain.harnessHash}`,
          pct(stacker.plain.success),
          BOOK.stacker.plain,
        ],
      ],
    ),
    '',
    'Reading: the same policy scores three times as much when the harness lets it stack edits; comparing numbers across harnesses credits 40 points nobody earned.',
    '',
    '## Evaluation reusing the training reward: the gaming policy (special-cases the public tests)',
    '',
    markdownTable(
      [
        'reward source',
        'mean reward (what a reward-scored evaluation reports)',
        'success (hidden tests)',
        'book',
      ],
      [
        ['public tests', pct(gamer.public.meanReward), pct(gamer.public.success), BOOK.gamer.public],
        ['hidden tests', pct(gamer.hidden.meanReward), pct(gamer.hidden.success), BOOK.gamer.hidden],
      ],
    ),
    '',
    'Reading: scored by the reward it was trained on, the gaming policy looks perfect; scored by the hidden tests (the one success rule), it never repairs anything.',
  ].join('\n');
  const numbers = {
    noise: { evaluations: noise, min: Math.min(...noise), max: Math.max(...noise) },
    stacker,
    gamer,
  };
  writeResults(outDir, {
    section: '17.9',
    title: 'Design problems in practice',
    seed,
    smoke,
    config: { run, noiseEvaluations: NOISE_EVALS, episodesPerTask: 4, scriptedEpisodesPerTask: episodes },
    numbers,
    markdown,
    echo: isMain(import.meta.url),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('exp:17.9', () => main(parseRunOptions(process.argv.slice(2))));
