import type { Rng } from '../lib/rng.ts';
import type { Task, TestCase } from './types.ts';
import { cached, renderWords, specWords, splitWords } from './words.ts';

/**
 * Surface variation (harness field `varySurface`): at reset, the episode's task is shown with a
 * surface drawn from the env's stream, keeping its bug site, its behaviour and its repair.
 *
 * Why: with 20 training tasks, each with one fixed spec and source, a policy can fit the
 * training set by memorising "this spec -> this op" without reading the source. Probing a
 * trained checkpoint showed exactly that (docs/TRAINING.md, "Why seeds generalised differently"):
 * given a held-out task's source under another task's spec, it applied the other task's repair.
 * Varying everything but the bug site makes the site the only reliable cue:
 * - the parameter order is shuffled (the tests' arguments follow, so behaviour is unchanged);
 * - each spec word is dropped with probability `SPEC_DROP`, and with probability `SPEC_SWAP`
 *   the spec is replaced by a random other task's spec, so the spec is an unreliable cue;
 * - with probability `WRAP` the returned expression is wrapped in parentheses, and with
 *   probability `DEAD_STATEMENT` the body starts with `if ( false ) return EXPR ;`, a statement
 *   that never runs, whose EXPR is drawn from `DISTRACTORS`: the surface features that the tasks
 *   share across bug types (`Math.` calls, `*`, `+`, `%`, `.length`), so that none of them
 *   predicts a type. Neither creates a site of any op (no `/ NAME`, `<`, `>`, `- 1`, `!` or
 *   `Math.min`), so the ops' invariants hold.
 */
const SURFACE_PROBABILITIES = Object.freeze({
  SPEC_DROP: 0.25,
  SPEC_SWAP: 0.25,
  WRAP: 0.5,
  DEAD_STATEMENT: 0.5,
});

/** Expressions of the dead statement: features found across bug types, none a site of any op. */
const DISTRACTORS: ReadonlyArray<readonly string[]> = [
  ['0'],
  ['Math', '.', 'abs', '(', '0', ')'],
  ['Math', '.', 'floor', '(', '0', ')'],
  ['Math', '.', 'round', '(', '0', ')'],
  ['Math', '.', 'max', '(', '0', ',', '1', ')'],
  ['0', '*', '2'],
  ['0', '+', '5'],
  ['0', '%', '2'],
  ["''", '.', 'length'],
];

/** `if ( false ) return EXPR ;`, EXPR the distractor at `index`. */
function deadStatement(index: number): string[] {
  return ['if', '(', 'false', ')', 'return', ...DISTRACTORS[index]!, ';'];
}

/** Words the surface variation may add to a source. */
export const SURFACE_WORDS: readonly string[] = [
  ...new Set(['if', '(', 'false', ')', 'return', ';', ...DISTRACTORS.flat()]),
];

/** A task as one episode shows it: possibly reordered, rewrapped and respecified. */
export interface SurfaceTask {
  /** Source under the task's own names. */
  source: string;
  /** Spec words (before renaming). */
  spec: readonly string[];
  /** The task's public tests with their arguments in the shown parameter order (the gaming op reads them). */
  publicTests: readonly TestCase[];
  /**
   * The same source with the surface taken off: the task's parameter order, no parentheses
   * added, no dead statement. Its outcome on the task's own tests equals the shown source's on
   * the shown tests, so the sandbox runs this one and its cache serves every surface.
   */
  canonical(source: string): string;
}

interface Surface {
  order: number[];
  spec: readonly string[];
  specKey: string;
  wrap: boolean;
  /** Index into DISTRACTORS of the dead statement's expression, or -1 for none. */
  dead: number;
}

const surfaceCache = new Map<string, SurfaceTask>();

export function plainSurface(task: Task): SurfaceTask {
  return build(task, {
    order: task.params.map((_, i) => i),
    spec: specWords(task.spec),
    specKey: 'own',
    wrap: false,
    dead: -1,
  });
}

