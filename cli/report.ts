import { oneLine } from '../lib/text.ts';
import { InputError, UsageError } from './args.ts';

/** What an error that reached the top is: a mistake in the call, bad data the user can fix, or a bug. Each is a key of `EXIT`. */
export type ErrorKind = 'usage' | 'input' | 'internal';

/** Errors of the training, the agent and the result readers that report bad data, by name: importing their classes would load TensorFlow. */
const INPUT_ERRORS = new Set(['RunFolderError', 'CheckpointError', 'ResultFileError']);

/**
 * The kind of an error: a UsageError, or a BackendError whose name is no backend (the flag or
 * TINYAGENT_BACKEND), is usage; an InputError, a run folder, a checkpoint or a result file that
 * cannot be used, or a backend that cannot start, is input; anything else is a bug.
 */
export function errorKind(error: unknown): ErrorKind {
  if (error instanceof UsageError) return 'usage';
  if (error instanceof InputError) return 'input';
  if (!(error instanceof Error)) return 'internal';
  if (error.name === 'BackendError') return (error as Error & { unknownName?: unknown }).unknownName === true ? 'usage' : 'input';
  return INPUT_ERRORS.has(error.name) ? 'input' : 'internal';
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

/** Whether TINYAGENT_DEBUG=1 asks for the stack of an error. */
export function debugging(): boolean {
  return process.env['TINYAGENT_DEBUG'] === '1';
}
