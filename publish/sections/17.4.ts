/** The report of 17.4 (experiments/17.4.ts): seed noise against evaluation noise, a paired comparison, power. */
import type { Numbers174 as Numbers } from '../../analysis/index.ts';
import {
  blocks,
  interval,
  oursAgainstBook,
  pct,
  range,
  reading,
  section,
  signed,
  table,
  whereOursDiffers,
  type Report,
} from '../markdown.ts';

/** The book's paired and unpaired SEs (17.4) and its tasks for 5 points: 533 per group unpaired, about 17 paired. */
const BOOK_PAIRING = { seRatio: 0.132 / 0.023, tasksRatio: 533 / 17 };

const BOOK = {
  repeat: 'two evaluations differ by at most 0.028',
  evalSD: '0.016 (binomial 0.025)',
  seedMeans: '0.706 to 0.720',
  trainingSD: '0',
  power: 'about 103 paired tasks for 2 points, about 17 for 5; 533 per group unpaired for 5',
};

interface Context {
  run: string;
  seeds: readonly number[];
  /** Episodes in one evaluation (every held-out task, `episodes` times). */
  episodesPerEvaluation: number;
}

const correlationText = (correlation: number) => (Number.isNaN(correlation) ? 'n/a' : correlation.toFixed(2));
const unitsText = (units: number | null) => (units === null ? 'n/a (no spread measured)' : String(units));

/** Why our paired difference differs from the book's +0.041: the size of the difference and the per-task correlation, from the data. */
function pairedDifference({ difference, low, high, correlation, step60, step80 }: Numbers['paired']) {
  const learning =
    Math.abs(difference) > 0.041
      ? `our run is still learning between the two (${pct(step60)} at step 60 against ${pct(step80)} at step 80), so there is more to detect`
      : `our run has mostly settled by step 60 (${pct(step60)} against ${pct(step80)} at step 80), so there is less to detect`;
  const moving =
    !Number.isNaN(correlation) && correlation < 0.97
      ? ', and its per-task rates move more between the two checkpoints'
      : '';
  return whereOursDiffers(
    `the book's step 60 and step 80 differ by +0.041 with a paired interval above 0; ours differ by ${signed(difference)} and the interval ${low > 0 || high < 0 ? 'excludes' : 'includes'} 0, and the per-task correlation is ${correlationText(correlation)} against 0.97: ${learning}${moving}.`,
  );
}

/** What pairing buys here against the book: the SE ratio and the unpaired design's tasks per group over the paired tasks. */
function pairingBuys({ seRatio, tasksRatio }: Numbers['pairing'], correlation: number): string {
  const ratios = tasksRatio
    .filter((row) => row.ratio !== null)
    .map((row) => `${row.ratio!.toFixed(1)} times at ${Math.round(row.delta * 100)} points`)
    .join(' and ');
  return whereOursDiffers(
    `pairing buys less here than in the book: the paired SE is ${seRatio.toFixed(1)} times smaller than the unpaired one (the book: ${BOOK_PAIRING.seRatio.toFixed(1)} times, 0.132 / 0.023), and an unpaired design needs ${ratios === '' ? 'n/a (no spread measured)' : ratios} as many tasks per group as the paired design needs tasks (the book: ${BOOK_PAIRING.tasksRatio.toFixed(1)} times at 5 points, 533 / 17, about 30). Our per-task correlation between the two checkpoints is ${correlationText(correlation)} against the book's 0.97, so pairing cancels less of the task-to-task spread.`,
  );
}

function noiseSection({ repeats, noise }: Numbers, { seeds, episodesPerEvaluation }: Context): string {
  return section(
    `Seed noise against evaluation noise: ${seeds.length} seeds, each checkpoint evaluated twice (${episodesPerEvaluation} episodes each, every seed's evaluations with seeds of their own)`,
    table(repeats, {
      seed: (row) => row.trainingSeed,
      step: (row) => row.step,
      'first evaluation': (row) => pct(row.first),
      second: (row) => pct(row.second),
      difference: (row) => signed(row.difference),
    }),
    table(noise, {
      step: (row) => row.step,
      'largest repeat difference': (row) => pct(row.maxRepeatDifference),
      'SD of one evaluation': (row) => pct(row.evalSD),
      'binomial SD': (row) => pct(row.binomialSD),
      'seed means': (row) => row.seedMeans.map(pct).join(', '),
      'training-noise SD (moments)': (row) => pct(row.trainingSD),
      'book (step 30)': () =>
        `${BOOK.repeat}; SD ${BOOK.evalSD}; seed means ${BOOK.seedMeans}; training noise ${BOOK.trainingSD}`,
    }),
    [
      reading(
        'the SD of one evaluation is what two evaluations of one checkpoint disagree by; only the spread of seed means beyond it is training noise. The binomial SD treats 320 episodes as independent, which they are not (17.3).',
      ),
      whereOursDiffers(
        `the book finds training noise 0 (seed means 0.706 to 0.720 at step 30); ours is ${noise.map((row) => `${pct(row.trainingSD)} at step ${row.step} (seed means ${range(row.seedMeans)})`).join(' and ')}, well above one evaluation's SD: our seeds learn at different speeds and each can leave a held-out task behind (17.7, docs/TRAINING.md), so a difference between two of our runs needs several seeds per side.`,
      ),
    ],
  );
}

function pairedSection({ paired }: Numbers, { run, episodesPerEvaluation }: Context): string {
  return section(
    `Paired comparison with common random numbers: step 60 against step 80 of ${run}, the same ${episodesPerEvaluation} episodes`,
    oursAgainstBook([
      [
        'step 80 - step 60 [paired task-level 95%]',
        `${signed(paired.difference)} ${interval(paired, signed)}`,
        '+0.041 [+0.006, +0.087]',
      ],
      ['paired SE / unpaired SE', `${pct(paired.pairedSE)} / ${pct(paired.unpairedSE)}`, '0.023 / 0.132'],
      ['per-task correlation', correlationText(paired.correlation), '0.97'],
    ]),
    [
      reading(
        'the same tasks and episodes for both checkpoints cancel the task-to-task spread, so the paired SE is a fraction of the unpaired one.',
      ),
      pairedDifference(paired),
    ],
  );
}

function powerSection({ power, spreads, pairing, paired }: Numbers): string {
  return section(
    'Power: units needed to detect a difference (two-sided 5%, power 0.8)',
    table(power, {
      difference: (row) => `${Math.round(row.delta * 100)} points`,
      'paired tasks': (row) => unitsText(row.pairedTasks),
      'unpaired tasks per group': (row) => unitsText(row.unpairedTasksPerGroup),
      'seeds per group (step-80 spread)': (row) => unitsText(row.seedsPerGroupStep80),
      'seeds per group (step-30 spread, as the book)': (row) => unitsText(row.seedsPerGroupStep30),
      book: () => BOOK.power,
    }),
    `From the measured spreads: SD of per-task differences ${pct(spreads.differenceSD)}, SD of per-task pass rates ${pct(spreads.taskSD)}, SD of seed means at step 80 ${pct(spreads.seedSDStep80)} and at step 30 ${pct(spreads.seedSDStep30)} (the book measured its seeds at step 30).`,
    [pairingBuys(pairing, paired.correlation)],
  );
}

export function report(numbers: Numbers, context: Context): Report {
  return {
    markdown: blocks(noiseSection(numbers, context), pairedSection(numbers, context), powerSection(numbers)),
  };
}
