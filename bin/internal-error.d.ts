// The types of bin/internal-error.js, for the TypeScript that shares its handlers (experiments/common.ts).
export function installInternalErrorHandler(
  command: string,
  before?: (error: unknown) => void,
): (error: unknown) => never;
export function outputFailed(label: string): (error: NodeJS.ErrnoException) => never;
export function isOutputError(error: unknown): error is NodeJS.ErrnoException;
