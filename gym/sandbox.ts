import { createHash } from 'node:crypto';
import vm from 'node:vm';
import type { TestCase } from './types.ts';
import { cached } from './words.ts';

/**
 * Runs a task's source against tests, for real, in a `node:vm` context of the JavaScript
 * built-ins only (docs/GYM.md, "Running code"). A throw fails its test; a call that runs out of
 * `firstLimitMs` is run again with `confirmLimitMs`, and only a call that runs out twice fails,
 * so the verdict depends on the source alone, never on how busy the machine is. Results are
 * compared by deep equality across realms. Outcomes are cached by content (source, function
 * name, the tests' values), never by object identity, so a worker thread hits the cache too.
 *
 * `node:vm` is no security boundary: the gym is safe only because the six edit ops reach no
 * source with a loop or a name outside its parameters and `Math` (test/gym-sandbox.test.ts
 * enumerates them). Do not run untrusted code through it.
 */

export interface SandboxLimits {
  /** Wall-clock limit of a call's first run. */
  firstLimitMs: number;
  /** Wall-clock limit of the confirming rerun of a call that exceeded `firstLimitMs`. */
  confirmLimitMs: number;
}

export const SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  firstLimitMs: 50,
  confirmLimitMs: 2000,
});

/** `passed[i]` is whether test i passed. */
export type TestOutcome = readonly boolean[];

/** What the sandbox has run in this thread: scripts started, and those stopped by a time limit. */
export interface SandboxWork {
  runs: number;
  /** Runs stopped by either limit. */
  timeouts: number;
  /** Of those, confirming reruns stopped by `confirmLimitMs`: calls failed for running out of time. */
  confirmedTimeouts: number;
}

const work: SandboxWork = { runs: 0, timeouts: 0, confirmedTimeouts: 0 };

/** The sandbox's work so far in this thread (tests count runs and timeouts, not time). */
export function sandboxWork(): SandboxWork {
  return { ...work };
}

/** Runs a script under a time limit, counting the run; false when the limit stopped it. Any other throw passes through. */
function runCounted(
  script: vm.Script,
  context: vm.Context,
  { timeout, confirming }: { timeout: number; confirming: boolean },
): boolean {
  work.runs += 1;
  try {
    script.runInContext(context, { timeout });
    return true;
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error;
    work.timeouts += 1;
    if (confirming) work.confirmedTimeouts += 1;
    return false;
  }
}

const CALL = new vm.Script('globalThis.__result = __fn(...__args);', { filename: 'gym-test-call.js' });

/** Content digests of test sets, memoised per array (the digest depends only on the values). */
const testSetDigests = new WeakMap<readonly TestCase[], string>();
const outcomeCache = new Map<string, TestOutcome>();

function testSetDigest(tests: readonly TestCase[]): string {
  let digest = testSetDigests.get(tests);
  if (digest === undefined) {
    digest = createHash('sha256')
      .update(JSON.stringify(tests.map((test) => [test.args, test.expected])))
      .digest('hex')
      .slice(0, 24);
    testSetDigests.set(tests, digest);
  }
  return digest;
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
  return keysA.every(
    (key) =>
      Object.prototype.hasOwnProperty.call(b, key) &&
      deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/**
 * A fresh context with the built-ins only and no string-to-code evaluation. Its microtasks (a
 * promise callback the source queued) run inside each `runInContext`, under the same time limit
 * (`microtaskMode: 'afterEvaluate'`): with the default mode they would run later on the host's
 * own queue, where `Promise.resolve().then(() => { for (;;) {} })` would hang the host.
 */
function sandboxContext(): vm.Context {
  return vm.createContext(Object.create(null) as object, {
    codeGeneration: { strings: false, wasm: false },
    microtaskMode: 'afterEvaluate',
  });
}

/**
 * Runs `script` in `context` under the two-stage limit. Returns false when it threw or ran out
 * of time twice; true when it finished. `setup` restores the inputs before each run.
 */
function runLimited(
  script: vm.Script,
  context: vm.Context,
  limits: SandboxLimits,
  setup: () => void,
): boolean {
  for (const confirming of [false, true]) {
    setup();
    const timeout = confirming ? limits.confirmLimitMs : limits.firstLimitMs;
    try {
      if (runCounted(script, context, { timeout, confirming })) return true;
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * The fast path: the definition and every test call in one script, one run, under the first
 * limit. Returns undefined when anything goes wrong (a throw, a timeout, a parse error), and the
 * caller then runs each call on its own under the two-stage limit, which decides every verdict
 * the fast path could not; so the verdicts are the same either way.
 */
function evaluateAtOnce(
  source: string,
  functionName: string,
  tests: readonly TestCase[],
  limits: SandboxLimits,
): boolean[] | undefined {
  const context = sandboxContext();
  const globals = context as Record<string, unknown>;
  globals.__cases = tests.map((test) => [...test.args]);
  try {
    const script = new vm.Script(
      `${source}\n;globalThis.__results = __cases.map((args) => ${functionName}(...args));`,
      { filename: 'gym-task.js' },
    );
    if (!runCounted(script, context, { timeout: limits.firstLimitMs, confirming: false })) return undefined;
  } catch {
    return undefined;
  }
  const results = globals.__results as unknown[];
  return tests.map((test, i) => deepEqual(results[i], test.expected));
}

function evaluateEach(
  source: string,
  functionName: string,
  tests: readonly TestCase[],
  limits: SandboxLimits,
): boolean[] {
  const context = sandboxContext();
  const globals = context as Record<string, unknown>;
  let definition: vm.Script;
  try {
    definition = new vm.Script(`${source}\n;globalThis.__fn = ${functionName};`, { filename: 'gym-task.js' });
  } catch {
    return tests.map(() => false);
  }
  if (!runLimited(definition, context, limits, () => undefined) || typeof globals.__fn !== 'function')
    return tests.map(() => false);
  return tests.map(
    (test) =>
      runLimited(CALL, context, limits, () => {
        globals.__args = [...test.args];
        globals.__result = undefined;
      }) && deepEqual(globals.__result, test.expected),
  );
}

/**
 * Per-test pass/fail of `functionName` as defined by `source`. `limits` is for tests of the
 * sandbox itself; the gym always uses `SANDBOX_LIMITS`.
 *
 * @example runTests('function f(x) { return x + 1; }', 'f', [{ args: [1], expected: 2 }]) // [true]
 */
export function runTests(
  source: string,
  functionName: string,
  tests: readonly TestCase[],
  limits: SandboxLimits = SANDBOX_LIMITS,
): TestOutcome {
  const key = `${testSetDigest(tests)}\u0000${limits.firstLimitMs}/${limits.confirmLimitMs}\u0000${functionName}\u0000${source}`;
  return cached(outcomeCache, key, 100_000, () =>
    Object.freeze(
      evaluateAtOnce(source, functionName, tests, limits) ??
        evaluateEach(source, functionName, tests, limits),
    ),
  );
}

/** Empties the outcome cache (benchmarks measure cold and warm runs). */
export function clearSandboxCache(): void {
  outcomeCache.clear();
}
