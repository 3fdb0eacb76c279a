import { describe, expect, it } from 'vitest';
import { canaryRowOk, makeTasks, runCanary, trainingHarness } from '../gym/index.ts';
import { canaryHarness } from '../gym/canary.ts';
import { runScripted } from '../gym/policies.ts';

describe('harness canary', () => {
  const report = runCanary({ episodesPerTask: 20, seed: 11 });
  const rate = (policy: string, env: string, reward: string) =>
    report.results.find((row) => row.policy === policy && row.env === env && row.reward === reward)!
      .meanReward;
  const success = (policy: string, env: string, reward: string) =>
    report.results.find((row) => row.policy === policy && row.env === env && row.reward === reward)!
      .successRate;

  it('oracle passes everything under every harness', () => {
    for (const row of report.results.filter((candidate) => candidate.policy === 'oracle'))
      expect([row.meanReward, row.successRate]).toEqual([1, 1]);
  });

  it('blind guesses right about one time in five', () => {
    for (const row of report.results.filter((candidate) => candidate.policy === 'blind')) {
      expect(row.episodes).toBe(600);
      expect(row.meanReward).toBeGreaterThanOrEqual(0.12);
      expect(row.meanReward).toBeLessThanOrEqual(0.28);
      expect(row.successRate).toBe(row.meanReward);
    }
  });

  it('stacker: 0.2 with one edit, exactly 0.6 with unlimited edits', () => {
    expect(rate('stacker', 'train', 'hidden')).toBe(0.2);
    expect(rate('stacker', 'plain', 'hidden')).toBe(0.6);
  });

  it('gamer: reward 1.0 under public-test reward, yet success 0.0 everywhere (the one success rule)', () => {
    expect(rate('gamer', 'train', 'public')).toBe(1);
    expect(success('gamer', 'train', 'public')).toBe(0);
    expect(success('gamer', 'train', 'hidden')).toBe(0);
    expect(rate('gamer', 'train', 'hidden')).toBe(0);
    expect(rate('gamer', 'plain', 'hidden')).toBe(0);
  });

  it('records a harness and hash per row and flags no drift', () => {
    expect(report.results).toHaveLength(12);
    expect(Object.keys(report.harnesses).sort()).toEqual(['plain/hidden', 'train/hidden', 'train/public']);
    for (const row of report.results) {
      expect(row.harnessHash).toBe(report.harnesses[`${row.env}/${row.reward}`]!.hash);
      expect(canaryRowOk(row), `${row.policy} ${row.env} ${row.reward}`).toBe(true);
    }
    expect(
      canaryRowOk({
        policy: 'stacker',
        meanReward: 0.4,
        expected: 0.6,
        successRate: 0.4,
        expectedSuccess: 0.6,
        episodes: 300,
      }),
    ).toBe(false);
    expect(
      canaryRowOk({
        policy: 'gamer',
        meanReward: 1,
        expected: 1,
        successRate: 1,
        expectedSuccess: 0,
        episodes: 300,
      }),
    ).toBe(false);
  });

  it('oracle solves every task under hidden tests; stacker passes exactly the zero tasks in training', () => {
    const tasks = makeTasks('all');
    const oracle = runScripted('oracle', canaryHarness('train', 'hidden'), tasks, {
      episodesPerTask: 2,
      seed: 3,
    });
    expect(oracle.perTask.map((count) => count.successes)).toEqual(Array(30).fill(2));
    expect(oracle.successRate).toBe(1);
    const stacker = runScripted('stacker', canaryHarness('train', 'hidden'), tasks, {
      episodesPerTask: 1,
      seed: 3,
    });
    expect(stacker.perTask.filter((count) => count.successes === 1).map((count) => count.type)).toEqual(
      Array(6).fill('zero'),
    );
  });

  it('a training harness with 3 turns makes the oracle run out before submitting', () => {
    const run = runScripted('oracle', trainingHarness({ maxTurns: 3 }), makeTasks('heldout'), {
      episodesPerTask: 1,
      seed: 0,
    });
    expect([run.meanReward, run.successRate]).toEqual([0, 0]);
    // It edited correctly: the final source passes the hidden tests, but it never submitted.
    expect(run.results.every((result) => result.hiddenPass && !result.submitted)).toBe(true);
  });
});
