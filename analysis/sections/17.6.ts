/**
 * The numbers of 17.6 (experiments/17.6.ts): a type-split run on an unseen bug type against new
 * variants of the seen types, then the leakage audit: how often a training episode shows a
 * held-out name, and the default run evaluated with the rename pool restricted to training names
 * and to held-out names.
 */
import type { Evaluation } from '../../agent/index.ts';
import { welchInterval } from '../../eval/index.ts';
import {
  makeEnv,
  makeTasks,
  REPAIR_OP_FOR,
  trainingHarness,
  vocabularyWords,
  wordsOnlyIn,
} from '../../gym/index.ts';
import type { Rng } from '../../lib/rng.ts';

/** One checkpoint of the type-split run on one task set: pass@1, read calls per episode, and how often the first edit is the type's repair. */
function typeSplitRow({ step, set, evaluation }: { step: number; set: string; evaluation: Evaluation }) {
  return {
    step,
    set,
    passAt1: evaluation.passAt1,
    readCalls:
      evaluation.records.reduce((sum, record) => sum + record.readCalls, 0) / evaluation.records.length,
    firstEditRight:
      evaluation.records.filter((record) => record.firstEditOp === REPAIR_OP_FOR[record.type]).length /
      evaluation.records.length,
  };
}

/**
 * How often a training episode (`resets` resets of the training env, seeded from `rng`) shows a
 * held-out function name (the rename pool holds all 30 names) or a held-out parameter name, and
 * the words of the vocabulary only held-out tasks use.
 */
function nameLeakage(resets: number, rng: Rng) {
  const all = makeTasks('all');
  const train = makeTasks('train');
  const heldOutNames = new Set(makeTasks('heldout').map((task) => task.name));
  const env = makeEnv(trainingHarness(), { tasks: train });
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
    const { info, observation } = env.reset({ seed: rng.uint32() });
    if (heldOutNames.has(info.name)) carrying += 1;
    if (observation.some((word) => heldOutParams.has(word))) carryingParam += 1;
  }
  const heldOutOnlyWords = wordsOnlyIn(makeTasks('heldout'), train);
  return {
    resets,
    carrying,
    share: carrying / resets,
    carryingParam,
    heldOutParams: [...heldOutParams],
    vocabulary: vocabularyWords(all).length,
    heldOutOnlyWords,
  };
}

/**
 * What 17.6 reports: the type split's rows, and the leakage audit (`resets` training resets drawn
 * from the stream `17.6/names` of `rng`; the evaluation under each rename pool, the training
 * pool's first, and held-out names minus training names with Welch's 95% interval over the two
 * evaluations' episodes).
 */
export function heldOutNumbers<Pool extends string>({
  typeSplit,
  resets,
  pools,
  rng,
}: {
  typeSplit: ReadonlyArray<{ step: number; set: string; evaluation: Evaluation }>;
  resets: number;
  pools: readonly [{ pool: Pool; evaluation: Evaluation }, { pool: Pool; evaluation: Evaluation }];
  rng: Rng;
}) {
  const outcomes = (evaluation: Evaluation) => evaluation.records.map((record) => (record.success ? 1 : 0));
  const { difference, low, high, standardError } = welchInterval(
    outcomes(pools[0].evaluation),
    outcomes(pools[1].evaluation),
  );
  return {
    typeSplit: typeSplit.map(typeSplitRow),
    leakage: {
      ...nameLeakage(resets, rng.fork('17.6/names')),
      pools: pools.map(({ pool, evaluation }) => ({ pool, passAt1: evaluation.passAt1 })),
      poolDifference: { difference, low, high, standardError },
    },
  };
}

export type Numbers176 = ReturnType<typeof heldOutNumbers<'train' | 'heldout'>>;
