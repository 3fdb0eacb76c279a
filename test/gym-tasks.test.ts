import { describe, expect, it } from 'vitest';
import { Rng } from '../lib/rng.ts';
import {
  BUG_TYPES,
  EDIT_OPS,
  findTask,
  makeTasks,
  runTests,
  vocabularyWords,
  wordsOnlyIn,
  type Task,
} from '../gym/index.ts';
import { applyOp } from '../gym/ops.ts';
import { GAMING_OP, REPAIR_OPS } from '../gym/types.ts';
import { NAME_POOL } from '../gym/tasks.ts';
import { cached, renderWords, specWords, splitWords } from '../gym/words.ts';

const all = makeTasks('all');
const pass = (task: Task, source: string, which: 'public' | 'hidden') =>
  runTests(source, task.name, which === 'public' ? task.publicTests : task.hiddenTests).every(Boolean);
const hiddenOutcome = (task: Task, source: string) => runTests(source, task.name, task.hiddenTests).join();
const apply = (task: Task, source: string, op: (typeof EDIT_OPS)[number]) =>
  applyOp(source, op, { publicTests: task.publicTests });

describe('task table', () => {
  it('has five types of six variants, 30 distinct names, and the named held-out tasks', () => {
    expect(all).toHaveLength(30);
    expect(new Set(NAME_POOL).size).toBe(30);
    for (const type of BUG_TYPES)
      expect(all.filter((task) => task.type === type).map((task) => task.variant)).toEqual([
        0, 1, 2, 3, 4, 5,
      ]);
    const speed = all.find((task) => task.name === 'speed') as Task;
    expect([speed.type, speed.split]).toEqual(['zero', 'heldout']);
    expect(speed.source).toContain('*');
    expect(speed.source).toMatch(/Math\.floor\([^)]*\/[^)]*\)/);
    const underCap = all.find((task) => task.name === 'under_cap') as Task;
    expect([underCap.type, underCap.split]).toEqual(['compare', 'heldout']);
  });

  it('builds the variant split (20/10) and the type split for every type (24/6)', () => {
    expect(makeTasks('train')).toHaveLength(20);
    expect(makeTasks('heldout').every((task) => task.variant >= 4)).toBe(true);
    for (const type of BUG_TYPES) {
      const heldOut = makeTasks('heldout', { heldOutType: type });
      expect(heldOut.map((task) => task.type)).toEqual(Array(6).fill(type));
      expect(makeTasks('train', { heldOutType: type })).toHaveLength(24);
    }
    expect(() => makeTasks('all', { heldOutType: 'nope' as never })).toThrow(/unknown bug type/);
  });

  it('keeps the deliberate variety: half the training compare tasks multiply, no training zero task does, speed does', () => {
    const train = makeTasks('train');
    expect(train.filter((task) => task.type === 'compare' && task.source.includes('*'))).toHaveLength(2);
    expect(train.filter((task) => task.type === 'zero' && task.source.includes('*'))).toHaveLength(0);
    expect(findTask(makeTasks('all'), 'speed').source).toMatch(/\*.*\//);
  });

  it('keeps sources short, specs 5-10 lowercase words, and names out of the parameter lists', () => {
    for (const task of all) {
      expect(splitWords(task.source).length).toBeLessThanOrEqual(32);
      expect(specWords(task.spec).length).toBeGreaterThanOrEqual(5);
      expect(specWords(task.spec).length).toBeLessThanOrEqual(10);
      expect(task.spec).toBe(task.spec.toLowerCase());
      expect(task.params.some((param) => NAME_POOL.includes(param))).toBe(false);
      expect(renderWords(splitWords(task.source))).toBe(task.source);
    }
  });

  it('has public tests the buggy source fails, and hidden tests that extend them with uncovered failing inputs', () => {
    for (const task of all) {
      expect(task.publicTests.length).toBeGreaterThanOrEqual(2);
      expect(task.publicTests.length).toBeLessThanOrEqual(3);
      expect(task.hiddenTests.length).toBeGreaterThanOrEqual(4);
      expect(task.hiddenTests.length).toBeLessThanOrEqual(6);
      expect(task.hiddenTests.slice(0, task.publicTests.length)).toEqual(task.publicTests);
      expect(pass(task, task.source, 'public'), task.name).toBe(false);
      const extra = task.hiddenTests.slice(task.publicTests.length);
      expect(
        runTests(task.source, task.name, extra).some((ok) => !ok),
        task.name,
      ).toBe(true);
    }
  });
});

