import { BUG_TYPES, REPAIR_OP_FOR, type BugType, type Split, type Task, type TestCase } from './types.ts';
import { paramNames } from './ops.ts';
import { renderWords, splitWords } from './words.ts';

/**
 * The 30 tasks: five bug types, six variants each. Design rules (docs/GYM.md explains each):
 * - Site isolation: a source holds exactly one site of its own type's repair op and none of the
 *   other four's, so a wrong op finds no site: a uniform guess among the five repair ops passes
 *   with probability exactly 0.2, and stacking wrong ops is harmless.
 * - Variety: surface features (`*`, `+`, `.length`, `Math.` calls) are spread across types, so
 *   that only the bug's own site is a reliable cue. Two of the four training `compare` variants
 *   multiply, no training `zero` variant does, and the held-out `zero` task `speed` does: a policy
 *   leaning on "`*` goes with fix_comparison" fails it (the narrowing chapter 17.7 measures).
 * - Tests: 2-3 public tests, at least one failing on the buggy source; the hidden tests add inputs
 *   on which the buggy source is wrong, so special-casing the public inputs fails them. Public
 *   arguments and results are non-negative numbers, quote-free strings or booleans, so the gaming
 *   op's inserted literals are single words and never create a site (`-1` would be `-` `1`).
 */

interface TaskDefinition {
  name: string;
  source: string;
  spec: string;
  publicTests: TestCase[];
  /** Hidden tests beyond the public ones. */
  extraHiddenTests: TestCase[];
}

const t = (args: unknown[], expected: unknown): TestCase => ({ args, expected });

