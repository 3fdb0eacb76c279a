import * as tf from '@tensorflow/tfjs';
import { EDIT_OPS, makeEnv, type Harness, type Task } from '../gym/index.ts';
import type { PolicyModel, Tokenizer } from '../agent/index.ts';
import type { Rng } from '../lib/rng.ts';
import { batchTensors, padBatch, type Transcript } from './batch.ts';
import { bcLoss } from './grpo.ts';

/**
 * Scripted demonstrations for behaviour cloning: read, edit with an op drawn uniformly among
 * all six edit ops (the gaming op included), test, submit, played through the real env so the
 * observations are exactly what the policy will see. The demonstrator follows the protocol but
 * does not know the repair, so the cloned policy learns the workflow and guesses the op: the
 * chapter's "RL base agent".
 */
export function demoTranscripts(harness: Harness, tasks: readonly Task[], count: number, rng: Rng, tokenizer: Tokenizer): Transcript[] {
  const env = makeEnv(harness, { tasks });
  const transcripts: Transcript[] = [];
  for (let i = 0; i < count; i += 1) {
    const task = rng.pick(tasks);
    let context = env.reset({ seed: rng.uint32(), options: { task: task.name } }).observation;
    const words: string[] = [...context];
    const actionMask: number[] = context.map(() => 0);
    const actions = [['read', '<end>'], ['edit', rng.pick(EDIT_OPS), '<end>'], ['test', '<end>'], ['submit', '<end>']];
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

/** One behaviour-cloning step on a batch of demonstrations; returns the loss. */
export function bcStep(model: PolicyModel, optimizer: tf.Optimizer, transcripts: readonly Transcript[], padId: number): number {
  return tf.tidy(() => {
    const { ids, targetMask } = batchTensors(padBatch(transcripts, padId));
    const cost = optimizer.minimize(() => bcLoss(model, ids, targetMask), true, model.variables());
    return cost!.dataSync()[0]!;
  });
}
