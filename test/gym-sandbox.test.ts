import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import {
  EDIT_OPS,
  makeEnv,
  makeTasks,
  plainEnv,
  runTests,
  sandboxWork,
  trainingHarness,
  type Task,
} from '../gym/index.ts';
import { applyOp } from '../gym/ops.ts';
import { deepEqual, type SandboxWork } from '../gym/sandbox.ts';
import { splitWords } from '../gym/words.ts';
import type { TestCase } from '../gym/types.ts';

/** Short limits for the tests of the sandbox itself; the gym always runs with SANDBOX_LIMITS. */
const TIMEOUT = { firstLimitMs: 20, confirmLimitMs: 40 };

/** The scripts the sandbox ran and the time limits they met during `call`. */
function workOf<T>(call: () => T): { result: T } & SandboxWork {
  const before = sandboxWork();
  const result = call();
  const after = sandboxWork();
  return {
    result,
    runs: after.runs - before.runs,
    timeouts: after.timeouts - before.timeouts,
    confirmedTimeouts: after.confirmedTimeouts - before.confirmedTimeouts,
  };
}

/**
 * The work of testing a source with `looping` calls that never end and `finished` scripts (the
 * definition and the calls that return): the run of all calls at once is stopped at the first
 * limit, each looping call once at the first limit and once at the confirming one, and nothing
 * runs a third time, so the time is bounded by the limits. A slow moment of the machine may stop
 * a finished script's first run, adding a stop and a rerun: counts a busy machine cannot break,
 * unlike a time.
 */
function expectBoundedWork(
  { runs, timeouts, confirmedTimeouts }: SandboxWork,
  { finished, looping }: { finished: number; looping: number },
): void {
  expect(runs - timeouts, 'scripts that finished').toBe(finished);
  expect(confirmedTimeouts, 'confirming reruns stopped').toBe(looping);
  const firstStops = timeouts - confirmedTimeouts;
  expect(firstStops, 'runs stopped at the first limit').toBeGreaterThanOrEqual(1 + looping);
  expect(firstStops, 'runs stopped at the first limit').toBeLessThanOrEqual(1 + looping + finished);
}