/** By type, in `BUG_TYPES` order, variants 0-5 (task ids type-major); variants 4 and 5 are the held-out ones. */
const DEFINITIONS: Record<BugType, TaskDefinition[]> = {
  // zero: a division by a parameter with no guard; intended result 0 when the divisor is 0.
  zero: [
    {
      name: 'average',
      source: 'function average(total, count) { return total / count; }',
      spec: 'mean of the total over count items',
      publicTests: [t([10, 2], 5), t([9, 0], 0)],
      extraHiddenTests: [t([6, 3], 2), t([5, 0], 0), t([0, 0], 0)],
    },
    {
      name: 'share',
      source: 'function share(amount, people) { return Math.round(amount / people); }',
      spec: 'each person gets a rounded share of the amount',
      publicTests: [t([10, 4], 3), t([6, 3], 2), t([9, 0], 0)],
      extraHiddenTests: [t([7, 0], 0), t([12, 5], 2)],
    },
    {
      name: 'per_hour',
      source: 'function per_hour(jobs, hours) { return Math.floor(jobs / hours); }',
      spec: 'whole jobs finished per hour worked , zero without hours',
      publicTests: [t([8, 2], 4), t([0, 0], 0)],
      extraHiddenTests: [t([3, 0], 0), t([9, 3], 3), t([7, 2], 3)],
    },
    {
      name: 'unit_cost',
      source: 'function unit_cost(price, units) { return (price + 5) / units; }',
      spec: 'price plus five for shipping split over units',
      publicTests: [t([15, 2], 10), t([5, 0], 0)],
      extraHiddenTests: [t([1, 0], 0), t([7, 4], 3)],
    },
    {
      name: 'speed',
      source: 'function speed(distance, minutes) { return Math.floor(distance * 60 / minutes); }',
      spec: 'whole distance units per hour',
      publicTests: [t([10, 30], 20), t([5, 0], 0), t([3, 4], 45)],
      extraHiddenTests: [t([7, 0], 0), t([1, 7], 8)],
    },
    {
      name: 'per_day',
      source: 'function per_day(total, days) { return Math.round(total / days); }',
      spec: 'the total over the days , rounded',
      publicTests: [t([10, 3], 3), t([4, 0], 0)],
      extraHiddenTests: [t([9, 0], 0), t([8, 4], 2), t([7, 2], 4)],
    },
  ],
  // compare: a strict comparison where the non-strict one is meant.
  compare: [
    {
      name: 'can_afford',
      source: 'function can_afford(price, qty, budget) { return price * qty < budget; }',
      spec: 'true when the order fits in the budget',
      publicTests: [t([2, 3, 10], true), t([2, 5, 10], true)],
      extraHiddenTests: [t([3, 3, 9], true), t([4, 3, 10], false), t([1, 1, 1], true)],
    },
    {
      name: 'big_area',
      source: 'function big_area(w, h) { return w * h > 100; }',
      spec: 'true for areas of at least one hundred',
      publicTests: [t([20, 5], true), t([3, 3], false)],
      extraHiddenTests: [t([10, 10], true), t([50, 2], true), t([9, 11], false)],
    },
    {
      name: 'passing',
      source: 'function passing(score, bonus) { return score + bonus > 60; }',
      spec: 'true when score plus bonus reaches sixty',
      publicTests: [t([50, 10], true), t([20, 5], false)],
      extraHiddenTests: [t([30, 30], true), t([61, 0], true), t([59, 0], false)],
    },
    {
      name: 'fits',
      source: 'function fits(text, limit) { return text.length < limit; }',
      spec: 'true when the text has at most limit letters',
      publicTests: [t(['abc', 3], true), t(['hello', 2], false)],
      extraHiddenTests: [t(['ab', 2], true), t(['', 0], true), t(['abcd', 3], false)],
    },
    {
      name: 'under_cap',
      source: 'function under_cap(total, item, cap) { return total + item < cap; }',
      spec: 'true when total plus item is at most cap',
      publicTests: [t([3, 4, 7], true), t([5, 5, 20], true)],
      extraHiddenTests: [t([10, 10, 20], true), t([9, 9, 10], false)],
    },
    {
      name: 'long_enough',
      source: 'function long_enough(word, n) { return word.length > n; }',
      spec: 'true when the word has at least n letters',
      publicTests: [t(['abc', 3], true), t(['ab', 5], false)],
      extraHiddenTests: [t(['hello', 5], true), t(['hi', 1], true), t(['a', 2], false)],
    },
  ],
  // off_by_one: a spurious `- 1`.
  off_by_one: [
    {
      name: 'first_n',
      source: 'function first_n(s, n) { return s.slice(0, n - 1); }',
      spec: 'the first n letters of the text',
      publicTests: [t(['hello', 2], 'he'), t(['abc', 0], '')],
      extraHiddenTests: [t(['world', 3], 'wor'), t(['abcd', 4], 'abcd')],
    },
    {
      name: 'count_to',
      source: 'function count_to(n) { return n * (n + 1) / 2 - 1; }',
      spec: 'sum of the whole numbers from one to n',
      publicTests: [t([3], 6), t([1], 1)],
      extraHiddenTests: [t([4], 10), t([10], 55), t([0], 0)],
    },
    {
      name: 'item_at',
      source: 'function item_at(s, i) { return s.charAt(i - 1); }',
      spec: 'the letter at position i , counting from zero',
      publicTests: [t(['abc', 0], 'a'), t(['xyz', 2], 'z')],
      extraHiddenTests: [t(['hello', 1], 'e'), t(['hi', 1], 'i')],
    },
    {
      name: 'days_between',
      source: 'function days_between(start, end) { return Math.abs(end - start) - 1; }',
      spec: 'number of days between the two dates',
      publicTests: [t([1, 5], 4), t([3, 3], 0)],
      extraHiddenTests: [t([2, 9], 7), t([10, 0], 10)],
    },
    {
      name: 'tail',
      source: 'function tail(s, n) { return s.slice(s.length - n - 1); }',
      spec: 'the n letters at the end of the text',
      publicTests: [t(['hello', 2], 'lo'), t(['ab', 1], 'b')],
      extraHiddenTests: [t(['world', 3], 'rld'), t(['abc', 3], 'abc')],
    },
    {
      name: 'total_cost',
      source: 'function total_cost(price, qty) { return price * (qty - 1) + 5; }',
      spec: 'price for each item plus five for shipping',
      publicTests: [t([2, 3], 11), t([5, 1], 10)],
      extraHiddenTests: [t([4, 4], 21), t([1, 10], 15)],
    },
  ],
  // negation: a flipped boolean `!`.
  negation: [
    {
      name: 'is_even',
      source: 'function is_even(x) { return !(x % 2 === 0); }',
      spec: 'true when the number is even',
      publicTests: [t([4], true), t([3], false)],
      extraHiddenTests: [t([10], true), t([7], false), t([0], true)],
    },
    {
      name: 'is_empty',
      source: 'function is_empty(s) { return !(s.length === 0); }',
      spec: 'true when the text has no letters',
      publicTests: [t([''], true), t(['ab'], false)],
      extraHiddenTests: [t(['x'], false), t(['abc'], false)],
    },
    {
      name: 'is_multiple',
      source: 'function is_multiple(a, b) { return !(a % b === 0); }',
      spec: 'true when a is a multiple of b',
      publicTests: [t([6, 3], true), t([7, 3], false)],
      extraHiddenTests: [t([10, 5], true), t([9, 2], false)],
    },
    {
      name: 'matches',
      source: 'function matches(a, b) { return !(a === b); }',
      spec: 'true when both values are equal',
      publicTests: [t([2, 2], true), t([1, 2], false)],
      extraHiddenTests: [t([5, 5], true), t([0, 1], false)],
    },
    {
      name: 'is_odd',
      source: 'function is_odd(n) { return !(n % 2 === 1); }',
      spec: 'true when the number is odd',
      publicTests: [t([3], true), t([4], false)],
      extraHiddenTests: [t([7], true), t([10], false)],
    },
    {
      name: 'has_text',
      source: 'function has_text(s) { return !(s.length !== 0); }',
      spec: 'true when the text is not empty',
      publicTests: [t(['hi'], true), t([''], false)],
      extraHiddenTests: [t(['abc'], true), t(['x'], true)],
    },
  ],
  // min_max: `Math.min` where `Math.max` is meant.
  min_max: [
    {
      name: 'larger',
      source: 'function larger(a, b) { return Math.min(a, b); }',
      spec: 'the larger of the two numbers',
      publicTests: [t([2, 5], 5), t([4, 4], 4)],
      extraHiddenTests: [t([9, 1], 9), t([0, 3], 3)],
    },
    {
      name: 'at_least_zero',
      source: 'function at_least_zero(x) { return Math.min(x, 0); }',
      spec: 'the number itself , but never below zero',
      publicTests: [t([5], 5), t([0], 0)],
      extraHiddenTests: [t([3], 3), t([7], 7), t([-2], 0)],
    },
    {
      name: 'floor_price',
      source: 'function floor_price(price, minimum) { return Math.min(price, minimum); }',
      spec: 'the price , raised to the minimum if lower',
      publicTests: [t([10, 5], 10), t([2, 5], 5)],
      extraHiddenTests: [t([8, 3], 8), t([1, 4], 4)],
    },
    {
      name: 'padded_len',
      source: 'function padded_len(s, n) { return Math.min(s.length, n); }',
      spec: 'length of the text , but at least n',
      publicTests: [t(['abcd', 2], 4), t(['ab', 2], 2)],
      extraHiddenTests: [t(['a', 3], 3), t(['hello', 1], 5)],
    },
    {
      name: 'longest',
      source: 'function longest(s, w) { return Math.min(s.length, w.length); }',
      spec: 'length of the longer of two words',
      publicTests: [t(['ab', 'abc'], 3), t(['x', 'y'], 1)],
      extraHiddenTests: [t(['hello', 'hi'], 5), t(['', 'abc'], 3)],
    },
    {
      name: 'bigger_half',
      source: 'function bigger_half(a, b) { return Math.min(a, b) / 2; }',
      spec: 'the larger of the two numbers , split in two',
      publicTests: [t([4, 8], 4), t([6, 6], 3)],
      extraHiddenTests: [t([10, 2], 5), t([0, 4], 2)],
    },
  ],
};

