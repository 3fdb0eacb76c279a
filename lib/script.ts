import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isOutputError, outputFailed } from './internalError.js';
import { debugging, errorKind, errorLine, EXIT, UsageError } from './errors.ts';
import { ROOT } from './paths.ts';
import { closestName } from './text.ts';

/** True when the module at `url` is the script node was started with (`node --import tsx FILE`). */
export function isMain(url: string): boolean {
  return process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(url);
}

/**
 * Runs a script's `main` as a command: an error ends in one line, `NAME: message`, with the CLI's
 * exit codes (lib/errors.ts), never in a stack trace (TINYAGENT_DEBUG=1 adds it). The handlers are
 * installed before the wasm backend loads, whose own handlers would rethrow.
 */
export async function runScript(name: string, main: () => Promise<unknown>): Promise<void> {
  const onOutputError = outputFailed(name);
  process.stdout.on('error', onOutputError);
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(scriptHelp(name, process.argv[1] ?? ''));
    return;
  }
  const fail = (error: unknown): never => {
    if (isOutputError(error)) onOutputError(error);
    const kind = errorKind(error);
    process.stderr.write(`${name}: ${errorLine(error, kind)}\n`);
    if (kind !== 'usage' && debugging() && error instanceof Error && error.stack !== undefined)
      process.stderr.write(`${error.stack}\n`);
    process.exit(EXIT[kind]);
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  try {
    await main();
  } catch (error) {
    fail(error);
  }
}

/** A script's `--help`: its header comment, which is the script's documentation, and the exit codes. */
export function scriptHelp(name: string, file: string): string {
  const header = /^\/\*\*\n([\s\S]*?)\n\s*\*\//m.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
  const text = header
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n');
  return `${name} (${relative(ROOT, file)})\n\n${text}\n\nAny flag not named above is refused (exit 2). Exit codes: 0 done, 1 bad data or environment, 2 bad usage, 3 internal error (README, "Exit codes").\n`;
}

/**
 * The one parser of every script's flags, as strict as the `tinyagent` commands': an unknown flag
 * (with a hint), one given twice, a missing or empty value, or an argument is a UsageError.
 */
export function parseScriptFlags<const O extends Record<string, { type: 'string' | 'boolean' }>>(
  argv: string[],
  options: O,
  names: string,
): { [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: false, tokens: true });
  } catch (error) {
    const message = (error as Error).message.split('\n')[0] as string;
    const unknown = /^Unknown option '([^']*)'/.exec(message);
    if (unknown === null) throw new UsageError(`${message} (options: ${names})`);
    const near = closestName((unknown[1] as string).replace(/^-+/, ''), Object.keys(options));
    throw new UsageError(
      `unknown flag '${unknown[1]}'${near === undefined ? '' : `; did you mean --${near}?`} (options: ${names})`,
    );
  }
  const given = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    if (given.has(token.name)) throw new UsageError(`--${token.name} is given twice; give it once`);
    given.add(token.name);
    if (typeof token.value === 'string' && token.value.trim() === '')
      throw new UsageError(`--${token.name} is empty; give it a value`);
  }
  return parsed.values as { [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean };
}