describe('sandbox', () => {
  it('fails a call that loops forever after the confirming rerun, and the next call still runs', () => {
    const work = workOf(() =>
      runTests(
        'function spin(x) { while (x >= 0) {} return x; }',
        'spin',
        [
          { args: [1], expected: 1 },
          { args: [-1], expected: -1 },
        ],
        TIMEOUT,
      ),
    );
    expect(work.result).toEqual([false, true]);
    expectBoundedWork(work, { finished: 2, looping: 1 }); // the definition and spin(-1) finish
  });

  it("with the gym's own limits, a truly non-terminating source still fails in bounded time (first limit plus confirmation)", () => {
    const work = workOf(() =>
      runTests('function forever(x) { for (;;) {} }', 'forever', [{ args: [1], expected: 1 }]),
    );
    expect(work.result).toEqual([false]);
    // Stopped at 50 ms twice (all calls at once, the call alone) and at 2 s once: npm run bench times it.
    expectBoundedWork(work, { finished: 1, looping: 1 });
    expect(
      workOf(() => runTests('function forever(x) { for (;;) {} }', 'forever', [{ args: [1], expected: 1 }])),
    ).toEqual({ result: [false], runs: 0, timeouts: 0, confirmedTimeouts: 0 }); // a confirmed verdict is cached
  });

  it('runs the microtasks a source queues under the time limit, so a looping promise callback fails the call and the host goes on', () => {
    const outcome = runTests(
      'function later(x) { Promise.resolve().then(() => { for (;;) {} }); return x; }',
      'later',
      [{ args: [1], expected: 1 }],
      TIMEOUT,
    );
    expect(outcome).toEqual([false]);
    // A promise callback that ends is run too, within the call: its effect is seen by the test.
    const settled = runTests(
      'function box(x) { const out = [x]; Promise.resolve().then(() => out.push(x + 1)); return out; }',
      'box',
      [{ args: [1], expected: [1, 2] }],
      TIMEOUT,
    );
    expect(settled).toEqual([true]);
  });

  it('does not fail a correct call that was merely slow once: the confirming rerun decides', () => {
    // The first run of each call is given 1 ms, which a busy-wait of 5 ms exceeds; the rerun has room.
    const slow = 'function slow(x) { const end = Date.now() + 5; while (Date.now() < end) {} return x; }';
    expect(
      runTests(
        slow,
        'slow',
        [
          { args: [3], expected: 3 },
          { args: [4], expected: 4 },
        ],
        { firstLimitMs: 1, confirmLimitMs: 1000 },
      ),
    ).toEqual([true, true]);
  });

  it('keys its cache by content: structured-cloned tests (as a worker thread receives them) hit the cache', () => {
    const tests: TestCase[] = [
      { args: [5], expected: 6 },
      { args: [[1, 2]], expected: '1,21' },
    ];
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(tests);
    const cloned = receiveMessageOnPort(port2)!.message as TestCase[];
    port1.close();
    expect(cloned).not.toBe(tests);
    const source = 'function inc(x) { return x + 1; }';
    expect(runTests(source, 'inc', cloned)).toBe(runTests(source, 'inc', tests));
    // Other values are another key.
    expect(runTests(source, 'inc', [{ args: [5], expected: 7 }])).toEqual([false]);
  });

  it('fails a call that throws or recurses without end, and a source that does not parse', () => {
    expect(
      runTests('function boom(x) { throw new Error(x); }', 'boom', [{ args: [1], expected: 1 }], TIMEOUT),
    ).toEqual([false]);
    expect(
      runTests('function deep(x) { return deep(x + 1); }', 'deep', [{ args: [1], expected: 1 }], TIMEOUT),
    ).toEqual([false]);
    expect(
      runTests('function broken(x) { return ( ; }', 'broken', [{ args: [1], expected: 1 }], TIMEOUT),
    ).toEqual([false]);
    expect(
      runTests('function named(x) { return x; }', 'other', [{ args: [1], expected: 1 }], TIMEOUT),
    ).toEqual([false]);
  });

  it('has no require, process, timers or eval', () => {
    const probe =
      'function probe() { return [typeof require, typeof process, typeof setTimeout, typeof setInterval].join(); }';
    expect(
      runTests(probe, 'probe', [{ args: [], expected: 'undefined,undefined,undefined,undefined' }], TIMEOUT),
    ).toEqual([true]);
    expect(
      runTests('function ev() { return eval("1"); }', 'ev', [{ args: [], expected: 1 }], TIMEOUT),
    ).toEqual([false]);
  });

  it('compares results by deep equality, across realms', () => {
    expect(
      runTests(
        'function pair(a) { return [a, { b: a }]; }',
        'pair',
        [
          { args: [2], expected: [2, { b: 2 }] },
          { args: [2], expected: [2, { b: 3 }] },
        ],
        TIMEOUT,
      ),
    ).toEqual([true, false]);
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
      id: 99,
      name: 'spin',
      type: 'negation',
      variant: 0,
      split: 'train',
      repairOp: 'remove_negation',
      source: 'function spin(x) { while (!x) {} return x; }',
      spec: 'returns its argument unchanged',
      params: ['x'],
      publicTests: [{ args: [true], expected: true }],
      hiddenTests: [{ args: [true], expected: true }],
    };
    const env = makeEnv(plainEnv(), { tasks: [task] });
    env.reset({ seed: 1 });
    expect(env.step(['test', '<end>']).observation.slice(-7, -2)).toEqual([
      'tests',
      '1',
      'of',
      '1',
      'passed',
    ]);
    expect(env.step(['edit', 'remove_negation', '<end>']).observation.slice(-3, -2)).toEqual(['edited']);
    const tested = workOf(() => env.step(['test', '<end>']));
    expect(tested.result.observation.slice(-7, -2)).toEqual(['tests', '0', 'of', '1', 'passed']);
    expectBoundedWork(tested, { finished: 1, looping: 1 });
    const submitted = workOf(() => env.step(['submit', '<end>']));
    // The hidden tests have the public ones' values: the cached verdict, no second wait.
    expect(submitted.runs).toBe(0);
    const result = submitted.result;
    expect([result.terminated, result.reward, result.info.hiddenPass]).toEqual([true, 0, false]);
    expect(env.reset({ seed: 2 }).observation[0]).toBe('<task>');
  });
  it('every source the six ops can reach within a default episode has no loop, no recursion and no way out of its own arguments', () => {
    // Closure of each task's source under the six ops, to the default turn budget (every turn an edit).
    const depth = trainingHarness().maxTurns;
    const members = new Set(['abs', 'floor', 'max', 'min', 'round', 'length', 'charAt', 'slice']);
    const keywords = new Set(['function', 'return', 'if', 'true', 'false']);
    let reachable = 0;
    for (const task of makeTasks('all')) {
      const seen = new Set([task.source]);
      let frontier = [task.source];
      for (let level = 0; level < depth; level += 1) {
        const next: string[] = [];
        for (const source of frontier) {
          for (const op of EDIT_OPS) {
            const edited = applyOp(source, op, { publicTests: task.publicTests }).source;
            if (!seen.has(edited)) {
              seen.add(edited);
              next.push(edited);
            }
          }
        }
        frontier = next;
      }
      reachable += seen.size;
      for (const source of seen) {
        const words = splitWords(source);
        words.forEach((word, i) => {
          const allowed =
            !/^[A-Za-z_$]/.test(word) ||
            keywords.has(word) ||
            task.params.includes(word) ||
            word === 'Math' ||
            (word === task.name && i === 1) ||
            (words[i - 1] === '.' && members.has(word));
          expect(allowed, `${task.name}: word '${word}' in ${source}`).toBe(true);
        });
        // Hence no while/for/do, no call of itself, no global, constructor or `this`: nothing can loop or escape.
        expect(runTests(source, task.name, task.hiddenTests)).toHaveLength(task.hiddenTests.length);
      }
    }
    expect(reachable).toBeGreaterThan(300);
  });
});
