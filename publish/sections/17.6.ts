/** The report of 17.6 (experiments/17.6.ts): the type split, then the leakage audit channel by channel. */
import type { Numbers176 as Numbers } from '../../analysis/index.ts';
import {
  blocks,
  count,
  interval,
  markdownTable,
  oursAgainstBook,
  pct,
  reading,
  section,
  signed,
  table,
  whereOursDiffers,
  type Report,
} from '../markdown.ts';

const BOOK = {
  variants: '0.148 -> 0.930',
  unseen: "0.031, below the base agent's 0.125",
  reads: '1.41 read calls per episode',
  firstEdit: 'first edit right in 3% of episodes',
  namesShare: '0.34 (10 of 29 candidates)',
  pools: { train: '0.844', heldout: '0.863' },
  poolDifference: '+0.019, within the evaluation noise of 17.4 (SD of one evaluation about 0.016)',
};

interface Context {
  episodes: number;
  heldOutType: string;
  /** Training steps of the type-split checkpoint measured (the chapter's 30, or its smoke stand-in). */
  trainedSteps: number;
}

/** The book's figure for a row of the type split: which checkpoint, which set of tasks. */
function bookTypeSplit({ step, set }: Numbers['typeSplit'][number]): string {
  if (set.startsWith('unseen'))
    return step === 0 ? 'base 0.125' : `${BOOK.unseen}; ${BOOK.reads}; ${BOOK.firstEdit}`;
  return step === 0 ? '0.148' : BOOK.variants;
}

/** Where the type split departs from the book's: the held-out variants' level and the unseen type's read calls. */
function typeSplitDifference(typeSplit: Numbers['typeSplit']): string {
  const [variants, unseen] = ['held-out variants', 'unseen type'].map((set) =>
    typeSplit.find((row) => row.step === 30 && row.set.startsWith(set))!,
  );
  return whereOursDiffers(
    `the held-out variants reach ${pct(variants!.passAt1)} at step 30 against the book's 0.930, because our recipe is still learning at step 30 (the seeds' step-30 checkpoints stand well below their step 80, 17.4 and 17.8); the unseen type falls to ${pct(unseen!.passAt1)} from the base agent's, as in the book, but ours reads ${unseen!.readCalls.toFixed(2)} times per episode against the book's 1.41: our demonstrator reads a second time only in 15% of its demonstrations, and GRPO trains even that away.`,
  );
}

/** What the two pools' independent evaluations say of the name leak. */
function poolReading({ difference, low, high, standardError }: Numbers['leakage']['poolDifference']): string {
  const measured = `the two pools were evaluated apart, each with episode seeds of its own, so their difference, ${signed(difference)} (SE ${pct(standardError)}), carries the evaluation noise of both; Welch's interval treats every episode as independent, which on these fixed tasks is conservative (the binomial variance overstates the within-task variance, 17.3).`;
  return low <= 0 && 0 <= high
    ? `${measured} It covers 0: these evaluations do not show that the pool the function name is drawn from moves pass@1 (a move as large as the interval's ends is not ruled out), as expected of a name that training renamed away at every reset and so carries no answer.`
    : `${measured} It excludes 0: the pool the function name is drawn from moves pass@1 beyond evaluation noise, so the name leak carries information the policy uses.`;
}

function typeSplitSection(
  typeSplit: Numbers['typeSplit'],
  { episodes, heldOutType, trainedSteps }: Context,
): string {
  return section(
    `Type split: trained ${trainedSteps} steps on the four types other than \`${heldOutType}\` (variants 0-3), ${episodes} episodes per task`,
    table(typeSplit, {
      checkpoint: (row) => `step ${row.step}`,
      tasks: (row) => row.set,
      'pass@1': (row) => pct(row.passAt1),
      'read calls per episode': (row) => row.readCalls.toFixed(2),
      'first edit right': (row) => pct(row.firstEditRight),
      book: bookTypeSplit,
    }),
    [
      reading(
        "training lifts the held-out variants of the seen types far above guessing, and does nothing for (or hurts) the unseen type: the policy learned five ops' sites, and the unseen type's site is not among them. A variant split measures the first kind of generalisation only.",
      ),
      typeSplitDifference(typeSplit),
    ],
  );
}

function leakageSection(leakage: Numbers['leakage']): string {
  const { pools, poolDifference } = leakage;
  return section(
    'Leakage audit: how held-out tasks reach training',
    markdownTable(
      ['channel', 'what leaks', 'measured'],
      [
        [
          'tokenizer',
          'built from all 30 tasks: held-out words get embeddings (trained only if a training episode shows them)',
          `${leakage.vocabulary} words; ${leakage.heldOutOnlyWords.length} appear only in held-out tasks (${leakage.heldOutOnlyWords.join(', ') || 'none'})`,
        ],
        [
          'rename pool',
          'training episodes are renamed to any of the other 29 names, held-out names included',
          `${pct(leakage.share)} of ${count(leakage.resets)} training resets show a held-out name (10 of 29 candidates = ${pct(10 / 29)}; book ${BOOK.namesShare})`,
        ],
        [
          'parameter rename pool',
          "parameters are renamed to names drawn from every task's parameters, held-out ones included",
          `${pct(leakage.carryingParam / leakage.resets)} of training resets show a parameter name only held-out tasks use (${leakage.heldOutParams.join(', ')}): those embeddings are trained through renaming`,
        ],
        ['demonstrations', 'behaviour cloning plays training tasks only', 'no held-out task is played'],
        [
          'surface variation',
          "a training episode's spec may be swapped for another task's, drawn from the env's own tasks",
          'training envs hold training tasks only: no held-out spec is shown',
        ],
      ],
    ),
    table(pools, {
      'rename pool at evaluation (step 80), each its own evaluation and episode seeds': (row) =>
        row.pool === 'train' ? 'training names' : 'held-out names',
      'pass@1': (row) => pct(row.passAt1),
      book: (row) => BOOK.pools[row.pool],
    }),
    oursAgainstBook([
      [
        'held-out names - training names [Welch 95% over the episodes]',
        `${signed(poolDifference.difference)} ${interval(poolDifference, signed)}`,
        BOOK.poolDifference,
      ],
    ]),
    reading(poolReading(poolDifference)),
  );
}

export function report({ typeSplit, leakage }: Numbers, context: Context): Report {
  return { markdown: blocks(typeSplitSection(typeSplit, context), leakageSection(leakage)) };
}
