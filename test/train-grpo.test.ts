import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import type { PolicyModel } from '../agent/index.ts';
import { padBatch } from '../train/batch.ts';
import { groupAdvantages, grpoLoss, stepTasks, type GrpoJob, type GrpoOptions } from '../train/grpo.ts';
import { makeTasks } from '../gym/index.ts';
import { Rng } from '../lib/rng.ts';

describe('groupAdvantages', () => {
  it('normalises by the unbiased group std as torch.std does (TRL GRPOTrainer)', () => {
    // Reference: torch.tensor([1., 0., 0., 0.]) -> mean 0.25, std (unbiased) 0.5;
    // (r - 0.25) / (0.5 + 1e-4).
    const advantages = groupAdvantages([1, 0, 0, 0], 4, { scaleRewards: true });
    expect(advantages[0]).toBeCloseTo(0.75 / 0.5001, 10);
    expect(advantages[1]).toBeCloseTo(-0.25 / 0.5001, 10);
  });

  it('mean-centres only when scaleRewards is off, group by group', () => {
    expect(groupAdvantages([1, 0, 0, 0, 1, 1], 2, { scaleRewards: false })).toEqual([0.5, -0.5, 0, 0, 0, 0]);
  });

  it('gives zero advantage to a group whose rewards are all equal', () => {
    expect(groupAdvantages([1, 1, 1, 0, 0, 0], 3, { scaleRewards: true })).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('throws when rewards do not split into whole groups', () => {
    expect(() => groupAdvantages([1, 0, 1], 2, { scaleRewards: true })).toThrow(/groups of 2/);
  });
});

describe('padBatch', () => {
  it('shifts the action mask and sampling log-probs onto the predicting position and pads', () => {
    const batch = padBatch(
      [
        { tokens: [5, 6, 7], actionMask: [0, 1, 0], oldPerTokenLogps: [0, -0.5, 0] },
        { tokens: [5, 8], actionMask: [0, 1], oldPerTokenLogps: [0, -1.5] },
      ],
      0,
    );
    expect(batch.length).toBe(3);
    expect(Array.from(batch.ids)).toEqual([5, 6, 7, 5, 8, 0]);
    // column t predicts token t+1
    expect(Array.from(batch.targetMask)).toEqual([1, 0, 1, 0]);
    expect(Array.from(batch.oldPerTokenLogps)).toEqual([-0.5, 0, -1.5, 0]);
  });
});

describe('grpoLoss against hand-computed values', () => {
  // A stand-in model whose per-token log-probs are given, so every term can be computed by hand.
  const fixedModel = (logps: number[][]) =>
    ({ tokenLogProbs: () => tf.tensor2d(logps) }) as unknown as PolicyModel;
  // Rows: A = +1, A = -1, and a row whose tokens are all masked. Ratios exp(logp - old) are
  // 1.5, 0.5 and 3 (the third token masked out in every row).
  const old = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ];
  const logps = [
    [Math.log(1.5), Math.log(0.5), Math.log(3)],
    [Math.log(1.5), Math.log(0.5), Math.log(3)],
    [Math.log(1.5), Math.log(0.5), Math.log(3)],
  ];
  const mask = [
    [1, 1, 0],
    [1, 1, 0],
    [0, 0, 0],
  ];
  // The job as grpoStep builds it: a padded batch (ids [3, 4], the rest [3, 3]) with its advantages.
  const job = (options: Partial<GrpoOptions>, refLogProbs?: number[][]): GrpoJob => ({
    kind: 'grpo',
    batch: {
      ids: new Int32Array(12),
      targetMask: Float32Array.from(mask.flat()),
      oldPerTokenLogps: Float32Array.from(old.flat()),
      lengths: Int32Array.from([4, 4, 4]),
      batchSize: 3,
      length: 4,
      advantages: Float32Array.from([1, -1, 1]),
      ...(refLogProbs !== undefined ? { refLogProbs: Float32Array.from(refLogProbs.flat()) } : {}),
    },
    options: { clipEpsilon: 0.2, klCoef: 0, entropyCoef: 0, ...options },
  });
  const loss = (options: Partial<GrpoOptions>, refLogProbs?: number[][]) =>
    tf.tidy(() => grpoLoss(fixedModel(logps), job(options, refLogProbs)).loss).dataSync()[0];

  it('clips where the clip binds and not where it does not, takes the masked mean per row, and counts an all-masked row as 0', () => {
    // A = +1: ratio 1.5 -> min(1.5, 1.2) = 1.2 (clip active); ratio 0.5 -> min(0.5, 0.8) = 0.5 (inactive). Row loss -(1.2 + 0.5) / 2 = -0.85.
    // A = -1: ratio 1.5 -> min(-1.5, -1.2) = -1.5 (inactive); ratio 0.5 -> min(-0.5, -0.8) = -0.8 (active). Row loss (1.5 + 0.8) / 2 = 1.15.
    // All-masked row: 0 / max(0, 1) = 0. Loss = (-0.85 + 1.15 + 0) / 3 = 0.1.
    expect(loss({ clipEpsilon: 0.2 })).toBeCloseTo(0.1, 6);
    // Without clipping (a huge epsilon) the masked tokens' plain ratio * A: row 0 -(1.5 + 0.5) / 2 = -1, row 1 (1.5 + 0.5) / 2 = 1.
    expect(loss({ clipEpsilon: 100 })).toBeCloseTo(0, 6);
  });

  it('adds beta times the k3 KL on the masked tokens', () => {
    // ref - logp = ln 2 on every token: k3 = 2 - ln 2 - 1 = 0.3068528; beta 0.1 adds 0.03068528 to rows 0 and 1.
    const ref = logps.map((row) => row.map((value) => value + Math.log(2)));
    expect(loss({ klCoef: 0.1 }, ref)).toBeCloseTo(0.1 + (2 * 0.1 * (1 - Math.log(2))) / 3, 6);
  });

  it("counts the tokens the clip binds on as TRL's clip_ratio does (is_region_clipped), on the policy's tokens only", () => {
    // TRL GRPOTrainer._compute_loss: is_high_clipped = ratio > 1 + eps & A > 0, is_low_clipped =
    // ratio < 1 - eps & A < 0. Row 0 (A = +1): 1.5 binds, 0.5 does not; row 1 (A = -1): 0.5 binds,
    // 1.5 does not; the masked ratio-3 tokens and the all-masked row count for nothing: 2 of 4
    // policy tokens, clip_ratio/region_mean 0.5. The loss is grpoLoss's.
    const terms = grpoLoss(fixedModel(logps), job({ clipEpsilon: 0.2 }));
    expect(terms.clippedTokens.dataSync()[0]).toBe(2);
    expect(terms.loss.dataSync()[0]).toBeCloseTo(0.1, 6);
    // A clip range [0.1, 1.9] holds both policy ratios: nothing binds (the masked 3 still does not count).
    const wide = grpoLoss(fixedModel(logps), job({ clipEpsilon: 0.9 }));
    expect(wide.clippedTokens.dataSync()[0]).toBe(0);
  });
});

describe('stepTasks: the task order', () => {
  const tasks = makeTasks('train');
  const names = (step: number, perStep: number | undefined, seed = 'order') =>
    stepTasks(tasks, perStep, new Rng(seed), step).map((task) => task.name);

  it('plays every training task in its own order when tasksPerStep is absent', () => {
    expect(names(1, undefined)).toEqual(tasks.map((task) => task.name));
    expect(names(7, undefined)).toEqual(tasks.map((task) => task.name));
  });

  it('plays each task once per pass, passes drawn anew, a step crossing from one pass into the next', () => {
    const all = tasks.map((task) => task.name).sort();
    // 10 a step: steps 1-2 are pass 0, steps 3-4 pass 1.
    expect([...names(1, 10), ...names(2, 10)].sort()).toEqual(all);
    expect([...names(3, 10), ...names(4, 10)].sort()).toEqual(all);
    expect([...names(1, 10), ...names(2, 10)]).not.toEqual([...names(3, 10), ...names(4, 10)]);
    // 7 a step: positions 0..139, seven passes of 20; step 3 (positions 14-20) crosses passes 0 and 1.
    const sequence = Array.from({ length: 20 }, (_, i) => names(i + 1, 7)).flat();
    for (let pass = 0; pass < 7; pass += 1)
      expect(sequence.slice(pass * 20, pass * 20 + 20).sort()).toEqual(all);
    expect(names(3, 7)).toEqual(sequence.slice(14, 21));
  });

  it('is a function of the seed and the step alone (the config refuses more tasks a step than the split has: config-validation)', () => {
    expect(names(5, 10)).toEqual(names(5, 10));
    expect(names(1, 20)).not.toEqual(names(1, 20, 'another'));
  });
});
