import { describe, expect, it } from 'vitest';
import { Rng } from '../lib/rng.ts';
import {
  EDIT_OPS,
  makeEnv,
  makeTasks,
  episodeSpecs,
  playEpisodes,
  plainEnv,
  runTests,
  trainingHarness,
  type StepResult,
} from '../gym/index.ts';
import { episodeSuccess } from '../gym/episodes.ts';
import { applyOp } from '../gym/ops.ts';
import { NAME_POOL } from '../gym/tasks.ts';
import { renameCandidates } from '../gym/env.ts';
import { scriptedActions } from '../gym/policies.ts';
import { specWords, splitWords } from '../gym/words.ts';

const all = makeTasks('all');
const specWordsOf = (task: { spec: string }) => specWords(task.spec);

/** A fixed mixed script: random well- and ill-formed actions from a seeded stream. */
function randomAction(rng: Rng): string[] {
  const tools = [
    ['read', '<end>'],
    ['test', '<end>'],
    ['submit', '<end>'],
    ['edit', rng.pick(EDIT_OPS), '<end>'],
    ['edit', '<end>'],
    ['read'],
  ];
  return rng.int(6) === 0 ? (tools[rng.int(tools.length)] as string[]) : (tools[rng.int(4)] as string[]);
}

function playEpisode(seed: number, actionSeed: number) {
  const env = makeEnv(trainingHarness());
  const observations: string[][] = [env.reset({ seed }).observation];
  const rng = new Rng(actionSeed);
  let result: StepResult | undefined;
  do {
    result = env.step(randomAction(rng));
    observations.push(result.observation);
  } while (!result.terminated && !result.truncated);
  return { observations, info: result.info, reward: result.reward };
}

