import { parseArgs } from 'node:util';

/** A mistake in how a command was called: reported in one line, exit code 2. */
export class UsageError extends Error {}

/** Bad input the user can fix (a result file, a checkpoint, a config): one message, exit code 1. */
export class InputError extends Error {}

export interface FlagSpec {
  type: 'string' | 'boolean';
  description: string;
  /** Shown in --help; the command applies its own default when the flag is absent. */
  default?: string;
  short?: string;
}

export interface Command {
  name: string;
  summary: string;
  /** e.g. `tinyagent metrics FILE [--k 1,5,10]` */
  usage: string;
  flags: Record<string, FlagSpec>;
  /** How many positional arguments the command takes. */
  positionals?: { min: number; max: number };
  run(args: CommandArgs): Promise<number | void>;
}

export interface CommandArgs {
  flags: Record<string, string | boolean | undefined>;
  positionals: string[];
}

export function helpText(command: Command): string {
  const lines = [`${command.summary}`, '', `Usage: ${command.usage}`, '', 'Options:'];
  const entries = Object.entries({ ...command.flags, help: { type: 'boolean', description: 'show this help' } as FlagSpec });
  const width = Math.max(...entries.map(([name, spec]) => name.length + (spec.type === 'string' ? 6 : 0)));
  for (const [name, spec] of entries) {
    const left = `--${name}${spec.type === 'string' ? ' VALUE' : ''}`.padEnd(width + 4);
    const fallback = spec.default !== undefined ? ` (default: ${spec.default})` : '';
    lines.push(`  ${left}${spec.description}${fallback}`);
  }
  return lines.join('\n');
}

/** Parses argv strictly: an unknown flag or a missing value is a UsageError. */
export function parseCommandArgs(command: Command, argv: string[]): CommandArgs | 'help' {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, spec] of Object.entries(command.flags)) {
    options[name] = spec.short !== undefined ? { type: spec.type, short: spec.short } : { type: spec.type };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
  if (parsed.values.help === true) return 'help';
  const { min, max } = command.positionals ?? { min: 0, max: 0 };
  if (parsed.positionals.length < min) throw new UsageError(`expected at least ${min} argument(s), got ${parsed.positionals.length}`);
  if (parsed.positionals.length > max) throw new UsageError(`unexpected argument '${parsed.positionals[max]}'`);
  return { flags: parsed.values as CommandArgs['flags'], positionals: parsed.positionals };
}

/** An integer flag with bounds; `fallback` when absent. */
export function intFlag(args: CommandArgs, name: string, fallback: number, { min = -Infinity, max = Infinity } = {}): number {
  const raw = args.flags[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isInteger(value)) throw new UsageError(`--${name} must be an integer, got '${String(raw)}'`);
  if (value < min || value > max) throw new UsageError(`--${name} must be in [${min}, ${max}], got ${value}`);
  return value;
}

/** A finite number flag with bounds; `fallback` when absent. */
export function numberFlag(args: CommandArgs, name: string, fallback: number, { min = -Infinity, max = Infinity } = {}): number {
  const raw = args.flags[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(value)) throw new UsageError(`--${name} must be a number, got '${String(raw)}'`);
  if (value < min || value > max) throw new UsageError(`--${name} must be in [${min}, ${max}], got ${value}`);
  return value;
}

/** A comma-separated list of positive integers, e.g. `--k 1,5,10`. */
export function intListFlag(args: CommandArgs, name: string, fallback: number[]): number[] {
  const raw = args.flags[name];
  if (raw === undefined) return fallback;
  const parts = String(raw).split(',').map((part) => part.trim());
  const values = parts.map(Number);
  if (parts.some((part) => part === '') || values.some((value) => !Number.isInteger(value) || value < 1)) {
    throw new UsageError(`--${name} must be a comma-separated list of positive integers, got '${String(raw)}'`);
  }
  return values;
}

/** A flag restricted to a set of values. */
export function choiceFlag<T extends string>(args: CommandArgs, name: string, choices: readonly T[], fallback: T): T {
  const raw = args.flags[name];
  if (raw === undefined) return fallback;
  if (!choices.includes(raw as T)) throw new UsageError(`--${name} must be one of ${choices.join(', ')}, got '${String(raw)}'`);
  return raw as T;
}

export function stringFlag(args: CommandArgs, name: string): string | undefined {
  const raw = args.flags[name];
  return typeof raw === 'string' ? raw : undefined;
}

export function boolFlag(args: CommandArgs, name: string): boolean {
  return args.flags[name] === true;
}

/** Prints a value as JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
