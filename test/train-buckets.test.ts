import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { episodeSpecs, makeTasks, trainingHarness } from '../gym/index.ts';
import {
  buildTokenizer,
  createModel,
  defaultModelConfig,
  initBackend,
  rollout,
  type Agent,
} from '../agent/index.ts';
import { padBatch, selectRows } from '../train/batch.ts';
import type { GrpoJob } from '../train/grpo.ts';
import { lengthBuckets, partsGradients, planJob, type LossJob } from '../train/gradients.ts';
import { Rng } from '../lib/rng.ts';

let agent: Agent;
let job: GrpoJob;

beforeAll(async () => {
  await initBackend({ preference: 'wasm' });
  const tokenizer = buildTokenizer(makeTasks('all'));
  agent = {
    model: createModel(defaultModelConfig(tokenizer.words.length), new Rng('buckets')),
    tokenizer,
  };
  const tasks = makeTasks('train').slice(0, 6);
  const records = rollout(
    agent,
    trainingHarness(),
    tasks,
    episodeSpecs(tasks, 4, new Rng('buckets/rollout')),
  );
  const batch = padBatch(records, tokenizer.padId);
  batch.advantages = Float32Array.from(records, (_, i) => (i % 3) - 1);
  batch.refLogProbs = Float32Array.from(
    { length: records.length * (batch.length - 1) },
    (_, i) => -1 - (i % 7) / 10,
  );
  job = { kind: 'grpo', batch, options: { clipEpsilon: 0.2, klCoef: 0.05, entropyCoef: 0.01 } };
});

afterAll(() => agent.model.dispose());

