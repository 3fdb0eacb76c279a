import { EDIT_OPS, GAMING_OP, type EditOp, type TestCase } from './types.ts';
import { cached, IDENTIFIER, renderWords, splitWords } from './words.ts';
import { getOrAdd } from '../lib/collections.ts';

/**
 * The six edit ops: real source-to-source rewrites on words, applied to whatever source the
 * episode holds now, so ops stack. None of them looks up the task's answer.
 *
 * Site rules (the first site wins; no site means nothing changes):
 * - `add_zero_guard`: the first `/ ID` (an identifier divisor; `/ 2` is not a site) whose
 *   divisor has no guard yet; inserts `if (ID === 0) return 0;` at the start of the body.
 *   A second application finds the guard and reports no site.
 * - `fix_comparison`: the first bare `<` or `>` (never part of `<=`, `>=`, `=>`, which are
 *   words of their own); rewrites it to `<=` / `>=`.
 * - `fix_off_by_one`: the first `- 1` (the words `-` and `1`; `- 10` is not a site); removes it.
 * - `remove_negation`: the first `!` word (never part of `!=` or `!==`); removes it.
 * - `swap_min_max`: the first `Math.min`, rewritten to `Math.max`. One direction only: a
 *   symmetric swap would undo itself when applied twice, and the invariant asks that a repeated
 *   op be harmless.
 * - `special_case_tests` (the gaming op): inserts, at the start of the body, one
 *   `if (p1 === v1 && p2 === v2) return e;` per public test, with the parameter names read from
 *   the current source. Public tests then pass and hidden tests still fail.
 */

export interface OpContext {
  /** The public tests the gaming op special-cases; the repair ops ignore them. */
  publicTests: readonly TestCase[];
}

export interface OpResult {
  source: string;
  applied: boolean;
  /** Why nothing changed, or what changed, in a few words for logs and `play`. */
  note: string;
}

const GUARD_RESULT = '0';

