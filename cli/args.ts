import { parseArgs } from 'node:util';
import type { z } from 'zod';
import { readResults, type ReadOptions } from '../eval/io/batch.ts';
import { FORMAT_CHOICES, OPTION_FORMATS } from '../eval/io/formats/detect.ts';
import { jsonErrorWhere } from '../eval/io/formats/json.ts';
import type { ResultFile, ResultFormat } from '../eval/io/resultFile.ts';
import { defaultMaxBytes, MAX_ROWS } from '../eval/io/source.ts';
import { DEFAULT_REPLICATES } from '../eval/bootstrap.ts';
import { refuseSpecialTarget } from '../lib/atomic.ts';
import { readRegularFile } from '../lib/files.ts';
import { duplicatedKeyPath } from '../lib/json.ts';
import { clip, closestName, DECIMAL_NUMBER } from '../lib/text.ts';
import { InputError, UsageError } from '../lib/errors.ts';

export { EXIT, InputError, UsageError } from '../lib/errors.ts';

/**
 * What a numeric flag takes: a number in [min, max], an integer when `integer`, or the one
 * `word` it takes instead of a number (`--max-edits unlimited`).
 */
export interface FlagRange {
  min: number;
  max: number;
  integer: boolean;
  word?: string;
}

export const integers = (min: number, max: number): FlagRange => ({ min, max, integer: true });
export const decimals = (min: number, max: number): FlagRange => ({ min, max, integer: false });

/** The range of a count flag: a positive integer that is exact in a double. */
export const POSITIVE_RANGE = integers(1, Number.MAX_SAFE_INTEGER);

/** The seeds a flag or config accepts: 31-bit non-negative integers. */
export const SEED_RANGE = integers(0, 2_147_483_647);

export interface FlagSpec {
  type: 'string' | 'boolean';
  description: string;
  /** Shown in --help; the command (a config flag: the config schema) applies it when the flag is absent. */
  default?: string;
  /** A numeric flag's form and range, shown in --help as `[min..max]`; `parseCommandArgs` checks both. */
  range?: FlagRange;
  /** A string flag that may be given more than once; its value is the list (`listFlag`). */
  multiple?: boolean;
  /** An old name kept working: read as `aliasOf`, with a warning on stderr that it is deprecated. */
  aliasOf?: string;
}

/** A flag that takes a value (`--seed 3`). */
export function valueFlag(description: string, more: Omit<FlagSpec, 'type' | 'description'> = {}): FlagSpec {
  return { type: 'string', description, ...more };
}

/** A flag that takes no value (`--json`). */
export const switchFlag = (description: string): FlagSpec => ({ type: 'boolean', description });

export interface Command {
  name: string;
  summary: string;
  /** e.g. `tinyagent metrics FILE [--k 1,5,10]` */
  usage: string;
  flags: Record<string, FlagSpec>;
  positionals?: { min: number; max: number };
  /** More --help text after the options (e.g. the config fields and their ranges). */
  moreHelp?: () => string;
  run(args: CommandArgs): Promise<number | void>;
}

export interface CommandArgs {
  flags: Record<string, string | boolean | undefined>;
  /** The values of the flags given with `multiple`, each in order (absent: not given). */
  lists?: Record<string, string[]>;
  positionals: string[];
}

export function helpText(command: Command): string {
  const lines = [`${command.summary}`, '', `Usage: ${command.usage}`, '', 'Options:'];
  const entries = Object.entries({ ...command.flags, help: switchFlag('show this help') });
  const width = Math.max(...entries.map(([name, spec]) => name.length + (spec.type === 'string' ? 6 : 0)));
  for (const [name, spec] of entries) {
    const left = `--${name}${spec.type === 'string' ? ' VALUE' : ''}`.padEnd(width + 4);
    const range = spec.range !== undefined ? ` [${bound(spec.range.min)}..${bound(spec.range.max)}]` : '';
    const fallback = spec.default !== undefined ? ` (default: ${spec.default})` : '';
    lines.push(`  ${left}${spec.description}${range}${fallback}`);
  }
  if (command.moreHelp !== undefined) lines.push('', command.moreHelp());
  return lines.join('\n');
}