describe('length buckets', () => {
  it('groups sorted rows into contiguous buckets: one bucket for equal lengths, two for two far-apart lengths', () => {
    expect(lengthBuckets([0, 1, 2, 3], [50, 50, 50, 50])).toEqual([[0, 1, 2, 3]]);
    expect(lengthBuckets([3, 0, 1, 2, 4, 5], [20, 20, 20, 20, 120, 120])).toEqual([
      [3, 0, 1, 2],
      [4, 5],
    ]);
    expect(lengthBuckets([], [])).toEqual([]);
  });

  it('plans every row exactly once, with weights summing to 1, each part padded only to its longest row', () => {
    for (const shards of [1, 2, 3]) {
      const plan = planJob(job, shards);
      expect(plan).toHaveLength(shards);
      const parts = plan.flat();
      expect(parts.reduce((sum, part) => sum + part.weight, 0)).toBeCloseTo(1, 12);
      const rows = parts.reduce((sum, part) => sum + part.job.batch.batchSize, 0);
      expect(rows).toBe(job.batch.batchSize);
      for (const part of parts) expect(part.job.batch.length).toBe(Math.max(2, ...part.job.batch.lengths));
      // Shards get like mixes of lengths: their row counts differ by at most one.
      const perShard = plan.map((shard) => shard.reduce((sum, part) => sum + part.job.batch.batchSize, 0));
      expect(Math.max(...perShard) - Math.min(...perShard)).toBeLessThanOrEqual(1);
    }
    // Far-apart lengths split: four short and four long transcripts make two parts on one shard.
    const transcripts = [10, 120, 10, 120, 10, 120, 10, 120].map((length) => ({
      tokens: Array.from({ length }, () => 1),
      actionMask: Array.from({ length }, () => 1),
    }));
    const spread: LossJob = { kind: 'bc', batch: padBatch(transcripts, 0) };
    expect(
      planJob(spread, 1)[0]!.map((part) => [part.job.batch.batchSize, part.job.batch.length, part.weight]),
    ).toEqual([
      [4, 10, 0.5],
      [4, 120, 0.5],
    ]);
  });

  it("selectRows keeps each row's tokens, mask, log-probs, advantage and reference log-probs", () => {
    const rows = [3, 0];
    const part = selectRows(job.batch, rows);
    const { length: from } = job.batch;
    const to = part.length;
    rows.forEach((row, i) => {
      expect(Array.from(part.ids.subarray(i * to, (i + 1) * to))).toEqual(
        Array.from(job.batch.ids.subarray(row * from, row * from + to)),
      );
      expect(Array.from(part.targetMask.subarray(i * (to - 1), (i + 1) * (to - 1)))).toEqual(
        Array.from(job.batch.targetMask.subarray(row * (from - 1), row * (from - 1) + to - 1)),
      );
      expect(Array.from(part.refLogProbs!.subarray(i * (to - 1), (i + 1) * (to - 1)))).toEqual(
        Array.from(job.batch.refLogProbs!.subarray(row * (from - 1), row * (from - 1) + to - 1)),
      );
      expect(part.advantages![i]).toBe(job.batch.advantages![row]);
      // Nothing the loss sees is cut: the padding dropped carries mask 0.
      const dropped = job.batch.targetMask.subarray(row * (from - 1) + to - 1, (row + 1) * (from - 1));
      expect(dropped.every((m) => m === 0)).toBe(true);
    });
    expect(() => selectRows(job.batch, [job.batch.batchSize])).toThrow(/outside/);
  });

  it('keeps a job of its own kind through planning: a cloning part carries only its batch, a GRPO part its options and its rows of the advantages and reference log-probs', () => {
    const transcripts = [10, 30].map((length) => ({
      tokens: Array.from({ length }, () => 1),
      actionMask: Array.from({ length }, () => 1),
    }));
    const cloning: LossJob = { kind: 'bc', batch: padBatch(transcripts, 0) };
    // @ts-expect-error behaviour cloning has no options: options on it do not type-check (tsc --noEmit)
    const wrong: LossJob = { kind: 'bc', batch: cloning.batch, options: job.options };
    expect(wrong.kind).toBe('bc');
    for (const part of planJob(cloning, 2).flat()) {
      expect(Object.keys(part.job).sort()).toEqual(['batch', 'kind']);
      expect(part.job.batch.advantages).toBeUndefined();
    }
    for (const part of planJob(job, 2).flat()) {
      expect(Object.keys(part.job).sort()).toEqual(['batch', 'kind', 'options']);
      expect(part.job.kind === 'grpo' && part.job.options).toEqual(job.options);
      expect(part.job.batch.advantages).toHaveLength(part.job.batch.batchSize);
      expect(part.job.batch.refLogProbs).toHaveLength(part.job.batch.batchSize * (part.job.batch.length - 1));
    }
  });

  it('partsGradients over the planned buckets equals it over the one padded batch: the loss and gradient to float rounding (1e-5 relative)', () => {
    const variables = agent.model.variables();
    const whole = partsGradients(agent.model, [{ job, weight: 1 }]);
    // Three shards' parts on one thread: several parts, rows reordered by length, each trimmed.
    const parts = planJob(job, 3).flat();
    expect(parts.length).toBeGreaterThan(2);
    const bucketed = partsGradients(agent.model, parts);
    expect(bucketed.loss).toBeCloseTo(whole.loss, 6);
    expect(bucketed.clippedTokens).toBe(whole.clippedTokens);
    expect(bucketed.policyTokens).toBe(whole.policyTokens);
    for (const variable of variables) {
      const expected = whole.grads[variable.name]!.dataSync();
      const actual = bucketed.grads[variable.name]!.dataSync();
      let error = 0;
      let norm = 0;
      for (let i = 0; i < expected.length; i += 1) {
        error += (actual[i]! - expected[i]!) ** 2;
        norm += expected[i]! ** 2;
      }
      expect(norm, variable.name).toBeGreaterThan(0);
      // float32 sums in another order differ by about 1e-6 relative; a dropped or mis-weighted
      // bucket would be off by its share of the batch, 1e-2 or more.
      expect(Math.sqrt(error / norm), variable.name).toBeLessThan(1e-5);
    }
    tf.dispose([...Object.values(whole.grads), ...Object.values(bucketed.grads)]);
  });
});
