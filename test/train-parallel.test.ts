import { createHash } from 'node:crypto';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { episodeSpecs, makeTasks, trainingHarness, type EpisodeSpec, type Task } from '../gym/index.ts';
import {
  buildTokenizer,
  createModel,
  defaultModelConfig,
  getWeights,
  initBackend,
  rollout,
  setWeights,
  type Agent,
} from '../agent/index.ts';
import { padBatch } from '../train/batch.ts';
import { playOnTwoCores, twoSharesOneThread, twoThreads } from '../train/compute.ts';
import { DataParallelWorker } from '../train/dataParallel.ts';
import { partsGradients, planJob, type LossJob } from '../train/gradients.ts';
import { Rng } from '../lib/rng.ts';

let agent: Agent;
let worker: DataParallelWorker;

beforeAll(async () => {
  const backend = await initBackend({ preference: 'wasm' });
  const tokenizer = buildTokenizer(makeTasks('all'));
  agent = {
    model: createModel(defaultModelConfig(tokenizer.words.length), new Rng('parallel')),
    tokenizer,
  };
  worker = await DataParallelWorker.start(agent, backend);
});

afterAll(async () => {
  await worker.close();
  agent.model.dispose();
});

/** A model of `agent`'s shape (or `config`'s) with weights of its own seed, and the same tokenizer. */
function otherAgent(label: string, config = agent.model.config): Agent {
  return {
    model: createModel(config, new Rng(label)),
    tokenizer: agent.tokenizer,
  };
}

const tokensOf = (records: readonly { tokens: readonly number[] }[]) =>
  records.map((record) => record.tokens);

/** Expects the worker's rollout of `player` to give the episodes one thread plays. */
async function expectPlaysAsOneThread(player: Agent, tasks: Task[], specs: EpisodeSpec[]): Promise<void> {
  const two = await worker.rollout(player, trainingHarness(), tasks, specs);
  expect(tokensOf(two)).toEqual(tokensOf(rollout(player, trainingHarness(), tasks, specs)));
}