describe('BugFixEnv', () => {
  it('is deterministic: same seed, same observations; another seed differs somewhere', () => {
    for (let seed = 0; seed < 20; seed += 1) expect(playEpisode(seed, 7)).toEqual(playEpisode(seed, 7));
    const firsts = new Set(
      Array.from({ length: 20 }, (_, seed) => playEpisode(seed, 7).observations[0]?.join(' ')),
    );
    expect(firsts.size).toBeGreaterThan(1);
  });

  it('runs read, edit, test, submit with the documented observations', () => {
    const env = makeEnv(plainEnv());
    const reset = env.reset({ seed: 0, options: { task: 'average' } });
    expect(reset.observation).toEqual([
      '<task>',
      'average',
      ':',
      'mean',
      'of',
      'the',
      'total',
      'over',
      'count',
      'items',
      '</task>',
      '<act>',
    ]);
    const read = env.step(['read', '<end>']);
    expect(read.observation.slice(12)).toEqual([
      'read',
      '<end>',
      '<obs>',
      ...splitWords(all[0]!.source),
      '</obs>',
      '<act>',
    ]);
    expect(env.step(['test', '<end>']).observation.slice(-8)).toEqual(
      ['<end>', '<obs>', 'tests', '1', 'of', '2', 'passed', '</obs>', '<act>'].slice(-8),
    );
    expect(env.step(['edit', 'add_zero_guard', '<end>']).observation.slice(-4)).toEqual([
      '<obs>',
      'edited',
      '</obs>',
      '<act>',
    ]);
    expect(env.step(['edit', 'fix_comparison', '<end>']).observation.slice(-5, -1)).toEqual([
      '<obs>',
      'no',
      'site',
      '</obs>',
    ]);
    const submit = env.step(['submit', '<end>']);
    expect([submit.terminated, submit.truncated, submit.reward]).toEqual([true, false, 1]);
    expect(submit.info).toMatchObject({
      task: 'average',
      type: 'zero',
      turn: 5,
      firstEditOp: 'add_zero_guard',
      editsApplied: 1,
      editsNoSite: 1,
      editsRefused: 0,
      toolCalls: { read: 1, edit: 2, test: 1, submit: 1, malformed: 0 },
      submitted: true,
      publicPass: true,
      hiddenPass: true,
    });
    expect(() => env.step(['read', '<end>'])).toThrow(/episode is over/);
  });

  it('answers a malformed action with an error observation and spends the turn', () => {
    const env = makeEnv(trainingHarness());
    env.reset({ seed: 1 });
    for (const action of [
      ['read'],
      ['edit', '<end>'],
      ['edit', 'nope', '<end>'],
      ['read', 'read', '<end>'],
      ['dance', '<end>'],
      ['edit', 'add_zero_guard', 'x', '<end>'],
      [],
    ]) {
      const result = env.step(action);
      expect(result.observation.slice(-5)).toEqual(
        ['<obs>', 'error', 'bad', 'action', '</obs>', '<act>'].slice(-5),
      );
      if (result.truncated) break;
    }
    const env2 = makeEnv(trainingHarness());
    env2.reset({ seed: 1 });
    const result = env2.step(['submit']);
    expect(result.info.turn).toBe(1);
    expect(result.info.toolCalls.malformed).toBe(1);
    expect(result.terminated).toBe(false);
  });

  it('refuses a second edit under maxEdits 1, leaving the source unchanged', () => {
    const env = makeEnv(trainingHarness());
    env.reset({ seed: 3, options: { task: 'larger' } });
    env.step(['edit', 'add_zero_guard', '<end>']);
    const before = env.currentSource;
    const second = env.step(['edit', 'swap_min_max', '<end>']);
    expect(second.observation.slice(-4)).toEqual(['<obs>', 'refused', '</obs>', '<act>']);
    expect(env.currentSource).toBe(before);
    expect(second.info).toMatchObject({
      editsRefused: 1,
      editsApplied: 0,
      editsNoSite: 1,
      firstEditOp: 'add_zero_guard',
      turn: 2,
    });
  });

  it('truncates with reward 0 when the turns run out, and still reports the final outcome', () => {
    const env = makeEnv(trainingHarness({ maxTurns: 3 }));
    env.reset({ seed: 0, options: { task: 'is_even' } });
    env.step(['read', '<end>']);
    env.step(['edit', 'remove_negation', '<end>']);
    const last = env.step(['test', '<end>']);
    expect([last.terminated, last.truncated, last.reward]).toEqual([false, true, 0]);
    expect([last.info.publicPass, last.info.hiddenPass, last.info.submitted]).toEqual([true, true, false]);
  });

  it('drops the oldest words beyond contextTokens, never the header', () => {
    const env = makeEnv(trainingHarness({ contextTokens: 24, maxTurns: 20 }));
    const reset = env.reset({ seed: 5, options: { task: 'first_n' } });
    const header = reset.observation.slice(0, reset.observation.indexOf('</task>') + 1);
    expect(reset.info.contextTruncated).toBe(false);
    const read = env.step(['read', '<end>']);
    expect(read.info.contextTruncated).toBe(true);
    expect(read.observation).toHaveLength(24);
    expect(read.observation.slice(0, header.length)).toEqual(header);
    expect(read.observation.at(-1)).toBe('<act>');
    for (let turn = 0; turn < 5; turn += 1) {
      const result = env.step(['test', '<end>']);
      expect(result.observation.slice(0, header.length)).toEqual(header);
      expect(result.observation).toHaveLength(24);
    }
    const roomy = makeEnv(trainingHarness());
    roomy.reset({ seed: 5 });
    expect(roomy.step(['read', '<end>']).info.contextTruncated).toBe(false);
  });

  it('renames every occurrence in source and spec header; tests follow the new name', () => {
    const env = makeEnv(trainingHarness({ renameParams: false, varySurface: false }));
    for (let seed = 0; seed < 60; seed += 1) {
      const { info, observation } = env.reset({ seed });
      const task = all[info.taskId]!;
      expect(info.name).not.toBe(task.name);
      expect(observation[1]).toBe(info.name);
      const read = env.step(['read', '<end>']).observation;
      expect(read).not.toContain(task.name);
      expect(read).toContain(info.name);
      expect(env.currentSource).toBe(task.source.replace(task.name, info.name));
      // The renamed source, run under its new name, is what the tests see.
      expect(runTests(env.currentSource, info.name, task.publicTests)).toEqual(
        runTests(task.source, task.name, task.publicTests),
      );
    }
  });

  it('renames parameters consistently in source and spec: distinct names, same test outcomes, and they vary', () => {
    const env = makeEnv(trainingHarness({ varySurface: false }));
    const seen = new Set<string>();
    for (let seed = 0; seed < 60; seed += 1) {
      const { info } = env.reset({ seed });
      const task = all[info.taskId]!;
      const source = env.currentSource;
      const params = source
        .slice(source.indexOf('(') + 1, source.indexOf(')'))
        .split(',')
        .map((p) => p.trim());
      expect(params).toHaveLength(task.params.length);
      expect(new Set(params).size).toBe(params.length);
      seen.add(params.join(','));
      for (const op of EDIT_OPS) {
        // The view of an edited source equals the edit of the view: renaming commutes with ops.
        const direct = applyOp(task.source, op, { publicTests: task.publicTests });
        const env2 = makeEnv(trainingHarness({ maxEdits: null, varySurface: false }));
        const shown = env2.reset({ seed, options: { task: task.id } }).info.name;
        env2.step(['edit', op, '<end>']);
        expect(runTests(env2.currentSource, shown, task.hiddenTests)).toEqual(
          runTests(direct.source, task.name, task.hiddenTests),
        );
      }
    }
    expect(seen.size).toBeGreaterThan(40);
  });

  it("draws renames uniformly from the chosen pool, minus the task's own name, and covers it", () => {
    const train = new Set(makeTasks('train').map((task) => task.name));
    const heldOut = new Set(makeTasks('heldout').map((task) => task.name));
    for (const [pool, allowed] of [
      ['all', new Set(NAME_POOL)],
      ['train', train],
      ['heldout', heldOut],
    ] as const) {
      const env = makeEnv(trainingHarness({ renamePool: pool }));
      for (const taskName of ['speed', 'average']) {
        const task = all.find((candidate) => candidate.name === taskName)!;
        const seen = new Map<string, number>();
        for (let seed = 0; seed < 600; seed += 1) {
          const name = env.reset({ seed, options: { task: taskName } }).info.name;
          seen.set(name, (seen.get(name) ?? 0) + 1);
        }
        const expected = [...allowed].filter((name) => name !== taskName).sort();
        expect([...seen.keys()].sort()).toEqual(expected);
        expect([...renameCandidates(task, pool)].sort()).toEqual(expected);
        for (const count of seen.values()) expect(count).toBeGreaterThan(600 / expected.length / 3);
      }
    }
    const plain = makeEnv(plainEnv());
    expect(plain.reset({ seed: 1, options: { task: 'speed' } }).info.name).toBe('speed');
  });

  it('chooses tasks uniformly from its own task list when no task is given', () => {
    const env = makeEnv(plainEnv(), { tasks: makeTasks('heldout') });
    const seen = new Set<string>();
    for (let seed = 0; seed < 200; seed += 1) seen.add(env.reset({ seed }).info.task);
    expect([...seen].sort()).toEqual(
      makeTasks('heldout')
        .map((task) => task.name)
        .sort(),
    );
  });

  it('plays many episodes in lockstep, asking the policy only for unfinished rows, and scores success by one rule', () => {
    const tasks = ['speed', 'larger', 'is_odd', 'tail', 'under_cap', 'share'];
    const specs = tasks.map((task, row) => ({ task, sample: 0, envSeed: row, samplingKey: `k${row}` }));
    const asked: number[][] = [];
    const plans = new Map<number, string[][]>();
    const results = playEpisodes(plainEnv({ reward: 'public' }), makeTasks('all'), specs, {
      act(turns) {
        asked.push(turns.map((turn) => turn.row));
        return turns.map(({ row, info }) => {
          if (!plans.has(row))
            plans.set(row, scriptedActions(row % 2 === 0 ? 'oracle' : 'gamer', info, new Rng(row)));
          return plans.get(row)![info.turn]!;
        });
      },
    });
    // The oracle takes 4 turns, the gamer 2: from the third turn on only the oracle rows play.
    expect(asked).toEqual([
      [0, 1, 2, 3, 4, 5],
      [0, 1, 2, 3, 4, 5],
      [0, 2, 4],
      [0, 2, 4],
    ]);
    expect(results.map((result) => result.reward)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(results.map((result) => result.success)).toEqual([true, false, true, false, true, false]);
    expect(results.map((result) => result.success)).toEqual(
      results.map((result) => episodeSuccess({ submitted: result.submitted, hiddenPass: result.hiddenPass })),
    );
    expect(results.map((result) => [result.task, result.sample, result.envSeed])).toEqual(
      specs.map((spec) => [spec.task, 0, spec.envSeed]),
    );
    expect(() => playEpisodes(plainEnv(), makeTasks('all'), specs, { act: () => [] })).toThrow(
      /0 actions for 6 rows/,
    );
  });

  it('seeds episode i of task j from one stream, whichever policy plays it', () => {
    const tasks = makeTasks('heldout');
    const specs = episodeSpecs(tasks, 3, new Rng(5));
    expect(specs.map((spec) => `${spec.task}/${spec.sample}`)).toEqual(
      tasks.flatMap((task) => [0, 1, 2].map((i) => `${task.name}/${i}`)),
    );
    expect(specs).toEqual(episodeSpecs(tasks, 3, new Rng(5)));
    expect(new Set(specs.map((spec) => spec.envSeed)).size).toBe(specs.length);
    // Episode i of a task does not depend on how many episodes or which other tasks are played.
    expect(episodeSpecs([tasks[3]!], 1, new Rng(5))[0]).toEqual(specs[9]);
  });

  it('varies the surface but never the bug site or the behaviour: every op does on a varied source what it does on the task', () => {
    const env = makeEnv(trainingHarness({ maxEdits: null, randomizeNames: false, renameParams: false }));
    const kinds = { reordered: 0, specSwapped: 0, wrapped: 0, dead: 0 };
    for (let seed = 0; seed < 300; seed += 1) {
      const { info, observation } = env.reset({ seed });
      const task = all[info.taskId]!;
      const source = env.currentSource;
      const params = source
        .slice(source.indexOf('(') + 1, source.indexOf(')'))
        .split(',')
        .map((param) => param.trim());
      expect([...params].sort()).toEqual([...task.params].sort());
      if (params.join() !== task.params.join()) kinds.reordered += 1;
      if (source.includes('return (')) kinds.wrapped += 1;
      if (source.includes('if (false) return')) kinds.dead += 1;
      const spec = observation.slice(3, observation.indexOf('</task>'));
      if (spec.some((word) => !specWordsOf(task).includes(word))) kinds.specSwapped += 1;
      // The same outcomes as the task itself, for the source as shown and after each op.
      const order = params.map((param) => task.params.indexOf(param));
      const asShown = (tests: typeof task.hiddenTests) =>
        tests.map((test) => ({ args: order.map((from) => test.args[from]), expected: test.expected }));
      expect(runTests(source, task.name, asShown(task.hiddenTests))).toEqual(
        runTests(task.source, task.name, task.hiddenTests),
      );
      for (const op of EDIT_OPS) {
        const edited = applyOp(source, op, { publicTests: asShown(task.publicTests) });
        const direct = applyOp(task.source, op, { publicTests: task.publicTests });
        expect(edited.applied, `${task.name} ${op} on ${source}`).toBe(direct.applied);
        expect(runTests(edited.source, task.name, asShown(task.hiddenTests))).toEqual(
          runTests(direct.source, task.name, task.hiddenTests),
        );
      }
      // The env scores the source with its surface taken off, on the task's own tests: the same counts as the shown source on the shown tests.
      const ops = [EDIT_OPS[seed % EDIT_OPS.length]!, EDIT_OPS[(seed * 7 + 3) % EDIT_OPS.length]!];
      for (const op of ops) env.step(['edit', op, '<end>']);
      const observed = env.step(['test', '<end>']).observation.slice(-7, -2);
      const shownOutcome = runTests(env.currentSource, task.name, asShown(task.publicTests));
      expect(observed, `${task.name}: ${env.currentSource}`).toEqual([
        'tests',
        String(shownOutcome.filter(Boolean).length),
        'of',
        String(shownOutcome.length),
        'passed',
      ]);
    }
    // Each kind of variation happens, and none always.
    for (const [kind, count] of Object.entries(kinds)) {
      expect(count, kind).toBeGreaterThan(30);
      expect(count, kind).toBeLessThan(270);
    }
    // The plain env shows every task as it is.
    const plain = makeEnv(plainEnv());
    for (const task of all) {
      plain.reset({ seed: 1, options: { task: task.id } });
      expect(plain.currentSource).toBe(task.source);
    }
  });
});
