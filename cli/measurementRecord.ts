import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { outFileFlag, readJsonFile, type CommandArgs } from './args.ts';
import { InputError } from '../lib/errors.ts';
import { writeJsonAtomic } from '../lib/atomic.ts';
import { fingerprint } from '../agent/index.ts';

// What a command that measures (train, canary, bench; study compare) records in its --out file
// beside its numbers: the command line that made them, the machine, and its own section of a file
// several commands fill. Result files of episodes are eval/io's (resultFile.ts), not these.

/** `--out FILE.json` of `train`, `canary`, `bench`: the results file the docs quote (results/*.json). */
export const outFlag = (args: CommandArgs) => outFileFlag(args, { extension: '.json', format: 'JSON' });

/** The machine a figure was measured on: timings depend on it, and on how busy it was. */
type MachineNote = ReturnType<ReturnType<typeof noteMachine>>;

/** Starts noting the machine; call the result when the measurement ends. */
export function noteMachine() {
  const start = loadavg()[0] ?? 0;
  return () => ({
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpus().length,
    // timings, and other libraries' kernels, depend on the processor
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    // the one-minute load at the start and the end (above `cpus`: a shared, busy machine)
    loadAverage: { start: round2(start), end: round2(loadavg()[0] ?? 0) },
  });
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** The command with the flags it was given, for the file's record of what produced it. */
export function commandLine(name: string, args: CommandArgs): string {
  const flags = Object.entries(args.flags).flatMap(([flag, value]) =>
    value === undefined || value === false ? [] : value === true ? [`--${flag}`] : [`--${flag}`, value],
  );
  return ['tinyagent', name, ...flags, ...args.positionals].join(' ');
}

/** Writes a command's --out file: its command line, the machine, the fingerprint (docs/CONTRACT.md), `fields`. */
export function writeRecord(
  path: string,
  name: string,
  args: CommandArgs,
  machine: MachineNote | undefined,
  fields: Record<string, unknown>,
): void {
  writeJsonAtomic(path, {
    command: commandLine(name, args),
    ...(machine === undefined ? {} : { machine }),
    fingerprint: fingerprint(),
    ...fields,
  });
}

/** The sections of a results file, or none yet; not a JSON object is an InputError (asked before training). */
export function readSections(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  const parsed = readJsonFile(path, '--out');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InputError(`--out: ${path} holds no JSON object; remove it or give another file`);
  return parsed as Record<string, unknown>;
}

/**
 * Writes one section of a results file (`results/train.json`: `run`, `seeds`) with the fingerprint
 * of the process that made it, keeping the other sections; atomic.
 */
export function writeSection(path: string, section: string, value: unknown): void {
  // Each section records what made its bits (docs/CONTRACT.md): the sections come from different runs.
  const recorded =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? { ...value, fingerprint: fingerprint() }
      : value;
  writeJsonAtomic(path, { ...readSections(path), [section]: recorded });
}
