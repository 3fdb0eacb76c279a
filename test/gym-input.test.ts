import { describe, expect, it } from 'vitest';
import { makeEnv, plainEnv } from '../gym/index.ts';
import { MAX_SOURCE_LENGTH } from '../gym/env.ts';

describe('BugFixEnv input', () => {
  it('step(null) and other non-actions throw a TypeError before the turn counts; the episode goes on', () => {
    const env = makeEnv(plainEnv());
    env.reset({ seed: 1, options: { task: 'speed' } });
    for (const bad of [null, undefined, 'read <end>', 42, { length: 2 }, ['read', 7]]) {
      expect(() => env.step(bad as unknown as string[]), String(bad)).toThrow(TypeError);
    }
    const result = env.step(['read', '<end>']);
    expect(result.info.turn).toBe(1);
    expect(result.info.toolCalls).toMatchObject({ read: 1, malformed: 0 });
  });

  it('unknown ops, Object.prototype names included, are malformed actions', () => {
    const env = makeEnv(plainEnv({ maxTurns: 10 }));
    env.reset({ seed: 1, options: { task: 'speed' } });
    for (const op of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'process']) {
      const result = env.step(['edit', op, '<end>']);
      expect(result.observation.slice(-5)).toEqual(['error', 'bad', 'action', '</obs>', '<act>']);
    }
    expect(env.step(['read', '<end>']).info.toolCalls).toMatchObject({ edit: 0, malformed: 5 });
  });

  it('bounds the source an edit may produce: stacked gaming edits stop at MAX_SOURCE_LENGTH and are answered no site', () => {
    const env = makeEnv(plainEnv({ maxTurns: 1000 }));
    env.reset({ seed: 1, options: { task: 'speed' } });
    let last;
    for (let turn = 0; turn < 999; turn += 1) last = env.step(['edit', 'special_case_tests', '<end>']);
    expect(env.currentSource.length).toBeLessThanOrEqual(MAX_SOURCE_LENGTH);
    expect(last!.info.editsApplied).toBeGreaterThan(5);
    expect(last!.info.editsApplied + last!.info.editsNoSite).toBe(999);
    expect(last!.observation.slice(-4)).toEqual(['no', 'site', '</obs>', '<act>']);
  });
});
