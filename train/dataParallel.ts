import { Worker } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs';
import type { EpisodeSpec, Harness, Task } from '../gym/index.ts';
import { getWeights, rolloutBatch, type Agent, type AttentionMode, type EpisodeRecord, type ModelConfig } from '../agent/index.ts';
import { partsLoss, type JobPart } from './jobs.ts';

export type WorkerRequest =
  | { type: 'init'; backend: string; attention: AttentionMode; modelConfig: ModelConfig; words: string[]; weights: Float32Array[] }
  | { type: 'weights'; weights: Float32Array[] }
  | { type: 'rollout'; harness: Harness; tasks: Task[]; specs: EpisodeSpec[] }
  | { type: 'gradients'; parts: JobPart[] }
  | { type: 'close' };

export type WorkerReply =
  | { type: 'ready'; backend: string }
  | { type: 'ok' }
  | { type: 'records'; records: EpisodeRecord[] }
  | { type: 'gradients'; loss: number; grads: Float32Array[] }
  | { type: 'error'; message: string };

/**
 * The two-core data-parallel worker: a worker thread with its own copy of the policy (and its
 * own tfjs backend, since wasm runs single-threaded under Node), so that training uses both
 * cores: each
 * rollout batch and each gradient is split in two halves, one per thread. The split is a fixed
 * function of the batch, so a run stays deterministic; the numbers differ from a one-thread run
 * only by float rounding in the sum of the two half-gradients and in batch composition.
 */
export class DataParallelWorker {
  private readonly worker: Worker;
  private readonly waiting: Array<{ resolve: (reply: WorkerReply) => void; reject: (error: Error) => void }> = [];

  private constructor() {
    this.worker = new Worker(new URL('./worker-entry.js', import.meta.url));
    this.worker.on('message', (reply: WorkerReply) => {
      const next = this.waiting.shift();
      if (next === undefined) return;
      if (reply.type === 'error') next.reject(new Error(`training worker: ${reply.message}`));
      else next.resolve(reply);
    });
    this.worker.on('error', (error) => {
      for (const entry of this.waiting.splice(0)) entry.reject(error);
    });
  }

  static async start(agent: Agent, backend: string): Promise<DataParallelWorker> {
    const worker = new DataParallelWorker();
    await worker.request({ type: 'init', backend, attention: agent.model.attentionMode, modelConfig: agent.model.config, words: [...agent.tokenizer.words], weights: getWeights(agent.model) });
    return worker;
  }

  private request(message: WorkerRequest): Promise<WorkerReply> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(message);
    });
  }

  /** Sends the current weights; later requests see them. */
  syncWeights(agent: Agent): Promise<WorkerReply> {
    return this.request({ type: 'weights', weights: getWeights(agent.model) });
  }

  /** Plays the specs, the first half in the worker and the rest here, concurrently. Records in spec order. */
  async rollout(agent: Agent, harness: Harness, tasks: readonly Task[], specs: readonly EpisodeSpec[]): Promise<EpisodeRecord[]> {
    if (specs.length < 2) return rolloutBatch(agent, harness, tasks, specs);
    const cut = Math.floor(specs.length / 2);
    const remote = this.request({ type: 'rollout', harness, tasks: [...tasks], specs: specs.slice(0, cut) });
    const local = rolloutBatch(agent, harness, tasks, specs.slice(cut));
    const reply = await remote;
    if (reply.type !== 'records') throw new Error(`training worker: expected records, got ${reply.type}`);
    return [...reply.records, ...local];
  }

  /**
   * Gradients of a job planned for two threads (`planJob(job, 2)`): the first shard's parts in
   * the worker, the second here, concurrently. The parts carry their share of the job's rows as
   * weights, so the sum of the two results is the gradient of the whole batch's mean loss.
   * Returns tensors the caller disposes (via tf.tidy).
   */
  async gradients(agent: Agent, [remoteParts, localParts]: readonly JobPart[][]): Promise<{ loss: number; grads: tf.NamedTensorMap }> {
    const variables = agent.model.variables();
    const remote = remoteParts !== undefined && remoteParts.length > 0 ? this.request({ type: 'gradients', parts: remoteParts }) : undefined;
    const local = localParts !== undefined && localParts.length > 0 ? tf.variableGrads(() => partsLoss(agent.model, localParts), variables) : undefined;
    const localLoss = local === undefined ? 0 : local.value.dataSync()[0]!;
    local?.value.dispose();
    const reply = remote === undefined ? undefined : await remote;
    if (reply !== undefined && reply.type !== 'gradients') throw new Error(`training worker: expected gradients, got ${reply.type}`);
    if (reply === undefined && local === undefined) throw new RangeError('DataParallelWorker.gradients: no rows in either shard');
    const grads: tf.NamedTensorMap = {};
    variables.forEach((variable, i) => {
      const mine = local?.grads[variable.name];
      grads[variable.name] = reply === undefined ? mine! : tf.tidy(() => {
        const theirs = tf.tensor(reply.grads[i]!, variable.shape);
        return mine === undefined ? theirs : tf.add(theirs, mine);
      });
      if (reply !== undefined) mine?.dispose();
    });
    return { loss: (reply?.loss ?? 0) + localLoss, grads };
  }

  async close(): Promise<void> {
    await this.request({ type: 'close' }).catch(() => undefined);
    await this.worker.terminate();
  }
}
