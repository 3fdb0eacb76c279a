/**
 * The gym's vocabulary of kinds: bug types, edit ops and the shape of a task.
 *
 * Kept apart from the task table so that ops, env and policies can share the names without
 * importing the table itself.
 */

/** The five bug types, in the order task ids use (type-major, six variants each). */
export const BUG_TYPES = ['zero', 'compare', 'off_by_one', 'negation', 'min_max'] as const;
export type BugType = (typeof BUG_TYPES)[number];

export const REPAIR_OP_FOR = {
  zero: 'add_zero_guard',
  compare: 'fix_comparison',
  off_by_one: 'fix_off_by_one',
  negation: 'remove_negation',
  min_max: 'swap_min_max',
} as const satisfies Record<BugType, string>;
export type RepairOp = (typeof REPAIR_OP_FOR)[BugType];

/** One repair op per bug type, in the order of `BUG_TYPES`. */
export const REPAIR_OPS: readonly RepairOp[] = BUG_TYPES.map((type) => REPAIR_OP_FOR[type]);

/** The sixth op: special-cases the public test inputs (chapter 4's gaming policy, chapter 11's reward hacking). */
export const GAMING_OP = 'special_case_tests' as const;

/** All six edit ops an `edit` action may name. */
export const EDIT_OPS = [...REPAIR_OPS, GAMING_OP] as const;
export type EditOp = (typeof EDIT_OPS)[number];

/** One call of the task's function: the arguments and the deep-equal result expected. */
export interface TestCase {
  readonly args: readonly unknown[];
  readonly expected: unknown;
}

export type Split = 'train' | 'heldout';

export interface Task {
  /** Stable across splits: `typeIndex * 6 + variant`. */
  readonly id: number;
  readonly name: string;
  readonly type: BugType;
  /** 0..5; variants 0-3 train and 4-5 are held out under the variant split. */
  readonly variant: number;
  /** Under the split the task list was made with. */
  readonly split: Split;
  readonly repairOp: RepairOp;
  /** The buggy function, one line of JavaScript, in canonical spacing (see `renderWords`). */
  readonly source: string;
  /** 5-10 lowercase words describing the intended behaviour (never the bug). */
  readonly spec: string;
  readonly params: readonly string[];
  /** Visible through the `test` tool; at least one fails on the buggy source. */
  readonly publicTests: readonly TestCase[];
  /** The public tests plus inputs the gaming op does not cover; these decide success. */
  readonly hiddenTests: readonly TestCase[];
}