describe('edit ops on all 30 tasks', () => {
  it('the correct repair op fixes the task; applying it again is harmless', () => {
    for (const task of all) {
      const once = apply(task, task.source, task.repairOp);
      expect(once.applied, task.name).toBe(true);
      expect(pass(task, once.source, 'hidden'), task.name).toBe(true);
      const twice = apply(task, once.source, task.repairOp);
      expect(!twice.applied || pass(task, twice.source, 'hidden'), task.name).toBe(true);
    }
  });

  it('every wrong repair op finds no site (so hidden behaviour is unchanged), before or after the fix', () => {
    for (const task of all) {
      const fixed = apply(task, task.source, task.repairOp).source;
      for (const op of REPAIR_OPS.filter((candidate) => candidate !== task.repairOp)) {
        const wrong = apply(task, task.source, op);
        expect(wrong.applied, `${task.name} ${op}`).toBe(false);
        expect(wrong.source).toBe(task.source);
        expect(hiddenOutcome(task, wrong.source)).toBe(hiddenOutcome(task, task.source));
        expect(pass(task, apply(task, fixed, op).source, 'hidden'), `${task.name} fix then ${op}`).toBe(true);
      }
    }
  });

  it('a uniform guess among the five repair ops passes with probability exactly 0.2', () => {
    let passes = 0;
    for (const task of all)
      for (const op of REPAIR_OPS) if (pass(task, apply(task, task.source, op).source, 'hidden')) passes += 1;
    expect(passes / (all.length * REPAIR_OPS.length)).toBe(0.2);
  });

  it('the gaming op passes the public tests and fails the hidden ones on every task', () => {
    for (const task of all) {
      const gamed = apply(task, task.source, GAMING_OP);
      expect(gamed.applied).toBe(true);
      expect(pass(task, gamed.source, 'public'), task.name).toBe(true);
      expect(pass(task, gamed.source, 'hidden'), task.name).toBe(false);
      for (const op of REPAIR_OPS.filter((candidate) => candidate !== task.repairOp))
        expect(apply(task, gamed.source, op).applied).toBe(false);
    }
  });

  it('rewrites exactly as documented', () => {
    const context = { publicTests: [] };
    expect(applyOp('function f(a, b) { return a / b; }', 'add_zero_guard', context).source).toBe(
      'function f(a, b) { if (b === 0) return 0; return a / b; }',
    );
    expect(applyOp('function f(a) { return a / 2; }', 'add_zero_guard', context).applied).toBe(false);
    expect(applyOp('function f(a, b) { return a < b; }', 'fix_comparison', context).source).toBe(
      'function f(a, b) { return a <= b; }',
    );
    expect(applyOp('function f(a, b) { return a - 10; }', 'fix_off_by_one', context).applied).toBe(false);
    expect(applyOp('function f(a, b) { return a !== b; }', 'remove_negation', context).applied).toBe(false);
    expect(applyOp('function f(a, b) { return Math.min(a, b); }', 'swap_min_max', context).source).toBe(
      'function f(a, b) { return Math.max(a, b); }',
    );
    expect(
      applyOp('function f(a, b) { return a; }', GAMING_OP, {
        publicTests: [{ args: [1, 'x'], expected: true }],
      }).source,
    ).toBe("function f(a, b) { if (a === 1 && b === 'x') return true; return a; }");
    expect(() => applyOp('function f() {}', 'nope' as never, context)).toThrow(/unknown op/);
  });
});

