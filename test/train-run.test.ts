import { cpSync, mkdtempSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { episodeSpecs, makeTasks, pickHarness } from '../gym/index.ts';
import {
  buildTokenizer,
  checkpointChecksum,
  createModel,
  defaultModelConfig,
  initBackend,
  rollout,
  type Agent,
} from '../agent/index.ts';
import {
  adam,
  defaultRLConfig,
  oneThread,
  optimizerStep,
  trainSeeds,
  trainSnapshots,
} from '../train/index.ts';
import { demoTranscripts } from '../train/bc.ts';
import { batchTensors, padBatch } from '../train/batch.ts';
import { partsGradients } from '../train/gradients.ts';
import { grpoStep } from '../train/grpo.ts';
import { openRunLog } from '../lib/log.ts';
import { Rng } from '../lib/rng.ts';
import { TINY_TRAINING } from './support/cli.ts';

const tiny = { ...TINY_TRAINING, bcSteps: 2, steps: 2, evalEvery: 1 };
let workDir: string;
let agent: Agent;

beforeAll(async () => {
  await initBackend({ preference: 'wasm' });
  workDir = mkdtempSync(join(tmpdir(), 'tinyagent-train-'));
  const tokenizer = buildTokenizer(makeTasks('all'));
  agent = {
    model: createModel(defaultModelConfig(tokenizer.words.length), new Rng('test-model')),
    tokenizer,
  };
});

afterAll(() => {
  agent.model.dispose();
  rmSync(workDir, { recursive: true, force: true });
});

describe('trainSnapshots', () => {
  async function run(
    name: string,
    overrides: Record<string, unknown>,
    threads: 1 | 2 = 2,
    baseAgent?: string,
  ) {
    const runDir = join(workDir, name);
    const summary = await trainSnapshots(defaultRLConfig({ ...tiny, ...overrides }), {
      runDir,
      log: openRunLog(runDir, { quiet: true }),
      threads,
      baseAgent,
    });
    return { runDir, summary, checksums: summary.snapshots.map((dir) => checkpointChecksum(dir)) };
  }

  it('gives identical checkpoints for the same seed, and different ones for another seed (one thread)', async () => {
    const first = await run('a', { parallel: false });
    const second = await run('b', { parallel: false });
    expect(first.summary.snapshots.map((dir) => dir.split('/').pop())).toEqual([
      'step-0',
      'step-1',
      'step-2',
    ]);
    expect(second.checksums).toEqual(first.checksums);
    const other = await run('c', { parallel: false, seed: 1 });
    expect(other.checksums[0]).not.toEqual(first.checksums[0]);
  });

  it('with one baseSeed, RL seeds share the base agent byte for byte (step 0) and part after it', async () => {
    const own = await run('a', { parallel: false });
    // klCoef > 0 keeps every row in the update, so step 1 moves even when every reward is equal.
    const one = await run('base0-rl1', { parallel: false, baseSeed: 0, seed: 1, klCoef: 0.05 });
    const two = await run('base0-rl2', { parallel: false, baseSeed: 0, seed: 2, klCoef: 0.05 });
    expect(one.checksums[0]).toBe(own.checksums[0]);
    expect(two.checksums[0]).toBe(own.checksums[0]);
    expect(one.checksums[1]).not.toBe(two.checksums[1]);
    // Without baseSeed the seed draws the base agent too (the 'c' run above: seed 1, another step 0).
    const other = await run('c', { parallel: false, seed: 1 });
    expect(other.checksums[0]).not.toBe(one.checksums[0]);
  });

  it("takes another RL seed's base agent as its step 0 where it can stand in: the files behaviour cloning gives, byte for byte", async () => {
    const base = { parallel: false, baseSeed: 0, klCoef: 0.05 };
    const one = await run('shared-rl1', { ...base, seed: 1 });
    const cloned = await run('shared-rl2-cloned', { ...base, seed: 2 });
    const shared = await run('shared-rl2', { ...base, seed: 2 }, 2, join(one.runDir, 'step-0'));
    expect(shared.summary.seconds.bc).toBe(0);
    expect(cloned.summary.seconds.bc).toBeGreaterThan(0);
    const log = readFileSync(join(shared.runDir, 'log.jsonl'), 'utf8');
    expect(log).toContain(`step 0: the base agent of ${join(one.runDir, 'step-0')} (baseSeed 0`);
    expect(log).not.toContain('"event":"bc/done"');
    expect(readFileSync(join(cloned.runDir, 'log.jsonl'), 'utf8')).toContain('"event":"bc/done"');
    for (const step of ['step-0', 'step-1', 'step-2'])
      for (const file of ['manifest.json', 'weights.bin'])
        expect(readFileSync(join(shared.runDir, step, file))).toEqual(
          readFileSync(join(cloned.runDir, step, file)),
        );
    // Another base agent (no baseSeed: its seed drew it), or a run without a baseSeed: the run clones its own.
    const unshared = await run('shared-c', { parallel: false, seed: 1, klCoef: 0.05 });
    const foreign = await run('shared-foreign', { ...base, seed: 2 }, 2, join(unshared.runDir, 'step-0'));
    expect(foreign.checksums).toEqual(cloned.checksums);
    expect(readFileSync(join(foreign.runDir, 'log.jsonl'), 'utf8')).toMatch(
      /base agent: \S+ not used \(it was trained with another config \(baseSeed undefined there, 0 in the run\)\)/,
    );
    const own = await run(
      'shared-none',
      { parallel: false, seed: 1, klCoef: 0.05 },
      2,
      join(one.runDir, 'step-0'),
    );
    expect(own.checksums).toEqual(unshared.checksums);
    expect(readFileSync(join(own.runDir, 'log.jsonl'), 'utf8')).toContain(
      'not used (the run has no baseSeed: its seed draws its base agent)',
    );
  });

  it('train --seeds with a baseSeed: every seed after the first takes its base agent', async () => {
    const results = await trainSeeds(
      defaultRLConfig({ ...tiny, parallel: false, baseSeed: 0, klCoef: 0.05 }),
      [1, 2],
      {
        runsDir: join(workDir, 'seeds'),
        openLog: (dir) => openRunLog(dir, { quiet: true }),
        episodes: 1,
        evalSeed: 1,
      },
    );
    expect(results.map((result) => result.summary.seconds.bc > 0)).toEqual([true, false]);
    expect(results[1]!.base.checksum).toBe(results[0]!.base.checksum);
    expect(readFileSync(join(results[1]!.runDir, 'log.jsonl'), 'utf8')).toContain(
      `step 0: the base agent of ${join(results[0]!.runDir, 'step-0')} (baseSeed 0`,
    );
  });

  it('a task order and minibatches: the same seed gives the same checkpoints, another update than the full batch on every task', async () => {
    const design = { parallel: false, tasksPerStep: 3, minibatchSize: 4, updateEpochs: 2, klCoef: 0.05 };
    const first = await run('design-1', design);
    const second = await run('design-2', design);
    expect(second.checksums).toEqual(first.checksums);
    const full = await run('design-full', { parallel: false, updateEpochs: 2, klCoef: 0.05 });
    expect(full.checksums[0]).toBe(first.checksums[0]);
    expect(full.checksums[1]).not.toBe(first.checksums[1]);
    await expect(run('design-bad', { parallel: false, tasksPerStep: 21 })).rejects.toThrow(
      /config\.tasksPerStep 21 is more than the 20 training tasks/,
    );
  });

  it('gives identical checkpoints for the same seed with the worker thread, and with its two shares on one thread (threads: 1)', async () => {
    const first = await run('p1', { parallel: true, klCoef: 0.05 });
    const second = await run('p2', { parallel: true, klCoef: 0.05 });
    expect(second.checksums).toEqual(first.checksums);
    const shares = await run('p-shares', { parallel: true, klCoef: 0.05 }, 1);
    expect(shares.checksums).toEqual(first.checksums);
    expect(readFileSync(join(shares.runDir, 'log.jsonl'), 'utf8')).toContain(
      "two threads' shares on one thread",
    );
    // One thread's own plan (parallel: false) rounds differently: the shares are what make the bits.
    const one = await run('p-one', { parallel: false, klCoef: 0.05 });
    expect(one.checksums).not.toEqual(first.checksums);
  });

  it('resumes an interrupted run from its last complete snapshot and ends with the same checkpoints', async () => {
    const full = await run('r-full', { parallel: false });
    const partial = await run('r-part', { parallel: false, steps: 1 });
    expect(partial.summary.snapshots).toHaveLength(2);
    const resumed = await run('r-part', { parallel: false });
    expect(resumed.summary.resumedFrom).toBe(1);
    expect(resumed.checksums).toEqual(full.checksums);
    expect(existsSync(join(resumed.runDir, 'log.jsonl'))).toBe(true);
  });

  it('logs losses/clipRatio in grpo/step records, in (0, 1] on a step whose update epochs move the policy past the clip', async () => {
    // Enough cloning for some groups to differ in reward (so there is an update), then three
    // update epochs at a high learning rate: the first epoch's policy is the sampling policy
    // (ratio 1 to float rounding), and the later ones leave [1 - eps, 1 + eps] on some tokens.
    const { runDir } = await run('clip', {
      ...tiny,
      bcSteps: 30,
      bcBatchSize: 16,
      steps: 1,
      updateEpochs: 3,
      learningRate: 0.02,
      parallel: false,
    });
    const steps = readFileSync(join(runDir, 'log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((record) => record['event'] === 'grpo/step');
    expect(steps).toHaveLength(1);
    const clipRatio = steps[0]!['losses/clipRatio'];
    expect(typeof clipRatio).toBe('number');
    expect(clipRatio as number).toBeGreaterThan(0);
    expect(clipRatio as number).toBeLessThanOrEqual(1);
  });

  it("refuses to resume from a snapshot copied in from another seed's run, naming it, and leaves it there", async () => {
    const own = await run('f0', { parallel: false, steps: 1 });
    const other = await run('f1', { parallel: false, seed: 1 });
    cpSync(join(other.runDir, 'step-2'), join(own.runDir, 'step-2'), { recursive: true });
    await expect(run('f0', { parallel: false })).rejects.toThrow(
      `${join(own.runDir, 'step-2')} is not a snapshot of this run: its seed is 1, the run's is 0`,
    );
    expect(checkpointChecksum(join(own.runDir, 'step-2'))).toBe(other.checksums[2]);
  });

  it('refuses to resume a run folder that holds a different config, naming the field', async () => {
    await expect(run('r-full', { parallel: false, learningRate: 0.5 })).rejects.toThrow(/learningRate/);
    expect(JSON.parse(readFileSync(join(workDir, 'r-full', 'config.json'), 'utf8')).config.learningRate).toBe(
      defaultRLConfig().learningRate,
    );
  });
});

describe('GRPO step', () => {
  it('does not leak tensors across a training step and a batch of rollouts', async () => {
    const config = defaultRLConfig({ ...tiny, parallel: false });
    const train = makeTasks('train').slice(0, 3);
    const optimizer = adam(1e-3);
    const compute = oneThread();
    const update = {
      update: (job: Parameters<typeof optimizerStep>[2]) =>
        optimizerStep(agent, optimizer, job, { compute, maxGradNorm: 1 }),
    };
    // A first step creates Adam's slot variables; count after it.
    await grpoStep(agent, config, pickHarness(config), train, new Rng('leak/0'), update);
    const before = tf.memory().numTensors;
    await grpoStep(agent, config, pickHarness(config), train, new Rng('leak/1'), update);
    rollout(agent, pickHarness(config), train, episodeSpecs(train, 2, new Rng('leak/2')));
    expect(tf.memory().numTensors).toBe(before);
    optimizer.dispose();
  });

  it('with minibatchSize, each update epoch passes every row once, in minibatches of that size', async () => {
    // klCoef > 0 keeps every row in the update (no reference needed for the count).
    const config = defaultRLConfig({
      ...tiny,
      parallel: false,
      minibatchSize: 4,
      updateEpochs: 2,
      klCoef: 0.1,
    });
    const train = makeTasks('train').slice(0, 3);
    const seen: Array<{ rows: number; advantages: number[] }> = [];
    await grpoStep(agent, config, pickHarness(config), train, new Rng('minibatches'), {
      update: (job) => {
        seen.push({ rows: job.batch.batchSize, advantages: Array.from(job.batch.advantages!) });
        return Promise.resolve({ loss: 0, gradNorm: 0, clippedTokens: 0, policyTokens: 1 });
      },
    });
    // 3 tasks x groupSize 2 = 6 rows: minibatches of 4 and 2, twice.
    expect(seen.map((part) => part.rows)).toEqual([4, 2, 4, 2]);
    const epoch = (i: number) => [...seen[2 * i]!.advantages, ...seen[2 * i + 1]!.advantages].sort();
    expect(epoch(0)).toEqual(epoch(1));
  });

  it('uses the sampling pass log-probabilities: recomputed ones match on every action token', () => {
    const config = defaultRLConfig();
    const tasks = makeTasks('heldout');
    const records = rollout(agent, pickHarness(config), tasks, episodeSpecs(tasks, 2, new Rng('logp')));
    const batch = padBatch(records, agent.tokenizer.padId);
    const recomputed = tf.tidy(
      () => agent.model.tokenLogProbs(batchTensors(batch).ids).dataSync() as Float32Array,
    );
    let compared = 0;
    batch.targetMask.forEach((mask, i) => {
      if (mask !== 1) return;
      expect(Math.abs(recomputed[i]! - batch.oldPerTokenLogps[i]!)).toBeLessThan(1e-4);
      compared += 1;
    });
    expect(compared).toBeGreaterThan(records.length * 2);
  });
});

describe('loss masking', () => {
  it('puts no gradient through observation tokens: perturbing their targets leaves the gradient unchanged', () => {
    const config = defaultRLConfig();
    const [demo] = demoTranscripts(
      pickHarness(config),
      makeTasks('train'),
      1,
      new Rng('mask'),
      agent.tokenizer,
    );
    // Cut the transcript right after an observation, so its last tokens are observation tokens
    // that no later action reads: they appear only as (masked) targets.
    const tokens = [...demo!.tokens];
    const lastAction = demo!.actionMask.lastIndexOf(1);
    const cut = demo!.actionMask.findIndex((m, t) => t > demo!.actionMask.indexOf(1) + 2 && m === 1) - 1;
    expect(cut).toBeGreaterThan(0);
    expect(lastAction).toBeGreaterThan(cut);
    const transcript = { tokens: tokens.slice(0, cut + 1), actionMask: demo!.actionMask.slice(0, cut + 1) };
    expect(transcript.actionMask[cut]).toBe(0);
    const perturbed = {
      ...transcript,
      tokens: transcript.tokens.map((token, t) =>
        t >= cut - 2 && transcript.actionMask[t] === 0 ? agent.tokenizer.unkId : token,
      ),
    };
    expect(perturbed.tokens).not.toEqual(transcript.tokens);
    const gradient = (t: typeof transcript) =>
      tf.tidy(() => {
        const job = { kind: 'bc', batch: padBatch([t], agent.tokenizer.padId) } as const;
        const { grads } = partsGradients(agent.model, [{ job, weight: 1 }]);
        return Object.values(grads).map((g) => Array.from(g.dataSync()));
      });
    expect(gradient(perturbed)).toEqual(gradient(transcript));
    // And the test can fail: perturbing an action token does change the gradient.
    const actionPerturbed = {
      ...transcript,
      tokens: transcript.tokens.map((token, t) =>
        t === transcript.actionMask.indexOf(1) ? agent.tokenizer.unkId : token,
      ),
    };
    expect(gradient(actionPerturbed)).not.toEqual(gradient(transcript));
  });
});
