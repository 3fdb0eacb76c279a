import { existsSync } from 'node:fs';
import { findTask, makeTasks } from '../../gym/index.ts';
import { probeCheckpoint } from '../../eval/probe.ts';
import { boolFlag, InputError, intFlag, printJson, stringFlag, UsageError, type Command } from '../args.ts';

export const command: Command = {
  name: 'probe',
  summary: 'Which surface a checkpoint keys on: one task under another task\'s spec or none, success and first edits of each',
  usage: 'tinyagent probe --checkpoint DIR --task NAME [--episodes N] [--seed S] [--json]',
  flags: {
    checkpoint: { type: 'string', description: 'checkpoint folder, e.g. runs/default/step-80' },
    task: { type: 'string', description: 'task name or id (tinyagent tasks lists them)' },
    episodes: { type: 'string', description: 'episodes per probe (1 to 1000)', default: '32' },
    seed: { type: 'string', description: 'seed of the episodes', default: '0' },
    json: { type: 'boolean', description: 'print JSON' },
  },
  async run(args) {
    const checkpoint = stringFlag(args, 'checkpoint');
    const name = stringFlag(args, 'task');
    if (checkpoint === undefined || name === undefined) throw new UsageError('--checkpoint DIR and --task NAME are required');
    if (!existsSync(checkpoint)) throw new InputError(`checkpoint folder '${checkpoint}' does not exist; train one with \`npm run train\``);
    let task;
    try {
      task = findTask(makeTasks('all'), /^\d+$/.test(name) ? Number(name) : name);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const episodes = intFlag(args, 'episodes', 32, { min: 1, max: 1000 });
    const seed = intFlag(args, 'seed', 0, { min: 0 });
    let rows;
    try {
      rows = await probeCheckpoint({ checkpoint, task, episodes, seed });
    } catch (error) {
      throw new InputError((error as Error).message);
    }
    if (boolFlag(args, 'json')) {
      printJson({ checkpoint, task: task.name, type: task.type, seed, rows });
      return;
    }
    process.stdout.write(`${checkpoint} on ${task.name} (${task.type}, repair ${task.repairOp}), ${episodes} episodes per probe, surface variation off\n`);
    for (const row of rows) {
      const ops = Object.entries(row.firstEdit).sort((a, b) => b[1] - a[1]).map(([op, count]) => `${op} ${count}`).join(', ');
      process.stdout.write(`  ${row.change.padEnd(34)} ${String(row.successes).padStart(4)}/${row.episodes}   first edit: ${ops}\n`);
    }
  },
};
