import { Worker } from 'node:worker_threads';
import { getWeights, rolloutShare, shareCut, type Agent, type EpisodeRecord } from '../agent/index.ts';
import type { EpisodeSpec, Harness, Task } from '../gym/index.ts';
import { addShares, nonEmpty, partsGradients, type JobPart, type PartsGradients } from './gradients.ts';
import type { ParallelReply, ParallelRequest } from './dataParallelThread.ts';

/**
 * The two-core data-parallel worker, training thread's end: `serveRequests`
 * (./dataParallelThread.ts, started by data-parallel-entry.js) holds its own copy of the policy
 * and its own tfjs backend, since wasm runs single-threaded under Node. Each rollout's episodes
 * and each gradient's rows are split in two shares, one per thread, by a fixed function of the
 * batch (./compute.ts says what that changes: float rounding in the gradients alone).
 */
export class DataParallelWorker {
  private readonly worker = new Worker(new URL('./data-parallel-entry.js', import.meta.url));
  private readonly waiting: Array<{
    resolve: (reply: ParallelReply) => void;
    reject: (error: Error) => void;
  }> = [];
  /** The agent whose weights the worker holds (the last one loaded or synced). */
  private holds: Agent | undefined;
  /** The shape (`shapeOf`) of the model the worker was loaded with: an agent of that shape needs only its weights sent. */
  private loadedShape: string | undefined;
  /** The reply to weights sent by `sendWeights`, which the next request's reply waits for too. */
  private unconfirmed: Promise<ParallelReply> | undefined;

  private constructor(private readonly backend: string) {
    // The thread keeps the process alive only while a request is waiting on it.
    this.worker.unref();
    this.worker.on('message', (reply: ParallelReply) => {
      const next = this.waiting.shift();
      if (this.waiting.length === 0) this.worker.unref();
      if (next === undefined) return;
      if (reply.type === 'error') next.reject(new Error(`training worker: ${reply.message}`));
      else next.resolve(reply);
    });
    this.worker.on('error', (error) => {
      for (const entry of this.waiting.splice(0)) entry.reject(error);
    });
  }

  static async start(agent: Agent, backend: string): Promise<DataParallelWorker> {
    const worker = new DataParallelWorker(backend);
    await worker.load(agent);
    return worker;
  }

  /** Posts a request; its reply, after the reply to any weights sent before it (which it reports if they failed). */
  private request(message: ParallelRequest): Promise<ParallelReply> {
    const reply = new Promise<ParallelReply>((resolve, reject) => {
      if (this.waiting.length === 0) this.worker.ref();
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(message);
    });
    const sent = this.unconfirmed;
    this.unconfirmed = undefined;
    return sent === undefined ? reply : Promise.all([sent, reply]).then(([, answer]) => answer);
  }

  private async load(agent: Agent): Promise<void> {
    await this.request({
      type: 'init',
      backend: this.backend,
      modelConfig: agent.model.config,
      words: [...agent.tokenizer.words],
      weights: getWeights(agent.model),
    });
    this.holds = agent;
    this.loadedShape = shapeOf(agent);
  }

  /** Sends the current weights and waits for the worker to take them. */
  async syncWeights(agent: Agent): Promise<void> {
    await this.request({ type: 'weights', weights: getWeights(agent.model) });
    this.holds = agent;
  }

  /**
   * Sends the current weights without waiting: the worker serves requests in order, so every
   * later request sees them, and it takes them while this thread goes on (after an optimizer
   * step, with its own share of the next gradient). If taking them fails, the next request's
   * reply says so, and the worker no longer counts as holding `agent` (`holdAgent` sends again).
   */
  sendWeights(agent: Agent): void {
    const sent = this.request({ type: 'weights', weights: getWeights(agent.model) });
    sent.catch(() => {
      if (this.holds === agent) this.holds = undefined;
    });
    this.unconfirmed = sent;
    this.holds = agent;
  }

  /** `agent`'s weights changed and were not sent: the worker no longer counts as holding it (`holdAgent` sends them). */
  forget(agent: Agent): void {
    if (this.holds === agent) this.holds = undefined;
  }

  /** Makes the worker hold `agent` (its weights, or the whole model when the shape differs) unless it already does. */
  async holdAgent(agent: Agent): Promise<void> {
    if (this.holds === agent) return;
    if (this.loadedShape === shapeOf(agent)) await this.syncWeights(agent);
    else await this.load(agent);
  }

  /**
   * Plays the specs in the same batches as `rollout` on one thread: the first share (`shareCut`)
   * in the worker, the rest here, concurrently. Records in spec order, equal to one thread's.
   */
  async rollout(
    agent: Agent,
    harness: Harness,
    tasks: readonly Task[],
    specs: readonly EpisodeSpec[],
  ): Promise<EpisodeRecord[]> {
    const cut = shareCut(specs.length);
    const remote =
      cut > 0
        ? this.request({ type: 'rollout', harness, tasks: [...tasks], specs: specs.slice(0, cut) })
        : undefined;
    const local = rolloutShare(agent, harness, tasks, specs.slice(cut));
    if (remote === undefined) return local;
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
  async gradients(agent: Agent, plan: readonly JobPart[][]): Promise<PartsGradients> {
    const [remoteShare, localShare] = plan.map(nonEmpty);
    const remote = remoteShare && this.request({ type: 'gradients', parts: remoteShare });
    const local = localShare && partsGradients(agent.model, localShare);
    const reply = remote === undefined ? undefined : await remote;
    if (reply !== undefined && reply.type !== 'gradients')
      throw new Error(`training worker: expected gradients, got ${reply.type}`);
    return addShares(agent.model, reply, local);
  }

  async close(): Promise<void> {
    await this.request({ type: 'close' }).catch(() => undefined);
    await this.worker.terminate();
  }
}

/** What the worker's copy must share with an agent to take its weights: config and words. */
function shapeOf(agent: Agent): string {
  return JSON.stringify([agent.model.config, agent.tokenizer.words]);
}
