import { count } from '../../lib/text.ts';
import {
  choiceFlag,
  InputError,
  intFlag,
  SEED_RANGE,
  stringFlag,
  UsageError,
  valueFlag,
  type Command,
} from '../args.ts';
import { EDIT_OPS, makeEnv, makeTasks, plainEnv, trainingHarness } from '../../gym/index.ts';

/**
 * The longest input line read as an action, in bytes: a well-formed action is a few words. A
 * longer line is skipped to its end without being kept (constant memory whatever its length)
 * and answered like any malformed action: `error bad action`, the turn spent.
 */
export const MAX_LINE_BYTES = 4096;

/** An input line: its text, or `tooLong` when it passed MAX_LINE_BYTES. */
type InputLine = { text: string; tooLong: false } | { text: ''; tooLong: true };

/** Lines of a byte stream, each cut off at `maxBytes` (the rest skipped, never buffered). */
export async function* cappedLines(
  input: AsyncIterable<Buffer | string>,
  maxBytes = MAX_LINE_BYTES,
): AsyncGenerator<InputLine> {
  let kept: Buffer[] = [];
  let size = 0; // of the whole line so far; past maxBytes nothing is kept
  const line = (): InputLine =>
    size > maxBytes
      ? { text: '', tooLong: true }
      : { text: Buffer.concat(kept).toString('utf8').replace(/\r$/, ''), tooLong: false };
  for await (const chunk of input) {
    let buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (;;) {
      const newline = buffer.indexOf(10);
      const piece = newline === -1 ? buffer : buffer.subarray(0, newline);
      size += piece.length;
      if (size > maxBytes) kept = [];
      else kept.push(Buffer.from(piece));
      if (newline === -1) break;
      yield line();
      kept = [];
      size = 0;
      buffer = buffer.subarray(newline + 1);
    }
  }
  if (size > 0) yield line();
}

/**
 * Why the env answered `error bad action`, in one line, or undefined when it did not: the env
 * only says the action was malformed, which a person typing `read` cannot act on.
 */
export function badActionHint(action: readonly string[], observation: readonly string[]): string | undefined {
  if (observation.slice(-5, -2).join(' ') !== 'error bad action') return undefined;
  const [tool, ...rest] = action;
  const tools = ['read', 'edit', 'test', 'submit'];
  if (action[action.length - 1] !== '<end>')
    return `hint: every action ends with <end>, e.g. \`${tool !== undefined && tools.includes(tool) ? tool : 'read'}${tool === 'edit' ? ' OP' : ''} <end>\``;
  if (tool === undefined || !tools.includes(tool)) return `hint: the tools are ${tools.join(', ')}`;
  if (tool === 'edit')
    return rest.length === 2 && (EDIT_OPS as readonly string[]).includes(rest[0]!)
      ? undefined
      : `hint: edit takes one op: \`edit OP <end>\` with OP one of ${EDIT_OPS.join(', ')}`;
  return rest.length > 1 ? `hint: \`${tool} <end>\` takes no argument` : undefined;
}

export const command: Command = {
  name: 'play',
  summary: 'Play one gym episode by hand: see exactly what the policy sees, type its actions',
  usage: `tinyagent play --task NAME [--seed S] [--harness train|plain]   (then type e.g. \`read <end>\`; a line longer than ${MAX_LINE_BYTES} bytes is a bad action)`,
  flags: {
    task: valueFlag('task name or id (see tinyagent tasks)'),
    seed: valueFlag('episode seed (decides the rename)', { default: '0', range: SEED_RANGE }),
    harness: valueFlag('train: 1 edit and renaming; plain: unlimited edits, no renaming', {
      default: 'train',
    }),
  },
  async run(args) {
    const taskKey = stringFlag(args, 'task');
    if (taskKey === undefined) throw new UsageError('--task is required');
    const tasks = makeTasks('all');
    const task = tasks.find((candidate) => candidate.name === taskKey || String(candidate.id) === taskKey);
    if (task === undefined)
      throw new UsageError(
        `--task: no task '${taskKey}' (have ${tasks.map((candidate) => candidate.name).join(', ')})`,
      );
    const seed = intFlag(args, 'seed', 0);
    const harness =
      choiceFlag(args, 'harness', ['train', 'plain'] as const, 'train') === 'train'
        ? trainingHarness()
        : plainEnv();
    const env = makeEnv(harness, { tasks });
    const out = (line: string) => process.stdout.write(`${line}\n`);
    let { observation } = env.reset({ seed, options: { task: task.id } });
    out(
      `Actions: read <end> | edit OP <end> | test <end> | submit <end>; ${count(harness.maxTurns, 'turn')}, ${harness.maxEdits === null ? 'unlimited edits' : count(harness.maxEdits, 'edit')}.`,
    );
    out(`Ops: ${EDIT_OPS.join(' ')}`);
    const lines = cappedLines(process.stdin);
    try {
      for (;;) {
        out(`\n${observation.join(' ')}`);
        process.stdout.write('action> ');
        const next = await lines.next();
        if (next.done === true) {
          out('');
          throw new InputError('input ended before the episode did');
        }
        // An over-long line becomes an action no tool accepts, so the env answers `error bad action`.
        const action = next.value.tooLong
          ? ['<line-too-long>']
          : next.value.text
              .trim()
              .split(/\s+/)
              .filter((word) => word !== '');
        if (!process.stdin.isTTY)
          out(next.value.tooLong ? `(a line longer than ${MAX_LINE_BYTES} bytes)` : action.join(' '));
        const result = env.step(action);
        observation = result.observation;
        const hint = badActionHint(action, observation);
        if (hint !== undefined) out(hint);
        if (result.terminated || result.truncated) {
          out(`\n${observation.join(' ')}\n`);
          out(
            `${result.terminated ? 'terminated (submitted)' : 'truncated (out of turns)'}: reward ${result.reward}`,
          );
          out(
            `task ${result.info.task} (${result.info.type}) shown as ${result.info.name}; public tests ${result.info.publicPass === true ? 'pass' : 'fail'}, hidden tests ${result.info.hiddenPass === true ? 'pass' : 'fail'}`,
          );
          out(`final source: ${env.currentSource}`);
          return 0;
        }
      }
    } finally {
      await lines.return(undefined); // stop reading stdin, so that the process can end
    }
  },
};
