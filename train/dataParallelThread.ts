import { parentPort } from 'node:worker_threads';
import {
  initBackend,
  modelFromWeights,
  rolloutShare,
  setWeights,
  tokenizerFromWords,
  type Agent,
  type BackendPreference,
  type EpisodeRecord,
  type ModelConfig,
} from '../agent/index.ts';
import type { EpisodeSpec, Harness, Task } from '../gym/index.ts';
import { shareGradients, type JobPart, type ShareGradients } from './gradients.ts';

/** Messages to the worker thread, and its replies (in the order of the requests). */
export type ParallelRequest =
  | { type: 'init'; backend: string; modelConfig: ModelConfig; words: string[]; weights: Float32Array[] }
  | { type: 'weights'; weights: Float32Array[] }
  | { type: 'rollout'; harness: Harness; tasks: Task[]; specs: EpisodeSpec[] }
  | { type: 'gradients'; parts: readonly JobPart[] }
  | { type: 'close' };

export type ParallelReply =
  | { type: 'ready'; backend: string }
  | { type: 'ok' }
  | { type: 'records'; records: EpisodeRecord[] }
  | ({ type: 'gradients' } & ShareGradients)
  | { type: 'error'; message: string };

/**
 * The worker thread's side: holds a copy of the policy and, on request, plays a share of the
 * rollouts or computes the gradient of a share of a batch. Requests are served strictly in
 * order, so a weight update sent before a job is always applied before it.
 */
export function serveRequests(): void {
  const port = parentPort;
  if (port === null) throw new Error('serveRequests: not in a worker thread');
  let agent: Agent | undefined;
  const ready = (): Agent => {
    if (agent === undefined) throw new Error('training worker: no model yet (init first)');
    return agent;
  };
  const serve = (request: ParallelRequest): ParallelReply | Promise<ParallelReply> => {
    switch (request.type) {
      case 'init':
        return initBackend({ preference: request.backend as BackendPreference }).then((backend) => {
          agent?.model.dispose();
          agent = {
            model: modelFromWeights(request.modelConfig, request.weights),
            tokenizer: tokenizerFromWords(request.words),
          };
          return { type: 'ready', backend };
        });
      case 'weights':
        setWeights(ready().model, request.weights);
        return { type: 'ok' };
      case 'rollout':
        return {
          type: 'records',
          records: rolloutShare(ready(), request.harness, request.tasks, request.specs),
        };
      case 'gradients':
        return { type: 'gradients', ...shareGradients(ready().model, request.parts) };
      case 'close':
        agent?.model.dispose();
        return { type: 'ok' };
    }
  };
  let queue = Promise.resolve();
  port.on('message', (request: ParallelRequest) => {
    queue = queue.then(async () => {
      try {
        port.postMessage(await serve(request));
      } catch (error) {
        port.postMessage({ type: 'error', message: (error as Error).stack ?? String(error) });
      }
    });
  });
}
