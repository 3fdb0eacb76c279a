import { Worker } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs';
import type { EpisodeSpec, Harness, Task } from '../gym/index.ts';
import { getWeights, rolloutBatch, type Agent, type AttentionMode, type EpisodeRecord, type ModelConfig } from '../agent/index.ts';
import { jobLoss, splitJob, type LossJob } from './jobs.ts';

export type WorkerRequest =
  | { type: 'init'; backend: string; attention: AttentionMode; modelConfig: ModelConfig; words: string[]; weights: Float32Array[] }
  | { type: 'weights'; weights: Float32Array[] }
  | { type: 'rollout'; harness: Harness; tasks: Task[]; specs: EpisodeSpec[] }
  | { type: 'gradients'; job: LossJob }
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
   * Gradients of the job's mean loss: rows [0, cut) in the worker, the rest here. The halves'
   * gradients are combined with weights proportional to their row counts, which is the
   * gradient of the whole batch's mean. Returns tensors the caller disposes (via tf.tidy).
   */
  async gradients(agent: Agent, job: LossJob): Promise<{ loss: number; grads: tf.NamedTensorMap }> {
    const rows = job.batch.batchSize;
    const variables = agent.model.variables();
    if (rows < 2) {
      const { value, grads } = tf.variableGrads(() => jobLoss(agent.model, job), variables);
      const loss = value.dataSync()[0]!;
      value.dispose();
      return { loss, grads };
    }
    const cut = Math.floor(rows / 2);
    const [remoteJob, localJob] = splitJob(job, cut);
    const remote = this.request({ type: 'gradients', job: remoteJob });
    const { value, grads: localGrads } = tf.variableGrads(() => jobLoss(agent.model, localJob), variables);
    const localLoss = value.dataSync()[0]!;
    value.dispose();
    const reply = await remote;
    if (reply.type !== 'gradients') throw new Error(`training worker: expected gradients, got ${reply.type}`);
    const remoteShare = cut / rows;
    const grads: tf.NamedTensorMap = {};
    variables.forEach((variable, i) => {
      grads[variable.name] = tf.tidy(() =>
        tf.add(tf.mul(tf.tensor(reply.grads[i]!, variable.shape), remoteShare), tf.mul(localGrads[variable.name]!, 1 - remoteShare)),
      );
      localGrads[variable.name]!.dispose();
    });
    return { loss: remoteShare * reply.loss + (1 - remoteShare) * localLoss, grads };
  }

  async close(): Promise<void> {
    await this.request({ type: 'close' }).catch(() => undefined);
    await this.worker.terminate();
  }
}
