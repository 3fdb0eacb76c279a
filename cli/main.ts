import { projectVersion } from '../lib/version.ts';
import { closestName, oneLine } from '../lib/text.ts';
import { EXIT, helpText, parseCommandArgs, type Command } from './args.ts';
import { commandLoaders } from './commands/index.ts';
import { debugging, errorKind, errorLine } from '../lib/errors.ts';

function topHelp(summaries: Array<[string, string]>): string {
  const width = Math.max(...summaries.map(([name]) => name.length));
  return [
    'tinyagent: a tiny RL-trained code-repair agent and the statistics to measure it honestly',
    '',
    'Usage: tinyagent <command> [options]   (tinyagent help <command>, or <command> --help, for its options)',
    '',
    'Commands:',
    ...summaries.map(([name, summary]) => `  ${name.padEnd(width + 2)}${summary}`),
    '',
    'tinyagent --version prints the version. Exit codes: 0 done, 1 bad data or environment, 2 bad usage, 3 internal error, 75 retry later (README, "Exit codes").',
  ].join('\n');
}

/**
 * Runs one command; returns the process exit code (`EXIT`: 0 ok, 1 bad input or a failed
 * check, 2 bad usage, 3 internal error). Every error that reaches this level is written as one
 * line `tinyagent <command>: message` on stderr; with TINYAGENT_DEBUG=1 an internal error's
 * stack follows.
 */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' && rest.length === 0) {
    process.stdout.write(`tinyagent ${projectVersion()}\n`);
    return EXIT.ok;
  }
  if (name === 'help' && rest.length > 0) {
    if (rest.length > 1) {
      process.stderr.write(`tinyagent help: give one command, got ${rest.length}\n`);
      return EXIT.usage;
    }
    return main([rest[0] as string, '--help']);
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const summaries: Array<[string, string]> = [];
    for (const [commandName, load] of Object.entries(commandLoaders))
      summaries.push([commandName, (await load()).summary]);
    process.stdout.write(`${topHelp(summaries)}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const load = Object.hasOwn(commandLoaders, name) ? commandLoaders[name] : undefined;
  if (load === undefined) {
    const near = closestName(name, [...Object.keys(commandLoaders), 'help', '--help', '--version']);
    process.stderr.write(
      `tinyagent: unknown command '${oneLine(name, 60)}'${near === undefined ? '' : `; did you mean ${near}?`} (try tinyagent --help)\n`,
    );
    return EXIT.usage;
  }
  try {
    const command: Command = await load();
    const args = parseCommandArgs(command, rest);
    if (args === 'help') {
      process.stdout.write(`${helpText(command)}\n`);
      return EXIT.ok;
    }
    return (await command.run(args)) ?? EXIT.ok;
  } catch (error) {
    return reportError(name, error);
  }
}

/** Writes the one-line report of an error that reached the top of a command; returns its exit code. */
export function reportError(commandName: string, error: unknown): number {
  const kind = errorKind(error);
  process.stderr.write(
    `tinyagent ${commandName}: ${errorLine(error, kind)}${kind === 'usage' ? ` (see tinyagent ${commandName} --help)` : ''}\n`,
  );
  if (kind === 'internal' && debugging() && error instanceof Error && error.stack !== undefined)
    process.stderr.write(`${error.stack}\n`);
  return EXIT[kind];
}
