import vm from 'node:vm';
import type { TestCase } from './types.ts';

/**
 * Runs a task's source against tests, for real, in a `node:vm` context.
 *
 * The context is a fresh global object with the JavaScript built-ins only: no `require`,
 * `process`, timers or string-to-code evaluation. Every test call runs as its own script with a
 * timeout, so an edit that loops forever fails that test after `timeoutMs` and an edit that
 * throws fails it at once; neither can hang or crash the gym. Results are compared by deep
 * equality (the values may come from the context's realm, so prototypes are not compared).
 *
 * Outcomes are cached by (source text, function name, test set, timeout): the same source always
 * gives the same result, and rollouts revisit the same few sources constantly.
 */

export interface SandboxOptions {
  /** Wall-clock limit per test call. */
  timeoutMs: number;
}

/** `passed[i]` is whether test i passed. */
export type TestOutcome = readonly boolean[];

const CALL = new vm.Script('globalThis.__result = __fn(...__args);', { filename: 'gym-test-call.js' });

const testSetIds = new WeakMap<readonly TestCase[], number>();
let nextTestSetId = 0;
const outcomeCache = new Map<string, TestOutcome>();
const CACHE_LIMIT = 100_000;

function testSetId(tests: readonly TestCase[]): number {
  let id = testSetIds.get(tests);
  if (id === undefined) {
    id = nextTestSetId++;
    testSetIds.set(tests, id);
  }
  return id;
}

/** Structural equality across realms; NaN equals NaN. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => Object.prototype.hasOwnProperty.call(b, key) &&
    deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

function evaluate(source: string, functionName: string, tests: readonly TestCase[], timeoutMs: number): boolean[] {
  const context = vm.createContext(Object.create(null) as object, { codeGeneration: { strings: false, wasm: false } });
  const globals = context as Record<string, unknown>;
  try {
    new vm.Script(`${source}\n;globalThis.__fn = ${functionName};`, { filename: 'gym-task.js' }).runInContext(context, { timeout: timeoutMs });
  } catch {
    return tests.map(() => false);
  }
  if (typeof globals.__fn !== 'function') return tests.map(() => false);
  return tests.map((test) => {
    globals.__args = [...test.args];
    globals.__result = undefined;
    try {
      CALL.runInContext(context, { timeout: timeoutMs });
      return deepEqual(globals.__result, test.expected);
    } catch {
      return false;
    }
  });
}

/**
 * Per-test pass/fail of `functionName` as defined by `source`.
 *
 * @example runTests('function f(x) { return x + 1; }', 'f', [{ args: [1], expected: 2 }], { timeoutMs: 50 }) // [true]
 */
export function runTests(source: string, functionName: string, tests: readonly TestCase[], { timeoutMs }: SandboxOptions): TestOutcome {
  const key = `${testSetId(tests)}\u0000${timeoutMs}\u0000${functionName}\u0000${source}`;
  let outcome = outcomeCache.get(key);
  if (outcome === undefined) {
    outcome = Object.freeze(evaluate(source, functionName, tests, timeoutMs));
    if (outcomeCache.size >= CACHE_LIMIT) outcomeCache.clear();
    outcomeCache.set(key, outcome);
  }
  return outcome;
}

/** Number of passing tests in an outcome. */
export function countPassed(outcome: TestOutcome): number {
  let passed = 0;
  for (const ok of outcome) if (ok) passed += 1;
  return passed;
}

/** Empties the outcome cache (benchmarks measure cold and warm runs). */
export function clearSandboxCache(): void {
  outcomeCache.clear();
}
