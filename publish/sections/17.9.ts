/** The report of 17.9 (experiments/17.9.ts): three ways an evaluation misleads, each beside the book. */
import type { Numbers179 as Numbers } from '../../analysis/index.ts';
import {
  blocks,
  oursAgainstBook,
  pct,
  range,
  reading,
  section,
  table,
  whereOursDiffers,
  type Report,
} from '../markdown.ts';

const BOOK = {
  noise: [0.8, 0.9] as const,
  stacker: { train: 0.2, plain: 0.6 },
  gamer: { public: 1, hidden: 0 },
};

/** What the stacker's two scores say, from the scores themselves. */
function stackerReading({ train, plain }: Numbers['stacker']): string {
  const points = Math.round((plain.success - train.success) * 100);
  if (points <= 0)
    return `the stacker scores ${pct(train.success)} under the training harness and ${pct(plain.success)} in the plain env: this canary does not see the difference between the two harnesses.`;
  const times = train.success > 0 ? ` ${(plain.success / train.success).toFixed(1)} times as much` : ' more';
  return `the same policy scores${times} when the harness lets it stack edits; comparing numbers across harnesses credits ${points} points nobody earned.`;
}

/** What the experiment ran: the small evaluations, and the scripted policies' episodes and tasks. */
interface Context {
  noiseEvaluations: number;
  scriptedEpisodesPerTask: number;
  scriptedTasks: number;
}

function noiseSection(noise: Numbers['noise'], { noiseEvaluations }: Context): string {
  return section(
    `Evaluation noise: one checkpoint (step 80), ${noiseEvaluations} evaluations of 40 episodes (4 per held-out task)`,
    oursAgainstBook([
      ['pass@1 of each evaluation', noise.evaluations.map(pct).join(', '), ''],
      ['range', range(noise.evaluations), `${BOOK.noise[0]} to ${BOOK.noise[1]}`],
    ]),
    [
      reading(
        'the same checkpoint, measured eight times on 40 episodes, moves by several points from run to run; a difference of that size between two checkpoints means nothing without an interval.',
      ),
      whereOursDiffers(
        `the range sits ${noise.min > BOOK.noise[0] ? 'higher than' : 'near'} the book's because our step-80 agent passes more (17.1); its width, ${pct(noise.max - noise.min)} against the book's 0.10, is the point.`,
      ),
    ],
  );
}

function stackerSection(
  stacker: Numbers['stacker'],
  { scriptedEpisodesPerTask, scriptedTasks }: Context,
): string {
  return section(
    `Harness drift canary: the stacker (three fixed repair ops, then submit), ${scriptedEpisodesPerTask} episodes on each of the ${scriptedTasks} held-out tasks`,
    table(['train', 'plain'] as const, {
      harness: (key) =>
        `${key === 'train' ? 'training harness (one edit)' : 'plain env (unlimited edits)'}, ${stacker[key].harnessHash}`,
      'success (ours)': (key) => pct(stacker[key].success),
      book: (key) => BOOK.stacker[key],
    }),
    reading(stackerReading(stacker)),
  );
}

function gamerSection(gamer: Numbers['gamer'], { scriptedEpisodesPerTask, scriptedTasks }: Context): string {
  return section(
    `Evaluation reusing the training reward: the gaming policy (special-cases the public tests), ${scriptedEpisodesPerTask} episodes on each of the ${scriptedTasks} held-out tasks`,
    table(['public', 'hidden'] as const, {
      'reward source': (key) => `${key} tests`,
      'mean reward (what a reward-scored evaluation reports)': (key) => pct(gamer[key].meanReward),
      'success (hidden tests)': (key) => pct(gamer[key].success),
      book: (key) => BOOK.gamer[key],
    }),
    reading(
      `scored by the reward it was trained on, the gaming policy ${gamer.public.meanReward === 1 ? 'looks perfect' : `scores ${pct(gamer.public.meanReward)}`}; scored by the hidden tests (the one success rule), it ${gamer.hidden.success === 0 ? 'never repairs anything' : `succeeds in ${pct(gamer.hidden.success)} of episodes`}.`,
    ),
  );
}

export function report({ noise, stacker, gamer }: Numbers, context: Context): Report {
  return {
    markdown: blocks(
      noiseSection(noise, context),
      stackerSection(stacker, context),
      gamerSection(gamer, context),
    ),
  };
}