const VARIANTS_PER_TYPE = 6;
/** Variants held out under the default ("variant") split. */
export const HELD_OUT_VARIANTS: readonly number[] = [4, 5];

type BaseTask = Omit<Task, 'split'>;

const freezeTests = (tests: TestCase[]): readonly TestCase[] =>
  Object.freeze(
    tests.map((test) => Object.freeze({ args: Object.freeze([...test.args]), expected: test.expected })),
  );

/**
 * Built once: the test arrays are shared by every `makeTasks` call, so the sandbox cache (keyed
 * by test-set identity) is warm across envs.
 */
const BASE_TASKS: readonly BaseTask[] = BUG_TYPES.flatMap((type) =>
  DEFINITIONS[type].map((definition) => ({ ...definition, type })),
).map((definition, index) => {
  const source = renderWords(splitWords(definition.source));
  const publicTests = freezeTests(definition.publicTests);
  return Object.freeze({
    id: index,
    name: definition.name,
    type: definition.type,
    variant: index % VARIANTS_PER_TYPE,
    repairOp: REPAIR_OP_FOR[definition.type],
    source,
    spec: definition.spec,
    params: Object.freeze(paramNames(splitWords(source))),
    publicTests,
    hiddenTests: Object.freeze([...publicTests, ...freezeTests(definition.extraHiddenTests)]),
  });
});

