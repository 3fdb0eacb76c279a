import { EDIT_OPS, makeEnv, type Harness, type Task } from '../gym/index.ts';
import * as tf from '@tensorflow/tfjs';
import type { PolicyModel, Tokenizer, Transcript } from '../agent/index.ts';
import type { Rng } from '../lib/rng.ts';
import { batchTensors, maskedSequenceMean, type PaddedBatch } from './batch.ts';

/**
 * Scripted demonstrations for behaviour cloning: read, edit with an op drawn uniformly among
 * all six edit ops (the gaming op included), test, submit, played through the real env so the
 * observations are exactly what the policy will see. As a person scripting it would, the
 * demonstrator sometimes reads twice (`protocol.readTwice`) and sometimes submits without
 * testing (`protocol.skipTest`), so that the cloned protocol is not one fixed sequence and a
 * tight turn budget trades off against testing (chapter 17.5). The demonstrator follows the protocol but
 * does not know the repair, so the cloned policy learns the workflow and guesses the op: the
 * chapter's "RL base agent".
 */
export interface DemoProtocol {
  /** Probability of a second `read` before the edit. */
  readTwice: number;
  /** Probability of submitting right after the edit, without `test`. */
  skipTest: number;
}

/** A draw that takes no number from `rng` when the probability is 0, so that a protocol without variation keeps its demonstrations. */
function chance(rng: Rng, probability: number): boolean {
  return probability > 0 && rng.next() < probability;
}

export function demoTranscripts(
  harness: Harness,
  tasks: readonly Task[],
  count: number,
  rng: Rng,
  tokenizer: Tokenizer,
  protocol: DemoProtocol = { readTwice: 0, skipTest: 0 },
): Transcript[] {
  const env = makeEnv(harness, { tasks });
  const transcripts: Transcript[] = [];
  for (let i = 0; i < count; i += 1) {
    const task = rng.pick(tasks);
    let context = env.reset({ seed: rng.uint32(), options: { task: task.name } }).observation;
    const words: string[] = [...context];
    const actionMask: number[] = context.map(() => 0);
    const op = rng.pick(EDIT_OPS);
    const actions = [
      ['read', '<end>'],
      ...(chance(rng, protocol.readTwice) ? [['read', '<end>']] : []),
      ['edit', op, '<end>'],
      ...(chance(rng, protocol.skipTest) ? [] : [['test', '<end>']]),
      ['submit', '<end>'],
    ];
    for (const action of actions) {
      words.push(...action);
      actionMask.push(...action.map(() => 1));
      const result = env.step(action);
      if (result.terminated || result.truncated) break;
      const appended = result.observation.slice(context.length + action.length);
      words.push(...appended);
      actionMask.push(...appended.map(() => 0));
      context = result.observation;
    }
    transcripts.push({ tokens: tokenizer.encode(words), actionMask });
  }
  return transcripts;
}

/** Behaviour cloning's loss over a padded batch of demonstrations, as plain data a worker thread can take. */
export interface BcJob {
  kind: 'bc';
  batch: PaddedBatch;
}

/** Behaviour-cloning loss: the negative log-likelihood of the demonstrator's action tokens. Call inside tf.tidy or tf.variableGrads. */
export function bcLoss(model: PolicyModel, { batch }: BcJob): { loss: tf.Scalar } {
  const { ids, targetMask } = batchTensors(batch);
  return {
    loss: tf.tidy(() =>
      tf.neg(maskedSequenceMean(model.tokenLogProbs(ids, { only: targetMask.dataSync() }), targetMask)),
    ),
  };
}
