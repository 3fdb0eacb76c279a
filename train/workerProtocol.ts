import type { EpisodeSpec, Harness, Task } from '../gym/index.ts';
import type { AttentionMode, EpisodeRecord, ModelConfig } from '../agent/index.ts';
import type { JobPart } from './losses.ts';

/** Messages to the worker thread, and its replies (in the order of the requests). */
export type WorkerRequest =
  | {
      type: 'init';
      backend: string;
      attention: AttentionMode;
      modelConfig: ModelConfig;
      words: string[];
      weights: Float32Array[];
    }
  | { type: 'weights'; weights: Float32Array[] }
  | { type: 'rollout'; harness: Harness; tasks: Task[]; specs: EpisodeSpec[] }
  | { type: 'gradients'; parts: JobPart[] }
  | { type: 'close' };

export type WorkerReply =
  | { type: 'ready'; backend: string }
  | { type: 'ok' }
  | { type: 'records'; records: EpisodeRecord[] }
  | {
      type: 'gradients';
      loss: number;
      /** In the model's variable order. */
      grads: Float32Array[];
      clippedTokens: number;
      policyTokens: number;
    }
  | { type: 'error'; message: string };
