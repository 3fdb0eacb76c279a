import { parentPort } from 'node:worker_threads';
import {
  initBackend,
  modelFromWeights,
  rolloutShare,
  setWeights,
  tokenizerFromWords,
  type Agent,
  type BackendPreference,
} from '../agent/index.ts';
import type { WorkerRequest, WorkerReply } from './dataParallel.ts';
import { partsGradients } from './jobs.ts';

/**
 * The data-parallel worker's side (train/dataParallel.ts), on the second core: holds a copy of the policy and, on request, plays a share of the rollouts or
 * computes the gradient of a share of a batch. Requests are served strictly in order, so a
 * weight update sent before a job is always applied before it.
 */
let agent: Agent | undefined;

function serve(request: WorkerRequest): WorkerReply | Promise<WorkerReply> {
  switch (request.type) {
    case 'init':
      return initBackend({ preference: request.backend as BackendPreference }).then((backend) => {
        agent?.model.dispose();
        agent = {
          model: modelFromWeights(request.modelConfig, request.weights, { attention: request.attention }),
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
    case 'gradients': {
      const { loss, grads } = partsGradients(ready().model, request.parts);
      return { type: 'gradients', loss, grads };
    }
    case 'close':
      agent?.model.dispose();
      return { type: 'ok' };
  }
}

function ready(): Agent {
  if (agent === undefined) throw new Error('training worker: no model yet (init first)');
  return agent;
}

let queue = Promise.resolve();
parentPort!.on('message', (request: WorkerRequest) => {
  queue = queue.then(async () => {
    try {
      parentPort!.postMessage(await serve(request));
    } catch (error) {
      parentPort!.postMessage({ type: 'error', message: (error as Error).stack ?? String(error) });
    }
  });
});
