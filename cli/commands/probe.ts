import { count } from '../../lib/text.ts';
import { findTask, makeTasks } from '../../gym/index.ts';
import { BACKEND_PREFERENCES, initBackend, probeCheckpoint } from '../../agent/index.ts';
import { backendFlag, boolFlag, intFlag, printJson, stringFlag, UsageError, type Command } from '../args.ts';
import { checkCheckpointFolder, checkpointFlags, topOps } from './eval.ts';

export const command: Command = {
  name: 'probe',
  summary:
    "Which surface a checkpoint keys on: one task under another task's spec or none, success and first edits of each",
  usage: 'tinyagent probe --checkpoint DIR --task NAME [--episodes N] [--seed S] [--json]',
  flags: {
    checkpoint: checkpointFlags.checkpoint,
    task: { type: 'string', description: 'task name or id (tinyagent tasks lists them)' },
    episodes: checkpointFlags.episodes('episodes per probe'),
    seed: checkpointFlags.seed('seed of the episodes'),
    backend: checkpointFlags.backend,
    json: { type: 'boolean', description: 'print JSON' },
  },
  async run(args) {
    const checkpoint = stringFlag(args, 'checkpoint');
    const name = stringFlag(args, 'task');
    if (checkpoint === undefined || name === undefined)
      throw new UsageError('--checkpoint DIR and --task NAME are required');
    let task;
    try {
      task = findTask(makeTasks('all'), /^\d+$/.test(name) ? Number(name) : name);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const episodes = intFlag(args, 'episodes', 32);
    const seed = intFlag(args, 'seed', 0);
    const preference = backendFlag(args, BACKEND_PREFERENCES, 'auto');
    checkCheckpointFolder(checkpoint);
    await initBackend({ preference });
    const rows = await probeCheckpoint({ checkpoint, task, episodes, seed });
    if (boolFlag(args, 'json'))
      return printJson({ checkpoint, task: task.name, type: task.type, seed, rows });
    process.stdout.write(
      `${checkpoint} on ${task.name} (${task.type}, repair ${task.repairOp}), ${count(episodes, 'episode')} per probe, surface variation off\n`,
    );
    for (const row of rows) {
      process.stdout.write(
        `  ${row.change.padEnd(34)} ${String(row.successes).padStart(4)}/${row.episodes}   first edit: ${topOps(row.firstEdit)}\n`,
      );
    }
  },
};