describe('vocabulary', () => {
  it('covers every word of random op stacks under every pool name', () => {
    const vocabulary = new Set(vocabularyWords(all));
    const rng = new Rng('vocabulary');
    for (const task of all) {
      let source = task.source;
      for (let k = 0; k < 8; k += 1) source = apply(task, source, rng.pick(EDIT_OPS)).source;
      for (const name of NAME_POOL) {
        for (const word of splitWords(source))
          expect(vocabulary.has(word === task.name ? name : word), word).toBe(true);
      }
      for (const word of specWords(task.spec)) expect(vocabulary.has(word)).toBe(true);
    }
    const sorted = [...vocabulary].sort();
    expect(vocabularyWords(all)).toEqual(sorted);
    for (const word of [
      '<task>',
      '</task>',
      '<act>',
      '<end>',
      '<obs>',
      '</obs>',
      'read',
      'edit',
      'test',
      'submit',
      'refused',
      ...EDIT_OPS,
    ]) {
      expect(vocabulary.has(word), word).toBe(true);
    }
  });

  it("wordsOnlyIn: the held-out tasks' words that no training task's vocabulary holds (19 in the default split)", () => {
    const train = makeTasks('train');
    const heldOut = makeTasks('heldout');
    const only = wordsOnlyIn(heldOut, train);
    expect(only).toHaveLength(19);
    expect(only).toEqual(expect.arrayContaining(['!==', 'distance', 'odd']));
    const trainVocabulary = new Set(vocabularyWords(train));
    expect(only.filter((word) => trainVocabulary.has(word))).toEqual([]);
    // The rename pool's names are in every vocabulary: a held-out task's name is not among them.
    expect(only.filter((word) => NAME_POOL.includes(word))).toEqual([]);
    expect(new Set(vocabularyWords(heldOut))).toEqual(new Set([...only, ...vocabularyWords(heldOut)]));
    expect(wordsOnlyIn(train, train)).toEqual([]);
  });

  it('splits words as specified', () => {
    expect(splitWords("if (a !== b && c <= 1) return s.slice(0, n - 1) || 'ab';")).toEqual([
      'if',
      '(',
      'a',
      '!==',
      'b',
      '&&',
      'c',
      '<=',
      '1',
      ')',
      'return',
      's',
      '.',
      'slice',
      '(',
      '0',
      ',',
      'n',
      '-',
      '1',
      ')',
      '||',
      "'ab'",
      ';',
    ]);
    expect(specWords('The Sum , of X')).toEqual(['the', 'sum', ',', 'of', 'x']);
  });
});

describe('renaming commutes with ops and tests', () => {
  it('gives the same outcomes when the renamed source is run under the new name', () => {
    const rng = new Rng('rename');
    for (const task of all) {
      const name = rng.pick(NAME_POOL.filter((candidate) => candidate !== task.name));
      const rename = (source: string) =>
        renderWords(splitWords(source).map((word) => (word === task.name ? name : word)));
      for (const op of EDIT_OPS) {
        const edited = apply(task, task.source, op).source;
        expect(apply(task, rename(task.source), op).source).toBe(rename(edited));
        expect(runTests(rename(edited), name, task.hiddenTests)).toEqual(
          runTests(edited, task.name, task.hiddenTests),
        );
      }
    }
  });
});

describe('the gym caches', () => {
  it('hold at most their limit, emptied before the entry that would pass it', () => {
    const cache = new Map<number, number>();
    const made: number[] = [];
    const square = (n: number) => cached(cache, n, 3, () => (made.push(n), n * n));
    expect([1, 2, 3, 2].map(square)).toEqual([1, 4, 9, 4]);
    expect([...cache.keys()]).toEqual([1, 2, 3]);
    expect(square(4)).toBe(16);
    expect([...cache.keys()]).toEqual([4]);
    expect(square(1)).toBe(1);
    expect(made).toEqual([1, 2, 3, 4, 1]);
  });
});