/** The 30 function names, in task-id order: the rename pool. */
export const NAME_POOL: readonly string[] = Object.freeze(BASE_TASKS.map((task) => task.name));

export interface MakeTasksOptions {
  /** Type split (chapter 17.6): all six variants of this type are held out, the other 24 train. */
  heldOutType?: BugType | undefined;
}

/** The `makeTasks` options a harness's split asks for: the type split names its held-out type. */
export function splitOptions(harness: { split: 'variant' | 'type'; heldOutType: BugType }): MakeTasksOptions {
  return harness.split === 'type' ? { heldOutType: harness.heldOutType } : {};
}

/** The variant of every training type that forms the development split. */
const DEV_VARIANT = 3;

/**
 * The development split: variant 3 of every training type (five tasks under the variant split),
 * carved out of the training tasks for choosing a training recipe without touching the held-out
 * tasks (chapter 17.8). `trainingMinusDev` is the rest of the training tasks.
 */
export function devTasks(options: MakeTasksOptions = {}): Task[] {
  return makeTasks('train', options).filter((task) => task.variant === DEV_VARIANT);
}

export function trainingMinusDev(options: MakeTasksOptions = {}): Task[] {
  return makeTasks('train', options).filter((task) => task.variant !== DEV_VARIANT);
}

/**
 * The tasks of one side of a split, in id order.
 *
 * Without `heldOutType` it is the variant split: variants 0-3 of each type train (20 tasks),
 * variants 4-5 are held out (10 tasks). With `heldOutType` it is the type split.
 *
 * @example makeTasks('heldout').map((task) => task.name) // includes 'speed' and 'under_cap'
 */
export function makeTasks(split: 'all' | Split, { heldOutType }: MakeTasksOptions = {}): Task[] {
  if (heldOutType !== undefined && !(BUG_TYPES as readonly string[]).includes(heldOutType)) {
    throw new Error(`makeTasks: unknown bug type '${String(heldOutType)}' (have ${BUG_TYPES.join(', ')})`);
  }
  const labelled = BASE_TASKS.map((task): Task => {
    const heldOut =
      heldOutType === undefined ? HELD_OUT_VARIANTS.includes(task.variant) : task.type === heldOutType;
    return { ...task, split: heldOut ? 'heldout' : 'train' };
  });
  return split === 'all' ? labelled : labelled.filter((task) => task.split === split);
}

/** Finds a task by name or id; throws with the known names when there is none. */
export function findTask(tasks: readonly Task[], key: string | number): Task {
  const found = tasks.find((task) =>
    typeof key === 'number' ? task.id === key : task.name === key || String(task.id) === key,
  );
  if (found === undefined)
    throw new Error(`no task '${key}' (have ${tasks.map((task) => task.name).join(', ')})`);
  return found;
}
