/**
 * 17.6 Held-out splits and leakage.
 *
 * Question: does the trained agent generalise to a bug type it never saw, or only to new variants
 *   of the types it trained on? The recipe trained 30 steps on the four types other than `zero`
 *   (and on variants 0-3 only), then measured on the six `zero` tasks and on the eight held-out
 *   variants of the other types: pass@1, read calls, how often the first edit is right. Then the
 *   leakage audit: every channel by which held-out tasks reach training, the share of training
 *   episodes that carry a held-out function name, and the default run evaluated with the rename
 *   pool restricted to training names and to held-out names.
 * Command: npm run exp:17.6 [-- --run DIR --seed S --smoke]
 * Runtime: about 1.5 minutes from scratch (the type-split run trains in about 75 s); seconds after.
 * Output: results/17.6.json, results/17.6.md.
 */
import { dirname, join } from 'node:path';
import {
  HELD_OUT_VARIANTS,
  makeEnv,
  makeTasks,
  REPAIR_OP_FOR,
  trainingHarness,
  vocabularyWords,
  type EpisodeResult,
} from '../gym/index.ts';
import { Rng } from '../lib/rng.ts';
import { isMain, runScript, writeResults } from './common.ts';
import { markdownTable, pct } from './report/markdown.ts';
import {
  ensureRun,
  evaluateOnCores,
  parseRunOptions,
  runOptions,
  trainingSeedOf,
  type RunOptions,
} from './runs.ts';

const HELD_OUT_TYPE = 'zero';
const BOOK = {
  variants: '0.148 -> 0.930',
  unseen: "0.031, below the base agent's 0.125",
  reads: '1.41 read calls per episode',
  firstEdit: 'first edit right in 3% of episodes',
  namesShare: '0.34 (10 of 29 candidates)',
  pools: '0.844 (training names) vs 0.863 (held-out names), within evaluation noise',
};

const rate = (records: readonly EpisodeResult[], test: (record: EpisodeResult) => boolean) =>
  records.filter(test).length / records.length;

