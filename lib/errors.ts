import { oneLine } from './text.ts';

/**
 * Exit codes of every command and experiment script (README, "Exit codes"): 0 done; 1 bad data
 * the user can fix (a result file, a checkpoint, a config, a run folder in use), a question a
 * statistic cannot answer from the numbers given (`StatisticsError`) or a check that failed (a
 * canary drift); 2 bad usage (a flag, an argument, TINYAGENT_BACKEND); 3 an internal
 * error (a bug: one line, the stack with TINYAGENT_DEBUG=1); 75 (EX_TEMPFAIL of BSD's
 * sysexits.h) not done now, retry later: a study job another live process holds.
 */
export const EXIT = { ok: 0, input: 1, usage: 2, internal: 3, retry: 75 } as const;

/** What an error that reached the top is: a mistake in the call, bad data the user can fix, a bug, or work to retry later. Each is a key of `EXIT`. */
export type ErrorKind = 'usage' | 'input' | 'internal' | 'retry';

/** A mistake in how a command was called: reported in one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * Bad input the user can fix (a result file, a checkpoint, a config, a run folder, a backend
 * that cannot start): one message, exit code 1. The gym's, the agent's, the training's and the
 * readers' own error classes extend it, so that one `instanceof` classifies them all.
 */
export class InputError extends Error {
  override name = 'InputError';
}

/**
 * Work that cannot be done now and may be retried as it is (a job held by another live process,
 * a claim taken over by another): one line, exit code 75, which schedulers retry.
 */
export class RetryError extends Error {
  override name = 'RetryError';
}

/**
 * A statistic asked what its numbers cannot answer (eval/: a k above the samples, no common task,
 * an N above 2^53 - 1, a level outside (0, 1)): every statistic throws this and only this, with a
 * message naming the argument. A RangeError, as such refusals are in JavaScript; exit code 1, as
 * bad data is (a command checks its flags' ranges before it computes, so a flag out of its range is
 * a UsageError first).
 */
export class StatisticsError extends RangeError {
  override name = 'StatisticsError';
}

/**
 * The kind of an error, the one place exit codes are decided: a UsageError is usage, an
 * InputError or a StatisticsError input, a RetryError retry, anything else is a bug.
 */
export function errorKind(error: unknown): ErrorKind {
  if (error instanceof UsageError) return 'usage';
  if (error instanceof RetryError) return 'retry';
  if (error instanceof InputError || error instanceof StatisticsError) return 'input';
  return 'internal';
}

/**
 * Runs `compute`, naming `where` (the files its numbers came from) before the message of a
 * StatisticsError it throws; the error keeps its class, and with it its exit code.
 */
export function naming<T>(where: string, compute: () => T): T {
  try {
    return compute();
  } catch (error) {
    if (error instanceof StatisticsError) error.message = `${where}: ${error.message}`;
    throw error;
  }
}

/** Whether TINYAGENT_DEBUG=1 asks for the stack of an error. */
export function debugging(): boolean {
  return process.env['TINYAGENT_DEBUG'] === '1';
}

/**
 * The one line that reports an error (after the command's `name: `): the message of a usage or
 * input error; for a bug, `internal error: Name: message` and, without TINYAGENT_DEBUG=1, how to
 * see the stack.
 */
export function errorLine(error: unknown, kind: ErrorKind = errorKind(error)): string {
  if (kind !== 'internal') return oneLine((error as Error).message);
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `internal error: ${oneLine(message)}${debugging() ? '' : ' (TINYAGENT_DEBUG=1 shows the stack)'}`;
}