describe('the data-parallel worker', () => {
  it("gives the gradient of the whole batch: two threads, each on length buckets, equal one thread on the padded batch to 1e-6 relative (to each variable's gradient norm)", async () => {
    // 21 rows: the halves are unequal (10 and 11), so each half's share of the mean matters.
    const tasks = makeTasks('train').slice(0, 7);
    const records = rollout(
      agent,
      trainingHarness(),
      tasks,
      episodeSpecs(tasks, 3, new Rng('parallel/rollout')),
    );
    const batch = padBatch(records, agent.tokenizer.padId);
    batch.advantages = Float32Array.from(records, (_, i) => (i % 3) - 1);
    const job: LossJob = { kind: 'grpo', batch, options: { clipEpsilon: 0.2, klCoef: 0, entropyCoef: 0 } };
    // One thread on the unplanned padded batch: one part, all rows.
    const single = partsGradients(agent.model, [{ job, weight: 1 }]);
    const split = await worker.gradients(agent, planJob(job, 2));
    expect(split.loss).toBeCloseTo(single.loss, 6);
    expect(split.policyTokens).toBe(single.policyTokens);
    let compared = 0;
    for (const [name, reference] of Object.entries(single.grads)) {
      const expected = reference.dataSync() as Float32Array;
      const actual = split.grads[name]!.dataSync() as Float32Array;
      // Relative L2 error: float32 sums over the batch round at about 1e-7 relative to the
      // norm, so a mis-weighted half (a wrong share, a dropped row) shows up far above 1e-6.
      let error = 0;
      let norm = 0;
      for (let i = 0; i < expected.length; i += 1) {
        error += (actual[i]! - expected[i]!) ** 2;
        norm += expected[i]! ** 2;
      }
      expect(norm, name).toBeGreaterThan(0);
      expect(Math.sqrt(error / norm), name).toBeLessThan(1e-6);
      compared += 1;
    }
    expect(compared).toBe(agent.model.variables().length);
    tf.dispose([...Object.values(single.grads), ...Object.values(split.grads)]);
  });

  it('plays the same episodes as one thread, bit for bit: rollouts split across threads give the same records', async () => {
    const tasks = makeTasks('heldout');
    const specs = episodeSpecs(tasks, 7, new Rng('parallel/play')); // 70 episodes: shares of 35, odd-sized batches
    const one = rollout(agent, trainingHarness(), tasks, specs);
    const two = await worker.rollout(agent, trainingHarness(), tasks, specs);
    expect(
      two.map((record) => [
        record.task,
        record.sample,
        record.envSeed,
        record.success,
        record.firstEditOp,
        record.turns,
        record.tokens,
        record.oldPerTokenLogps,
      ]),
    ).toEqual(
      one.map((record) => [
        record.task,
        record.sample,
        record.envSeed,
        record.success,
        record.firstEditOp,
        record.turns,
        record.tokens,
        record.oldPerTokenLogps,
      ]),
    );
  });

  it('weights sent without waiting (sendWeights) are the ones the next job plays with', async () => {
    const tasks = makeTasks('heldout').slice(0, 3);
    const specs = episodeSpecs(tasks, 4, new Rng('parallel/sent'));
    const other = otherAgent('parallel/sent/other');
    try {
      worker.sendWeights(other);
      await expectPlaysAsOneThread(other, tasks, specs);
      expect(tokensOf(rollout(agent, trainingHarness(), tasks, specs))).not.toEqual(
        tokensOf(rollout(other, trainingHarness(), tasks, specs)),
      );
    } finally {
      await worker.syncWeights(agent);
      other.model.dispose();
    }
  });

  it('a failure to take weights sent without waiting is reported by the next request, and the one after it works', async () => {
    const tasks = makeTasks('heldout').slice(0, 2);
    const specs = episodeSpecs(tasks, 2, new Rng('parallel/bad'));
    const smaller = otherAgent('parallel/bad/model', { ...agent.model.config, nLayers: 1 });
    try {
      worker.sendWeights(smaller); // the worker holds a two-layer model: setWeights refuses these
      await expect(worker.rollout(agent, trainingHarness(), tasks, specs)).rejects.toThrow(
        /training worker: .*setWeights: expected \d+ arrays, got \d+/,
      );
      // The worker does not count as holding `smaller`: holding it loads it, and it plays as one thread does.
      await worker.holdAgent(smaller);
      await expectPlaysAsOneThread(smaller, tasks, specs);
      await worker.holdAgent(agent); // the two-layer model again
      await expectPlaysAsOneThread(agent, tasks, specs);
    } finally {
      smaller.model.dispose();
    }
  });

  it("playOnTwoCores (the experiments' evaluation play) gives one thread's records for each agent it is handed", async () => {
    const tasks = makeTasks('heldout').slice(0, 4);
    const specs = episodeSpecs(tasks, 5, new Rng('parallel/shared'));
    const other = otherAgent('parallel/other');
    try {
      for (const player of [agent, other, agent]) {
        const two = await playOnTwoCores(player, trainingHarness(), tasks, specs);
        expect(tokensOf(two)).toEqual(tokensOf(rollout(player, trainingHarness(), tasks, specs)));
      }
    } finally {
      other.model.dispose();
    }
  });

  it('twoThreads computes both shares on this thread until its thread has started, with the same bits before and after, and the thread takes weights changed meanwhile', async () => {
    const tasks = makeTasks('train').slice(0, 6);
    const player = otherAgent('parallel/early');
    const specs = episodeSpecs(tasks, 4, new Rng('parallel/early/rollout'));
    const records = rollout(player, trainingHarness(), tasks, specs);
    const batch = padBatch(records, player.tokenizer.padId);
    batch.advantages = Float32Array.from(records, (_, i) => (i % 4) - 1.5);
    const job: LossJob = { kind: 'grpo', batch, options: { clipEpsilon: 0.2, klCoef: 0, entropyCoef: 0.01 } };
    const alone = twoSharesOneThread();
    const compute = twoThreads({ backend: 'wasm' });
    // The loss and a sha256 of every gradient's bytes: equal digests are equal bits.
    const bits = async (via: typeof compute) => {
      const { loss, grads } = await via.gradients(player, job);
      const hash = createHash('sha256');
      for (const v of player.model.variables()) hash.update(grads[v.name]!.dataSync() as Float32Array);
      tf.dispose(Object.values(grads));
      return { loss, gradients: hash.digest('hex') };
    };
    try {
      // The thread loads for seconds: these calls are served here meanwhile.
      const early = await bits(compute);
      expect(early).toEqual(await bits(alone));
      expect(tokensOf(await compute.rollout(player, trainingHarness(), tasks, specs))).toEqual(
        tokensOf(records),
      );
      // Weights changed before the thread is in use: it must compute with these, not the ones it started with.
      const changed = getWeights(player.model).map((w) => w.map((x, i) => (i % 7 === 0 ? x * 0.9 : x)));
      setWeights(player.model, changed);
      await compute.weightsChanged(player);
      await compute.started(player);
      const late = await bits(compute);
      expect(late).toEqual(await bits(alone));
      expect(late.loss).not.toBe(early.loss);
    } finally {
      await compute.close();
      player.model.dispose();
    }
  });
});