/**
 * Parses argv strictly: an unknown flag (with the nearest known one as a hint), a missing value,
 * a flag given twice (unless `multiple`), an empty value or argument are UsageErrors. A
 * deprecated name (`aliasOf`) is read as its flag, with a warning on stderr.
 */
export function parseCommandArgs(command: Command, argv: string[]): CommandArgs | 'help' {
  const options: ParseOptions = { help: { type: 'boolean', short: 'h' } };
  for (const [name, spec] of Object.entries(command.flags))
    options[name] = { type: spec.type, multiple: spec.multiple === true };
  let parsed;
  try {
    parsed = parseArgs({
      args: joinNegativeValues(argv, options),
      options,
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch (error) {
    const message = (error as Error).message.split('\n')[0] as string;
    const unknown = /^Unknown option '([^']*)'/.exec(message);
    if (unknown === null) throw new UsageError(message);
    const typed = unknown[1] as string;
    const near = closestName(typed.replace(/^-+/, ''), Object.keys(options));
    throw new UsageError(
      `unknown flag '${clip(typed)}'${near === undefined ? '' : `; did you mean --${near}?`}`,
    );
  }
  if (parsed.values.help === true) return 'help';
  checkGivenOnce(command, parsed.tokens);
  const { min, max } = command.positionals ?? { min: 0, max: 0 };
  if (parsed.positionals.length < min)
    throw new UsageError(
      `expected at least ${min} argument${min === 1 ? '' : 's'}, got ${parsed.positionals.length}`,
    );
  if (parsed.positionals.length > max)
    throw new UsageError(`unexpected argument '${clip(parsed.positionals[max] as string)}'`);
  const empty = parsed.positionals.findIndex((value) => value.trim() === '');
  if (empty >= 0)
    throw new UsageError(
      `argument ${empty + 1} is empty: it names no file or folder (give a path; . is this folder)`,
    );
  const flags: CommandArgs['flags'] = {};
  const lists: Record<string, string[]> = {};
  const deprecated: string[] = [];
  for (const [given, value] of Object.entries(parsed.values)) {
    const alias = command.flags[given]?.aliasOf;
    if (alias !== undefined) deprecated.push(`--${given} is now --${alias}`);
    const name = alias ?? given;
    if ([value].flat().some((each) => typeof each === 'string' && each.trim() === ''))
      throw new UsageError(`--${given} is empty; give it a value`);
    if (Array.isArray(value)) lists[name] = value.map(String);
    else flags[name] = value;
  }
  // A numeric flag's form and static range are checked here, before any file is read; its reader
  // (intFlag, numberFlag) checks only a range that depends on other flags.
  for (const [name, raw] of Object.entries(flags)) {
    const range = command.flags[name]?.range;
    if (range !== undefined && typeof raw === 'string' && raw !== range.word)
      inRange(name, numberOf(name, raw, range.integer), range);
  }
  if (deprecated.length > 0)
    process.stderr.write(
      `tinyagent ${command.name}: warning: ${deprecated.join(' and ')} (deprecated; ${deprecated.length === 1 ? 'the old name still works' : 'the old names still work'})\n`,
    );
  return { flags, lists, positionals: parsed.positionals };
}

/**
 * A UsageError when a flag that takes one value was given more than once, directly or under its
 * deprecated name (`--index 1 --index 5` would otherwise run job 5 and say nothing).
 */
function checkGivenOnce(
  command: Command,
  tokens: ReadonlyArray<{ kind: string; name?: string; value?: string | undefined }>,
): void {
  const seen = new Map<string, { given: string; value: string | undefined }>();
  for (const token of tokens) {
    if (token.kind !== 'option' || token.name === undefined || token.name === 'help') continue;
    const spec = command.flags[token.name];
    if (spec?.multiple === true) continue;
    const name = spec?.aliasOf ?? token.name;
    const before = seen.get(name);
    if (before !== undefined) {
      const values =
        before.value === undefined || token.value === undefined
          ? ''
          : ` ('${clip(before.value)}', then '${clip(token.value)}')`;
      throw new UsageError(
        before.given === token.name
          ? `--${name} is given twice${values}; give it once`
          : `--${before.given} and --${token.name} are one flag (--${name})${values}; give it once`,
      );
    }
    seen.set(name, { given: token.name, value: token.value });
  }
}

type ParseOptions = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

/**
 * `--seed -1` would make node's parseArgs report the value as "ambiguous" (it looks like a
 * flag); a string flag followed by a negative number is read as `--seed=-1`, so that the range
 * check can say what is wrong with it, and a repeatable flag followed by `--x` as `--flag=--x`.
 */
function joinNegativeValues(argv: readonly string[], options: ParseOptions): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (
      name !== undefined &&
      options[name]?.type === 'string' &&
      next !== undefined &&
      // A repeatable flag's values are options of another program (`--sbatch --qos=long`).
      (/^-(\d|\.\d)/.test(next) || (options[name]?.multiple === true && next.startsWith('--')))
    ) {
      joined.push(`${arg}=${next}`);
      i += 1;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}

const DECIMAL_INTEGER = /^[+-]?\d+$/;

type Range = { min?: number; max?: number } | undefined;

/**
 * A flag's value as a number: an integer written in decimal (`0x10`, `1e3` and `1.0` are refused;
 * so are integers beyond 2^53 - 1, which are not exact), else a finite decimal number
 * (`0x10`, `Infinity` are refused).
 */
function numberOf(name: string, raw: string | boolean, integer: boolean): number {
  const value = Number(raw);
  if (integer) {
    if (typeof raw !== 'string' || !DECIMAL_INTEGER.test(raw) || !Number.isSafeInteger(value))
      throw new UsageError(`--${name} must be a decimal integer, got '${clip(String(raw))}'`);
  } else if (typeof raw !== 'string' || !DECIMAL_NUMBER.test(raw) || !Number.isFinite(value))
    throw new UsageError(`--${name} must be a decimal number, got '${clip(String(raw))}'`);
  return value;
}

/**
 * A numeric flag (`numberOf`) within `range`, a range that depends on other flags (a spec's own
 * range was checked by `parseCommandArgs`); `fallback` when absent.
 */
const numericFlag =
  (integer: boolean) =>
  <F extends number | null | undefined>(
    args: CommandArgs,
    name: string,
    fallback: F,
    range?: Range,
  ): number | F => {
    const raw = args.flags[name];
    return raw === undefined ? fallback : inRange(name, numberOf(name, raw, integer), range);
  };
export const intFlag = numericFlag(true);
export const numberFlag = numericFlag(false);

/** A bound as a user reads it: the largest exact integer as 2^53 - 1. */
const bound = (value: number) => (value === Number.MAX_SAFE_INTEGER ? '2^53 - 1' : String(value));

/** A range as a user reads it: `in [1, 256]`, `at least 0`, `above 0`, `at most 1`. */
function rangeText({ min = -Infinity, max = Infinity }: Range = {}): string {
  if (max === Infinity) return min === Number.MIN_VALUE ? 'above 0' : `at least ${bound(min)}`;
  return min === -Infinity ? `at most ${bound(max)}` : `in [${bound(min)}, ${bound(max)}]`;
}

function inRange(name: string, value: number, range: Range = {}): number {
  const { min = -Infinity, max = Infinity } = range;
  if (value < min || value > max) throw new UsageError(`--${name} must be ${rangeText(range)}, got ${value}`);
  return value;
}

/**
 * The --backend flag, and TINYAGENT_BACKEND when the flag leaves the choice to it: a name
 * outside `names` in either is a UsageError. `names` is the agent's BACKEND_PREFERENCES (passed
 * in so that this module does not load TensorFlow).
 */
export function backendFlag<T extends string>(args: CommandArgs, names: readonly T[], fallback: T): T {
  const choice = choiceFlag(args, 'backend', names, fallback);
  const fromEnv = process.env['TINYAGENT_BACKEND']?.trim().toLowerCase();
  if (choice === 'auto' && fromEnv && !(names as readonly string[]).includes(fromEnv))
    throw new UsageError(
      `TINYAGENT_BACKEND='${clip(fromEnv)}' is not a backend (have ${names.join(', ')}); unset it to choose automatically`,
    );
  return choice;
}

/**
 * Reads a JSON file the user gave: an InputError names the file and the fault in one line
 * (node's own message may quote the text, newlines and all).
 */
export function readJsonFile(path: string, flag: string): unknown {
  const text = readRegularFile(path, flag);
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputError(`${path}: not valid JSON (${clip(jsonErrorWhere(error, text), 120)})`);
  }
  // JSON.parse keeps the last of two values silently; a config says each field once.
  const twice = duplicatedKeyPath(text);
  if (twice !== undefined)
    throw new InputError(`${path}: the key '${clip(twice, 80)}' is given twice; keep one`);
  return value;
}

