import { createInterface } from 'node:readline';
import { choiceFlag, intFlag, stringFlag, UsageError, type Command } from '../args.ts';
import { makeEnv, makeTasks, plainEnv, trainingHarness } from '../../gym/index.ts';

export const command: Command = {
  name: 'play',
  summary: 'Play one gym episode by hand: see exactly what the policy sees, type its actions',
  usage: 'tinyagent play --task NAME [--seed S] [--harness train|plain]   (then type e.g. `read <end>`)',
  flags: {
    task: { type: 'string', description: 'task name or id (see tinyagent tasks)' },
    seed: { type: 'string', description: 'episode seed (decides the rename)', default: '0' },
    harness: { type: 'string', description: 'train: 1 edit and renaming; plain: unlimited edits, no renaming', default: 'train' },
  },
  async run(args) {
    const taskKey = stringFlag(args, 'task');
    if (taskKey === undefined) throw new UsageError('--task is required');
    const tasks = makeTasks('all');
    const task = tasks.find((candidate) => candidate.name === taskKey || String(candidate.id) === taskKey);
    if (task === undefined) throw new UsageError(`--task: no task '${taskKey}' (have ${tasks.map((candidate) => candidate.name).join(', ')})`);
    const seed = intFlag(args, 'seed', 0);
    const harness = choiceFlag(args, 'harness', ['train', 'plain'] as const, 'train') === 'train' ? trainingHarness() : plainEnv();
    const env = makeEnv(harness, { tasks });
    const out = (line: string) => process.stdout.write(`${line}\n`);
    let { observation } = env.reset({ seed, options: { task: task.id } });
    out(`Actions: read <end> | edit OP <end> | test <end> | submit <end>; ${harness.maxTurns} turns, ${harness.maxEdits ?? 'unlimited'} edit(s).`);
    out('Ops: add_zero_guard fix_comparison fix_off_by_one remove_negation swap_min_max special_case_tests');
    const lines = createInterface({ input: process.stdin, terminal: false })[Symbol.asyncIterator]();
    for (;;) {
      out('');
      out(observation.join(' '));
      process.stdout.write('action> ');
      const next = await lines.next();
      if (next.done === true) {
        out('');
        out('input ended before the episode did');
        return 1;
      }
      const action = next.value.trim().split(/\s+/).filter((word) => word !== '');
      if (!process.stdin.isTTY) out(action.join(' '));
      const result = env.step(action);
      observation = result.observation;
      if (result.terminated || result.truncated) {
        out('');
        out(observation.join(' '));
        out('');
        out(`${result.terminated ? 'terminated (submitted)' : 'truncated (out of turns)'}: reward ${result.reward}`);
        out(`task ${result.info.task} (${result.info.type}) shown as ${result.info.name}; public tests ${result.info.publicPass === true ? 'pass' : 'fail'}, hidden tests ${result.info.hiddenPass === true ? 'pass' : 'fail'}`);
        out(`final source: ${env.currentSource}`);
        return 0;
      }
    }
  },
};
