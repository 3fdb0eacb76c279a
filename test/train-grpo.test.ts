import { describe, expect, it } from 'vitest';
import { groupAdvantages, padBatch } from '../train/index.ts';

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