/** Draws a surface for `task` from `rng`; `others` are the tasks whose specs may stand in. */
export function drawSurface(task: Task, others: readonly Task[], rng: Rng): SurfaceTask {
  const order = task.params.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = rng.int(i + 1);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  let spec = specWords(task.spec);
  let specKey = 'own';
  const swapCandidates = others.filter((other) => other.id !== task.id);
  if (swapCandidates.length > 0 && rng.next() < SURFACE_PROBABILITIES.SPEC_SWAP) {
    const other = rng.pick(swapCandidates);
    spec = specWords(other.spec);
    specKey = `of${other.id}`;
  }
  const kept = spec.map(() => rng.next() >= SURFACE_PROBABILITIES.SPEC_DROP);
  if (!kept.some(Boolean)) kept[rng.int(kept.length)] = true;
  spec = spec.filter((_, i) => kept[i]);
  specKey += `:${kept.map((keep) => (keep ? 1 : 0)).join('')}`;
  const wrap = rng.next() < SURFACE_PROBABILITIES.WRAP;
  const dead = rng.next() < SURFACE_PROBABILITIES.DEAD_STATEMENT ? rng.int(DISTRACTORS.length) : -1;
  return build(task, { order, spec, specKey, wrap, dead });
}

function build(task: Task, surface: Surface): SurfaceTask {
  const key = `${task.id}\u0000${surface.order.join(',')}\u0000${surface.specKey}\u0000${surface.wrap ? 1 : 0}:${surface.dead}`;
  return cached(surfaceCache, key, 50_000, () => {
    const identity = surface.order.every((from, to) => from === to);
    const permute = (tests: readonly TestCase[]) =>
      identity
        ? tests
        : tests.map((test) => ({
            args: surface.order.map((from) => test.args[from]),
            expected: test.expected,
          }));
    const canonicalCache = new Map<string, string>();
    return {
      source: renderWords(reshape(splitWords(task.source), task.params, surface)),
      spec: surface.spec,
      publicTests: permute(task.publicTests),
      canonical:
        identity && !surface.wrap && surface.dead < 0
          ? (source: string) => source
          : (source: string) =>
              cached(canonicalCache, source, 1000, () =>
                renderWords(unshape(splitWords(source), task.params, surface)),
              ),
    };
  });
}

/**
 * `reshape` undone on a source the ops may have edited since: the ops insert statements at the
 * start of the body and rewrite single words, never the signature, the dead statement or the
 * final return's parentheses, so each is found where `reshape` put it.
 */
function unshape(words: readonly string[], params: readonly string[], surface: Surface): string[] {
  let out = [...words];
  if (surface.dead >= 0) {
    const dead = deadStatement(surface.dead);
    const at = out.findIndex((_, i) => dead.every((word, k) => out[i + k] === word));
    if (at >= 0) out.splice(at, dead.length);
  }
  if (surface.wrap) {
    const at = out.lastIndexOf('return');
    const end = out.lastIndexOf(';');
    if (out[at + 1] === '(' && out[end - 1] === ')')
      out = [...out.slice(0, at + 1), ...out.slice(at + 2, end - 1), ...out.slice(end)];
  }
  const open = out.indexOf('(');
  const close = out.indexOf(')', open);
  return [...out.slice(0, open + 1), ...paramList(params), ...out.slice(close)];
}

/** Parameter names as the words of a parameter list: `a , b , c`. */
function paramList(params: readonly string[]): string[] {
  return params.flatMap((param, k) => (k === 0 ? [param] : [',', param]));
}

/** The source words with the parameter list reordered, the return wrapped, a dead statement added. */
function reshape(words: readonly string[], params: readonly string[], surface: Surface): string[] {
  const open = words.indexOf('(');
  const close = words.indexOf(')', open);
  const list = paramList(surface.order.map((from) => params[from]!));
  let out = [...words.slice(0, open + 1), ...list, ...words.slice(close)];
  if (surface.wrap) {
    const at = out.indexOf('return');
    const end = out.lastIndexOf(';');
    if (at >= 0 && end > at)
      out = [...out.slice(0, at + 1), '(', ...out.slice(at + 1, end), ')', ...out.slice(end)];
  }
  if (surface.dead >= 0) {
    const body = out.indexOf('{', out.indexOf(')')) + 1;
    out = [...out.slice(0, body), ...deadStatement(surface.dead), ...out.slice(body)];
  }
  return out;
}