/** A test value as one source word: `3`, `'abc'`, `true`. Throws on anything else. */
export function literalWord(value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return String(value);
  if (typeof value === 'string' && !/['\s\\]/.test(value)) return `'${value}'`;
  if (typeof value === 'boolean') return String(value);
  throw new Error(
    `literalWord: ${JSON.stringify(value)} cannot be written as a single non-negative literal word`,
  );
}

/** Index just after the body's opening `{` (the first `{` after the parameter list). */
function bodyStart(words: readonly string[]): number {
  const close = words.indexOf(')');
  const brace = words.indexOf('{', close);
  return brace < 0 ? -1 : brace + 1;
}

/** The parameter names of `function NAME(a, b) {...}`, read from its words. */
export function paramNames(words: readonly string[]): string[] {
  const open = words.indexOf('(');
  const close = words.indexOf(')', open);
  return open < 0 || close < 0 ? [] : words.slice(open + 1, close).filter((word) => word !== ',');
}

function hasGuard(words: readonly string[], divisor: string): boolean {
  const guard = ['if', '(', divisor, '===', '0', ')', 'return'];
  return words.some((_, i) => guard.every((word, k) => words[i + k] === word));
}

/** The rewritten words, or a reason when the op has no site. */
type Rewrite = { words: string[]; note: string } | { noSite: string };

function addZeroGuard(words: readonly string[]): Rewrite {
  const start = bodyStart(words);
  for (let i = 0; i + 1 < words.length; i += 1) {
    const divisor = words[i + 1] as string;
    if (words[i] !== '/' || !IDENTIFIER.test(divisor) || hasGuard(words, divisor)) continue;
    if (start < 0) break;
    const guard = ['if', '(', divisor, '===', '0', ')', 'return', GUARD_RESULT, ';'];
    return { words: [...words.slice(0, start), ...guard, ...words.slice(start)], note: `guarded ${divisor}` };
  }
  return { noSite: 'no unguarded division by a name' };
}

function fixComparison(words: readonly string[]): Rewrite {
  const i = words.findIndex((word) => word === '<' || word === '>');
  if (i < 0) return { noSite: 'no strict comparison' };
  const copy = [...words];
  copy[i] = words[i] === '<' ? '<=' : '>=';
  return { words: copy, note: `${words[i]} became ${copy[i]}` };
}

function fixOffByOne(words: readonly string[]): Rewrite {
  for (let i = 0; i + 1 < words.length; i += 1) {
    if (words[i] === '-' && words[i + 1] === '1')
      return { words: [...words.slice(0, i), ...words.slice(i + 2)], note: 'removed - 1' };
  }
  return { noSite: 'no - 1' };
}

function removeNegation(words: readonly string[]): Rewrite {
  const i = words.indexOf('!');
  if (i < 0) return { noSite: 'no !' };
  return { words: [...words.slice(0, i), ...words.slice(i + 1)], note: 'removed !' };
}

function swapMinMax(words: readonly string[]): Rewrite {
  for (let i = 0; i + 2 < words.length; i += 1) {
    if (words[i] === 'Math' && words[i + 1] === '.' && words[i + 2] === 'min') {
      const copy = [...words];
      copy[i + 2] = 'max';
      return { words: copy, note: 'Math.min became Math.max' };
    }
  }
  return { noSite: 'no Math.min' };
}

function specialCaseTests(words: readonly string[], context: OpContext): Rewrite {
  const start = bodyStart(words);
  const names = paramNames(words);
  if (start < 0 || context.publicTests.length === 0) return { noSite: 'no public tests to special-case' };
  const inserted: string[] = [];
  for (const test of context.publicTests) {
    if (test.args.length !== names.length) return { noSite: 'test arity differs from the parameters' };
    const condition = names.flatMap((name, k) =>
      (k === 0 ? [] : ['&&']).concat([name, '===', literalWord(test.args[k])]),
    );
    inserted.push('if', '(', ...condition, ')', 'return', literalWord(test.expected), ';');
  }
  return {
    words: [...words.slice(0, start), ...inserted, ...words.slice(start)],
    note: `special-cased ${context.publicTests.length} inputs`,
  };
}

const REWRITES: Record<EditOp, (words: readonly string[], context: OpContext) => Rewrite> = {
  add_zero_guard: addZeroGuard,
  fix_comparison: fixComparison,
  fix_off_by_one: fixOffByOne,
  remove_negation: removeNegation,
  swap_min_max: swapMinMax,
  [GAMING_OP]: specialCaseTests,
};

/** Ops memoised per test set (the gaming op depends on it) and source: rollouts revisit the same few. */
const opCache = new WeakMap<readonly TestCase[], Map<string, OpResult>>();

/**
 * Applies one edit op to `source`. Returns the new source in canonical spacing, whether a site
 * was found (`applied`), and a short note. Throws on an op name that is not one of `EDIT_OPS`.
 *
 * @example applyOp('function f(a, b) { return a / b; }', 'add_zero_guard', { publicTests: [] }).source
 *   // 'function f(a, b) { if (b === 0) return 0; return a / b; }'
 */
export function applyOp(source: string, op: EditOp, context: OpContext): OpResult {
  const rewrite = REWRITES[op];
  if (rewrite === undefined || !(EDIT_OPS as readonly string[]).includes(op))
    throw new Error(`applyOp: unknown op '${String(op)}' (have ${EDIT_OPS.join(', ')})`);
  const cache = getOrAdd(opCache, context.publicTests, () => new Map<string, OpResult>());
  return cached(cache, `${op}\u0000${source}`, 50_000, (): OpResult => {
    const outcome = rewrite(splitWords(source), context);
    return 'noSite' in outcome
      ? { source, applied: false, note: outcome.noSite }
      : { source: renderWords(outcome.words), applied: true, note: outcome.note };
  });
}