/**
 * `--out FILE` of a command that writes one format, which the extension must name (a UsageError);
 * a folder, a FIFO or a link at FILE is refused (an InputError) before any work.
 */
export function outFileFlag(
  args: CommandArgs,
  { extension, format }: { extension: '.json' | '.jsonl'; format: string },
): string | undefined {
  const out = stringFlag(args, 'out');
  if (out === undefined) return undefined;
  if (!out.toLowerCase().endsWith(extension))
    throw new UsageError(`--out writes ${format}: name the file *${extension}, got '${clip(out, 80)}'`);
  refuseSpecialTarget(out, '--out');
  return out;
}

/**
 * A count flag: an integer in [min, 2^53 - 1]. Above 2^53 - 1 neighbouring integers share one
 * float, so n = 1e21 and n = 1e21 + 1 would be the same number: such counts are refused.
 */
export function countFlag(
  args: CommandArgs,
  name: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = args.flags[name];
  const value = Number(raw);
  if (typeof raw === 'string' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new UsageError(
      `--${name} ${raw} is above 2^53 - 1 = ${Number.MAX_SAFE_INTEGER}, where integers are no longer exact`,
    );
  }
  return intFlag(args, name, 0, { min, max });
}

/** A comma-separated list of positive integers, e.g. `--k 1,5,10`. */
export function intListFlag<F extends number[] | undefined>(
  args: CommandArgs,
  name: string,
  fallback: F,
  { min = 1, max = Number.MAX_SAFE_INTEGER } = {},
): number[] | F {
  const raw = args.flags[name];
  if (raw === undefined) return fallback;
  const parts = String(raw)
    .split(',')
    .map((part) => part.trim());
  const values = parts.map(Number);
  if (
    parts.some((part) => !DECIMAL_INTEGER.test(part)) ||
    values.some((value) => !Number.isSafeInteger(value))
  ) {
    throw new UsageError(
      `--${name} must be a comma-separated list of ${min === 1 ? 'positive' : 'decimal'} integers, got '${String(raw)}'`,
    );
  }
  const outside = values.find((value) => value < min || value > max);
  if (outside !== undefined)
    throw new UsageError(`--${name} values must be ${rangeText({ min, max })}, got ${outside}`);
  const twice = values.find((value, i) => values.indexOf(value) !== i);
  if (twice !== undefined) throw new UsageError(`--${name} lists ${twice} twice; give each value once`);
  return values;
}

