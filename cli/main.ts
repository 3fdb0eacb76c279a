import { helpText, InputError, parseCommandArgs, UsageError, type Command } from './args.ts';
import { commandLoaders } from './commands/index.ts';

function topHelp(summaries: Array<[string, string]>): string {
  const width = Math.max(...summaries.map(([name]) => name.length));
  return [
    'tinyagent: a tiny RL-trained code-repair agent and the statistics to measure it honestly',
    '',
    'Usage: tinyagent <command> [options]   (tinyagent <command> --help for its options)',
    '',
    'Commands:',
    ...summaries.map(([name, summary]) => `  ${name.padEnd(width + 2)}${summary}`),
  ].join('\n');
}

/** Runs one command; returns the process exit code (0 ok, 1 bad input or failure, 2 bad usage). */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const summaries: Array<[string, string]> = [];
    for (const [commandName, load] of Object.entries(commandLoaders)) summaries.push([commandName, (await load()).summary]);
    process.stdout.write(`${topHelp(summaries)}\n`);
    return name === undefined ? 2 : 0;
  }
  const load = commandLoaders[name];
  if (load === undefined) {
    process.stderr.write(`tinyagent: unknown command '${name}' (try tinyagent --help)\n`);
    return 2;
  }
  const command: Command = await load();
  try {
    const args = parseCommandArgs(command, rest);
    if (args === 'help') {
      process.stdout.write(`${helpText(command)}\n`);
      return 0;
    }
    return (await command.run(args)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`tinyagent ${name}: ${error.message} (see tinyagent ${name} --help)\n`);
      return 2;
    }
    if (error instanceof InputError) {
      process.stderr.write(`tinyagent ${name}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
