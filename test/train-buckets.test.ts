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
import {
  jobLoss,
  lengthBuckets,
  padBatch,
  partsLoss,
  planJob,
  selectRows,
  type GrpoJob,
  type LossJob,
} from '../train/index.ts';
import { Rng } from '../lib/rng.ts';

let agent: Agent;
let job: GrpoJob;

beforeAll(async () => {
  await initBackend({ preference: 'wasm' });
  const tokenizer = buildTokenizer(makeTasks('all'));
  agent = {
    model: createModel(defaultModelConfig(tokenizer.words.length), new Rng('buckets'), {
      attention: 'depthwise',
    }),
    tokenizer,
  };
  const tasks = makeTasks('train').slice(0, 6);
  const records = rollout(
    agent,
    trainingHarness(),
    tasks,
    episodeSpecs(tasks, 4, new Rng('buckets/rollout')),
  );
  job = {
    kind: 'grpo',
    batch: padBatch(records, tokenizer.padId),
    advantages: Float32Array.from(records, (_, i) => (i % 3) - 1),
    clipEpsilon: 0.2,
    klCoef: 0.05,
    entropyCoef: 0.01,
    refLogProbs: Float32Array.from(
      { length: records.length * (padBatch(records, tokenizer.padId).length - 1) },
      (_, i) => -1 - (i % 7) / 10,
    ),
  };
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
    const part = selectRows(job, rows);
    const { length: from } = job.batch;
    const to = part.batch.length;
    rows.forEach((row, i) => {
      expect(Array.from(part.batch.ids.subarray(i * to, (i + 1) * to))).toEqual(
        Array.from(job.batch.ids.subarray(row * from, row * from + to)),
      );
      expect(Array.from(part.batch.targetMask.subarray(i * (to - 1), (i + 1) * (to - 1)))).toEqual(
        Array.from(job.batch.targetMask.subarray(row * (from - 1), row * (from - 1) + to - 1)),
      );
      expect(Array.from(part.refLogProbs!.subarray(i * (to - 1), (i + 1) * (to - 1)))).toEqual(
        Array.from(job.refLogProbs!.subarray(row * (from - 1), row * (from - 1) + to - 1)),
      );
      expect(part.advantages![i]).toBe(job.advantages![row]);
      // Nothing the loss sees is cut: the padding dropped carries mask 0.
      const dropped = job.batch.targetMask.subarray(row * (from - 1) + to - 1, (row + 1) * (from - 1));
      expect(dropped.every((m) => m === 0)).toBe(true);
    });
    expect(() => selectRows(job, [job.batch.batchSize])).toThrow(/outside/);
  });

  it('keeps a job of its own kind through planning: a cloning part carries only its batch, a GRPO part its clip, KL and entropy fields', () => {
    const transcripts = [10, 30].map((length) => ({
      tokens: Array.from({ length }, () => 1),
      actionMask: Array.from({ length }, () => 1),
    }));
    const cloning: LossJob = { kind: 'bc', batch: padBatch(transcripts, 0) };
    // @ts-expect-error behaviour cloning has no clip: a clipEpsilon on it does not type-check (tsc --noEmit)
    const wrong: LossJob = { kind: 'bc', batch: cloning.batch, clipEpsilon: 0 };
    expect(wrong.kind).toBe('bc');
    for (const part of planJob(cloning, 2).flat())
      expect(Object.keys(part.job).sort()).toEqual(['batch', 'kind']);
    for (const part of planJob(job, 2).flat())
      expect(Object.keys(part.job).sort()).toEqual([
        'advantages',
        'batch',
        'clipEpsilon',
        'entropyCoef',
        'kind',
        'klCoef',
        'refLogProbs',
      ]);
  });

  it("the bucketed loss and its gradient equal the padded batch's to float rounding (1e-5 relative)", () => {
    const variables = agent.model.variables();
    const whole = tf.variableGrads(() => jobLoss(agent.model, job), variables);
    const [parts] = planJob(job, 1);
    const bucketed = tf.variableGrads(() => partsLoss(agent.model, parts!), variables);
    expect(bucketed.value.dataSync()[0]!).toBeCloseTo(whole.value.dataSync()[0]!, 6);
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
    tf.dispose([
      whole.value,
      bucketed.value,
      ...Object.values(whole.grads),
      ...Object.values(bucketed.grads),
    ]);
  });
});
