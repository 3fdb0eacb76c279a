import * as tf from '@tensorflow/tfjs';
import { EDIT_OPS, makeEnv, type Harness, type Task } from '../gym/index.ts';
import type { Agent, Tokenizer } from '../agent/index.ts';
import type { Rng } from '../lib/rng.ts';
import { padBatch, type Transcript } from './batch.ts';
import type { LossJob } from './jobs.ts';
import { optimizerStep } from './optimize.ts';
import type { DataParallelWorker } from './dataParallel.ts';

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
export async function bcStep(agent: Agent, optimizer: tf.Optimizer, transcripts: readonly Transcript[], { maxGradNorm, worker }: { maxGradNorm: number; worker?: DataParallelWorker | undefined }): Promise<number> {
  const job: LossJob = { kind: 'bc', batch: padBatch(transcripts, agent.tokenizer.padId), clipEpsilon: 0, klCoef: 0 };
  return (await optimizerStep(agent, optimizer, job, { maxGradNorm, worker })).loss;
}
