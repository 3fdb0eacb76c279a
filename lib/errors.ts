import { oneLine } from './text.ts';

/**
 * Exit codes of every command and experiment script (README, "Exit codes"): 0 done; 1 bad data the
 * user can fix, a question a statistic cannot answer, or a failed check; 2 bad usage; 3 an internal
 * error (a bug); 75 (EX_TEMPFAIL of sysexits.h) retry later: a study job another live process holds.
 */
export const EXIT = { ok: 0, input: 1, usage: 2, internal: 3, retry: 75 } as const;

export type ErrorKind = Exclude<keyof typeof EXIT, 'ok'>;

/** A mistake in how a command was called: reported in one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Bad input the user can fix (a file, a config, a run folder, a backend): exit 1; the project's own error classes extend it. */
export class InputError extends Error {
  override name = 'InputError';
}

/** Work that cannot be done now and may be retried as it is (a job held by another live process): exit 75. */
export class RetryError extends Error {
  override name = 'RetryError';
}

/**
 * A statistic asked what its numbers cannot answer (a k above the samples, a level outside (0, 1)):
 * every statistic throws this and only this, naming the argument. A RangeError; exit code 1.
 */
export class StatisticsError extends RangeError {
  override name = 'StatisticsError';
}

/** The kind of an error, the one place exit codes are decided: anything but the classes above is a bug. */
export function errorKind(error: unknown): ErrorKind {
  if (error instanceof UsageError) return 'usage';
  if (error instanceof RetryError) return 'retry';
  if (error instanceof InputError || error instanceof StatisticsError) return 'input';
  return 'internal';
}

/** Runs `compute`, naming `where` (the files its numbers came from) before the message of a StatisticsError it throws. */
export function naming<T>(where: string, compute: () => T): T {
  try {
    return compute();
  } catch (error) {
    if (error instanceof StatisticsError) error.message = `${where}: ${error.message}`;
    throw error;
  }
}

export function debugging(): boolean {
  return process.env['TINYAGENT_DEBUG'] === '1';
}

/** The one line that reports an error (after `name: `); for a bug, `internal error: Name: message` and how to see the stack. */
export function errorLine(error: unknown, kind: ErrorKind = errorKind(error)): string {
  if (kind !== 'internal') return oneLine((error as Error).message);
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `internal error: ${oneLine(message)}${debugging() ? '' : ' (TINYAGENT_DEBUG=1 shows the stack)'}`;
}