/** One field of an object schema as JSON Schema (what `z.toJSONSchema` gives for the input). */
export interface FieldSchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  default?: unknown;
  description?: string;
  anyOf?: FieldSchema[];
}

/** Every field of a zod object schema as JSON Schema (the input's: defaults and descriptions included). */
export function fieldSchemas(schema: z.ZodObject): Record<string, FieldSchema> {
  return (schema.toJSONSchema({ io: 'input' }) as { properties: Record<string, FieldSchema> }).properties;
}

/** A flag that sets one numeric field of a config: `--bc-steps` sets `bcSteps`. */
interface ConfigFlag {
  field: string;
  flag: string;
  spec: FlagSpec & { range: FlagRange };
}

/**
 * Flags for numeric fields of a config schema, named in kebab case; description, default and range
 * are written once, in the schema. A field without them is a mistake thrown when the command loads.
 */
export function configFlags<const F extends string>(
  schema: z.ZodObject,
  fields: readonly F[],
): Record<F, ConfigFlag> {
  const schemas = fieldSchemas(schema);
  const flags = {} as Record<F, ConfigFlag>;
  for (const field of fields) {
    const { type, minimum, maximum, description, default: fallback } = schemas[field] ?? {};
    if (
      (type !== 'integer' && type !== 'number') ||
      minimum === undefined ||
      maximum === undefined ||
      typeof fallback !== 'number' ||
      description === undefined
    )
      throw new Error(
        `configFlags: ${field} is not a number field with inclusive bounds, a default and a description`,
      );
    const flag = field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    flags[field] = {
      field,
      flag,
      spec: {
        type: 'string',
        description,
        default: String(fallback),
        range: { min: minimum, max: maximum, integer: type === 'integer' },
      },
    };
  }
  return flags;
}