export async function main(options: Partial<RunOptions> = {}) {
  const { run, seed, smoke, outDir } = runOptions(options);
  const episodes = smoke ? 4 : 32;
  const typeRun = join(dirname(run), `type-${HELD_OUT_TYPE}`);
  const typeAt = await ensureRun(typeRun, {
    seed: trainingSeedOf(run),
    smoke,
    steps: [0, 30],
    overrides: { split: 'type', heldOutType: HELD_OUT_TYPE, steps: 30 },
  });
  const all = makeTasks('all');
  const unseenType = all.filter((task) => task.type === HELD_OUT_TYPE);
  const seenVariants = all.filter(
    (task) => task.type !== HELD_OUT_TYPE && HELD_OUT_VARIANTS.includes(task.variant),
  );
  const typeSplit: Array<{
    step: number;
    set: string;
    passAt1: number;
    readCalls: number;
    firstEditRight: number;
  }> = [];
  for (const step of [0, 30]) {
    for (const [set, tasks] of [
      ['unseen type (zero, 6 tasks)', unseenType],
      ['held-out variants of the seen types (8 tasks)', seenVariants],
    ] as const) {
      const result = await evaluateOnCores({ checkpoint: typeAt(step), tasks, episodes, seed });
      typeSplit.push({
        step,
        set,
        passAt1: result.passAt1,
        readCalls: result.records.reduce((sum, record) => sum + record.readCalls, 0) / result.records.length,
        firstEditRight: rate(result.records, (record) => record.firstEditOp === REPAIR_OP_FOR[record.type]),
      });
    }
  }

  // Leakage: how often a training episode shows a held-out function name (the rename pool holds all 30 names).
  const train = makeTasks('train');
  const heldOutNames = new Set(makeTasks('heldout').map((task) => task.name));
  const env = makeEnv(trainingHarness(), { tasks: train });
  const resets = smoke ? 500 : 20_000;
  const stream = new Rng(seed).fork('17.6/names');
  // Parameter names too are renamed from a pool of every task's parameters, held-out ones included.
  const trainParams = new Set(train.flatMap((task) => task.params));
  const heldOutParams = new Set(
    makeTasks('heldout')
      .flatMap((task) => task.params)
      .filter((param) => !trainParams.has(param)),
  );
  let carrying = 0;
  let carryingParam = 0;
  for (let i = 0; i < resets; i += 1) {
    const { info, observation } = env.reset({ seed: stream.uint32() });
    if (heldOutNames.has(info.name)) carrying += 1;
    if (observation.some((word) => heldOutParams.has(word))) carryingParam += 1;
  }
  const vocabulary = new Set(vocabularyWords(all));
  const trainVocabulary = new Set(vocabularyWords(train));
  const heldOutOnlyWords = [...vocabulary].filter(
    (word) => !trainVocabulary.has(word) && !heldOutNames.has(word),
  );
  const at = await ensureRun(run, { smoke, steps: [80] });
  const pools = [];
  for (const pool of ['train', 'heldout'] as const)
    pools.push({
      pool,
      passAt1: (await evaluateOnCores({ checkpoint: at(80), harness: { renamePool: pool }, episodes, seed }))
        .passAt1,
    });

  const markdown = [
    `## Type split: trained ${smoke ? 3 : 30} steps on the four types other than \`${HELD_OUT_TYPE}\` (variants 0-3), ${episodes} episodes per task`,
    '',
    markdownTable(
      ['checkpoint', 'tasks', 'pass@1', 'read calls per episode', 'first edit right', 'book'],
      typeSplit.map((row) => [
        `step ${row.step}`,
        row.set,
        pct(row.passAt1),
        row.readCalls.toFixed(2),
        pct(row.firstEditRight),
        row.set.startsWith('unseen')
          ? row.step === 0
            ? 'base 0.125'
            : `${BOOK.unseen}; ${BOOK.reads}; ${BOOK.firstEdit}`
          : row.step === 0
            ? '0.148'
            : BOOK.variants,
      ]),
    ),
    '',
    "Reading: training lifts the held-out variants of the seen types far above guessing, and does nothing for (or hurts) the unseen type: the policy learned five ops' sites, and the unseen type's site is not among them. A variant split measures the first kind of generalisation only.",
    (() => {
      const [variants, unseen] = ['held-out variants', 'unseen type'].map((set) =>
        typeSplit.find((row) => row.step === 30 && row.set.startsWith(set))!,
      );
      return `Where ours differs: the held-out variants reach ${pct(variants!.passAt1)} at step 30 against the book's 0.930, because our recipe is still learning at step 30 (the seeds' step-30 checkpoints stand well below their step 80, 17.4 and 17.8); the unseen type falls to ${pct(unseen!.passAt1)} from the base agent's, as in the book, but ours reads ${unseen!.readCalls.toFixed(2)} times per episode against the book's 1.41: our demonstrator reads a second time only in 15% of its demonstrations, and GRPO trains even that away.`;
    })(),
    '',
    '## Leakage audit: how held-out tasks reach training',
    '',
    markdownTable(
      ['channel', 'what leaks', 'measured'],
      [
        [
          'tokenizer',
          'built from all 30 tasks: held-out words get embeddings (trained only if a training episode shows them)',
          `${vocabulary.size} words; ${heldOutOnlyWords.length} appear only in held-out tasks (${heldOutOnlyWords.join(', ') || 'none'})`,
        ],
        [
          'rename pool',
          'training episodes are renamed to any of the other 29 names, held-out names included',
          `${pct(carrying / resets)} of ${resets.toLocaleString('en-US')} training resets show a held-out name (10 of 29 candidates = ${pct(10 / 29)}; book ${BOOK.namesShare})`,
        ],
        [
          'parameter rename pool',
          "parameters are renamed to names drawn from every task's parameters, held-out ones included",
          `${pct(carryingParam / resets)} of training resets show a parameter name only held-out tasks use (${[...heldOutParams].join(', ')}): those embeddings are trained through renaming`,
        ],
        ['demonstrations', 'behaviour cloning plays training tasks only', 'no held-out task is played'],
        [
          'surface variation',
          "a training episode's spec may be swapped for another task's, drawn from the env's own tasks",
          'training envs hold training tasks only: no held-out spec is shown',
        ],
      ],
    ),
    '',
    markdownTable(
      ['rename pool at evaluation (step 80)', 'pass@1', 'book'],
      pools.map((row) => [
        row.pool === 'train' ? 'training names' : 'held-out names',
        pct(row.passAt1),
        row.pool === 'train' ? '0.844' : '0.863',
      ]),
    ),
    '',
    `Reading: the function name is renamed away at every reset, so which pool the evaluation draws from moves pass@1 by ${pct(Math.abs(pools[0]!.passAt1 - pools[1]!.passAt1))}, within evaluation noise (17.9): the name leak carries no answer.`,
  ].join('\n');
  const numbers = {
    typeSplit,
    leakage: {
      resets,
      carrying,
      share: carrying / resets,
      carryingParam,
      heldOutParams: [...heldOutParams],
      vocabulary: vocabulary.size,
      heldOutOnlyWords,
      pools,
    },
  };
  writeResults(outDir, {
    section: '17.6',
    title: 'Held-out splits and leakage',
    seed,
    smoke,
    config: { run, typeRun, episodes, heldOutType: HELD_OUT_TYPE },
    numbers,
    markdown,
    echo: isMain(import.meta.url),
  });
  return numbers;
}

if (isMain(import.meta.url)) await runScript('exp:17.6', () => main(parseRunOptions(process.argv.slice(2))));
