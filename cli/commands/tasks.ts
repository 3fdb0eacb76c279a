import { count } from '../../lib/text.ts';
import {
  alignedLines,
  boolFlag,
  choiceFlag,
  printJson,
  switchFlag,
  valueFlag,
  type Command,
} from '../args.ts';
import { BUG_TYPES, makeTasks } from '../../gym/index.ts';

/** What `tasks` lists of each task, in order: the table's columns, each JSON row's keys. */
const FIELDS = ['id', 'name', 'type', 'variant', 'split', 'repairOp'] as const;

export const command: Command = {
  name: 'tasks',
  summary: 'List the 30 gym tasks: id, name, bug type, variant, split and repair op',
  usage: 'tinyagent tasks [--split all|train|heldout] [--held-out-type TYPE] [--json]',
  flags: {
    split: valueFlag('which side of the split to list', { default: 'all' }),
    'held-out-type': valueFlag(
      `type split: hold out this whole bug type (${BUG_TYPES.join(', ')}) instead of variants 4-5`,
    ),
    json: switchFlag('print the rows as JSON on stdout'),
  },
  async run(args) {
    const split = choiceFlag(args, 'split', ['all', 'train', 'heldout'] as const, 'all');
    const heldOutType = choiceFlag(args, 'held-out-type', BUG_TYPES, undefined);
    const tasks = makeTasks(split, { heldOutType });
    if (boolFlag(args, 'json'))
      return printJson(tasks.map((task) => Object.fromEntries(FIELDS.map((field) => [field, task[field]]))));
    const cells = tasks.map((task) => FIELDS.map((field) => String(task[field])));
    for (const line of alignedLines([[...FIELDS], ...cells])) process.stdout.write(`${line}\n`);
    process.stdout.write(
      `${count(tasks.length, 'task')} (${heldOutType === undefined ? 'variant split: variants 4-5 held out' : `type split: all of '${heldOutType}' held out`})\n`,
    );
  },
};