/**
 * The config fields whose flags were given, each checked against its range (a UsageError names
 * the flag and the range); absent flags are left out, for the config schema to default.
 */
export function configFlagValues<F extends string>(
  args: CommandArgs,
  flags: Record<F, ConfigFlag>,
): Partial<Record<F, number>> {
  const values: Partial<Record<F, number>> = {};
  for (const { field, flag, spec } of Object.values<ConfigFlag>(flags)) {
    const raw = args.flags[flag];
    if (raw !== undefined) values[field as F] = numberOf(flag, raw, spec.range.integer);
  }
  return values;
}

/** A flag restricted to a set of values; `fallback` when absent. */
export function choiceFlag<T extends string, F extends T | undefined = T>(
  args: CommandArgs,
  name: string,
  choices: readonly T[],
  fallback: F,
): T | F {
  const raw = args.flags[name];
  if (raw === undefined) return fallback;
  if (!choices.includes(raw as T))
    throw new UsageError(`--${name} must be one of ${choices.join(', ')}, got '${String(raw)}'`);
  return raw as T;
}

export function stringFlag(args: CommandArgs, name: string): string | undefined {
  return typeof args.flags[name] === 'string' ? args.flags[name] : undefined;
}

/** Every value of a flag given more than once (`multiple`), in order; [] when absent. */
export const listFlag = (args: CommandArgs, name: string): string[] => args.lists?.[name] ?? [];

export const boolFlag = (args: CommandArgs, name: string): boolean => args.flags[name] === true;

/** `fields` less those that are undefined: options whose absent fields take their defaults. */
export const definedFields = <T extends object>(fields: T) =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Rows of cells as lines, each column padded to its widest cell, two spaces apart, no trailing space. */
export function alignedLines(rows: ReadonlyArray<readonly string[]>, indent = ''): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => `${indent}${row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`.trimEnd());
}

