import { describe, expect, it } from 'vitest';
import { deepEqual, makeEnv, plainEnv, runTests, type Task } from '../gym/index.ts';

const TIMEOUT = { timeoutMs: 50 };

describe('sandbox', () => {
  it('fails a call that loops forever within about the timeout, and the next call still runs', () => {
    const started = Date.now();
    const outcome = runTests('function spin(x) { while (x >= 0) {} return x; }', 'spin', [{ args: [1], expected: 1 }, { args: [-1], expected: -1 }], TIMEOUT);
    expect(outcome).toEqual([false, true]);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('fails a call that throws or recurses without end, and a source that does not parse', () => {
    expect(runTests('function boom(x) { throw new Error(x); }', 'boom', [{ args: [1], expected: 1 }], TIMEOUT)).toEqual([false]);
    expect(runTests('function deep(x) { return deep(x + 1); }', 'deep', [{ args: [1], expected: 1 }], TIMEOUT)).toEqual([false]);
    expect(runTests('function broken(x) { return ( ; }', 'broken', [{ args: [1], expected: 1 }], TIMEOUT)).toEqual([false]);
    expect(runTests('function named(x) { return x; }', 'other', [{ args: [1], expected: 1 }], TIMEOUT)).toEqual([false]);
  });

  it('has no require, process, timers or eval', () => {
    const probe = 'function probe() { return [typeof require, typeof process, typeof setTimeout, typeof setInterval].join(); }';
    expect(runTests(probe, 'probe', [{ args: [], expected: 'undefined,undefined,undefined,undefined' }], TIMEOUT)).toEqual([true]);
    expect(runTests('function ev() { return eval("1"); }', 'ev', [{ args: [], expected: 1 }], TIMEOUT)).toEqual([false]);
  });

  it('compares results by deep equality, across realms', () => {
    expect(runTests('function pair(a) { return [a, { b: a }]; }', 'pair', [{ args: [2], expected: [2, { b: 2 }] }, { args: [2], expected: [2, { b: 3 }] }], TIMEOUT))
      .toEqual([true, false]);
    expect(deepEqual(NaN, NaN)).toBe(true);
    expect(deepEqual([1, 2], [1, 2, 3])).toBe(false);
    expect(deepEqual('1', 1)).toBe(false);
  });

  it('caches: the same source gives the same (frozen) outcome object', () => {
    const tests = [{ args: [1], expected: 2 }];
    const first = runTests('function inc(x) { return x + 1; }', 'inc', tests, TIMEOUT);
    expect(runTests('function inc(x) { return x + 1; }', 'inc', tests, TIMEOUT)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('an env whose edit yields a looping function scores it as failing and goes on', () => {
    // A hand-made task whose repair op turns a terminating loop into an endless one.
    const task: Task = {
      id: 99, name: 'spin', type: 'negation', variant: 0, split: 'train', repairOp: 'remove_negation',
      source: 'function spin(x) { while (!x) {} return x; }', spec: 'returns its argument unchanged', params: ['x'],
      publicTests: [{ args: [true], expected: true }], hiddenTests: [{ args: [true], expected: true }],
    };
    const env = makeEnv(plainEnv({ testTimeoutMs: 20 }), { tasks: [task] });
    env.reset({ seed: 1 });
    expect(env.step(['test', '<end>']).observation.slice(-7, -2)).toEqual(['tests', '1', 'of', '1', 'passed']);
    expect(env.step(['edit', 'remove_negation', '<end>']).observation.slice(-3, -2)).toEqual(['edited']);
    const started = Date.now();
    expect(env.step(['test', '<end>']).observation.slice(-7, -2)).toEqual(['tests', '0', 'of', '1', 'passed']);
    expect(Date.now() - started).toBeLessThan(2000);
    const result = env.step(['submit', '<end>']);
    expect([result.terminated, result.reward, result.info.hiddenPass]).toEqual([true, 0, false]);
    expect(env.reset({ seed: 2 }).observation[0]).toBe('<task>');
  });
});
