import { existsSync } from 'node:fs';
import { findTask, makeTasks } from '../../gym/index.ts';
import { probeCheckpoint } from '../../eval/probe.ts';
import { BACKEND_PREFERENCES, initBackend } from '../../agent/index.ts';
import { backendFlag, boolFlag, InputError, intFlag, MAX_SEED, printJson, stringFlag, UsageError, type Command } from '../args.ts';

export const command: Command = {
  name: 'probe',
  summary: 'Which surface a checkpoint keys on: one task under another task\'s spec or none, success and first edits of each',
  usage: 'tinyagent probe --checkpoint DIR --task NAME [--episodes N] [--seed S] [--json]',
  flags: {
    checkpoint: { type: 'string', description: 'checkpoint folder, e.g. runs/default/step-80' },
    task: { type: 'string', description: 'task name or id (tinyagent tasks lists them)' },
    episodes: { type: 'string', description: 'episodes per probe', default: '32', range: { min: 1, max: 1024 } },
    seed: { type: 'string', description: 'seed of the episodes', default: '0', range: { min: 0, max: MAX_SEED } },
    backend: { type: 'string', description: `tfjs backend: ${BACKEND_PREFERENCES.join(', ')}`, default: 'auto' },
    json: { type: 'boolean', description: 'print JSON' },
  },
  async run(args) {
    const checkpoint = stringFlag(args, 'checkpoint');
    const name = stringFlag(args, 'task');
    if (checkpoint === undefined || name === undefined) throw new UsageError('--checkpoint DIR and --task NAME are required');
    let task;
    try {
      task = findTask(makeTasks('all'), /^\d+$/.test(name) ? Number(name) : name);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const episodes = intFlag(args, 'episodes', 32, { min: 1, max: 1024 });
    const seed = intFlag(args, 'seed', 0, { min: 0, max: MAX_SEED });
    const preference = backendFlag(args, BACKEND_PREFERENCES, 'auto');
    if (!existsSync(checkpoint)) throw new InputError(`checkpoint folder '${checkpoint}' does not exist; train one with \`npm run train\``);
    await initBackend({ preference });
    const rows = await probeCheckpoint({ checkpoint, task, episodes, seed });
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