/** The flags of every command that reads result files: the format and each format's choice. */
export const RESULT_FILE_FLAGS: Record<string, FlagSpec> = {
  format: valueFlag(`the files' format: ${FORMAT_CHOICES.join(', ')}`, {
    default: 'auto (from the content)',
  }),
  scorer: valueFlag('Inspect logs: the scorer whose value is the outcome (needed when there are several)'),
  'partial-as': valueFlag(
    'Inspect logs: read partial credit "P" as pass or fail (otherwise 0.5, as Inspect does: graded scores, the mean score)',
  ),
  metric: valueFlag(
    'lm-evaluation-harness samples: the 0/1 metric that is the outcome, e.g. exact_match, acc (needed when there are several)',
  ),
  filter: valueFlag(
    'lm-evaluation-harness samples: the filter whose lines to read (needed when there are several)',
  ),
  'max-rows': valueFlag('the most result rows read from one file (each is held in memory; docs/METRICS.md)', {
    default: String(MAX_ROWS),
    range: POSITIVE_RANGE,
  }),
  'max-bytes': valueFlag(
    'the most bytes the rows of one file hold, and one JSON text of it may take to parse (docs/METRICS.md)',
    { default: "a quarter of node's heap limit", range: POSITIVE_RANGE },
  ),
};

/** The fewest bootstrap replicates --reps accepts: fewer put the percentile ends on a handful of draws. */
export const MIN_REPS = 100;

/** --level, --seed and --reps of the bootstrap of `metrics` and `compare`; `what` is what the seed seeds. */
export const bootstrapFlagSpecs = (what: string): Record<string, FlagSpec> => ({
  level: valueFlag('confidence level', { default: '0.95', range: decimals(0.5, 0.9999) }),
  seed: valueFlag(`seed of the ${what}`, { default: '0', range: SEED_RANGE }),
  reps: valueFlag('bootstrap replicates', {
    default: String(DEFAULT_REPLICATES),
    range: integers(MIN_REPS, 1_000_000),
  }),
});

export const bootstrapFlags = (args: CommandArgs) => ({
  level: numberFlag(args, 'level', 0.95),
  reps: intFlag(args, 'reps', DEFAULT_REPLICATES),
  seed: intFlag(args, 'seed', 0),
});

/** The reader's options from RESULT_FILE_FLAGS; a bad value is a UsageError. */
export function resultFileOptions(args: CommandArgs): ReadOptions {
  return {
    format: choiceFlag(args, 'format', FORMAT_CHOICES, 'auto'),
    maxRows: intFlag(args, 'max-rows', MAX_ROWS),
    maxBytes: intFlag(args, 'max-bytes', defaultMaxBytes()),
    ...definedFields({
      partialAs: choiceFlag(args, 'partial-as', ['pass', 'fail'] as const, undefined),
      scorer: stringFlag(args, 'scorer'),
      metric: stringFlag(args, 'metric'),
      filter: stringFlag(args, 'filter'),
    }),
  };
}

/** Reads `paths` with the options of RESULT_FILE_FLAGS, then checks them (checkResultFileOptions). */
export async function readResultFiles<const P extends readonly string[]>(
  args: CommandArgs,
  paths: P,
): Promise<{ -readonly [K in keyof P]: ResultFile }> {
  const options = resultFileOptions(args);
  const files: ResultFile[] = [];
  for (const path of paths) files.push(await readResults(path, options));
  checkResultFileOptions(options, files);
  return files as { -readonly [K in keyof P]: ResultFile };
}

/**
 * A UsageError when a format option was given and none of the files read is of a format it
 * applies to (e.g. --scorer for two HumanEval files), rather than ignore it.
 */
export function checkResultFileOptions(
  options: ReadOptions,
  files: ReadonlyArray<{ format: ResultFormat }>,
): void {
  for (const [option, formats] of Object.entries(OPTION_FORMATS) as Array<
    [keyof typeof OPTION_FORMATS, readonly ResultFormat[]]
  >) {
    if (options[option] === undefined || files.some(({ format }) => formats.includes(format))) continue;
    const flag = option === 'partialAs' ? 'partial-as' : option;
    throw new UsageError(
      `--${flag} applies to ${option === 'metric' || option === 'filter' ? 'lm-evaluation-harness samples' : 'Inspect logs'}, and ${files.length === 1 ? 'the file is not' : 'none of the files is'} one (${files.map(({ format }) => format).join(', ')})`,
    );
  }
}
