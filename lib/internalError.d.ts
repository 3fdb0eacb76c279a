// The types of lib/internalError.js, for the TypeScript that shares its handlers (experiments/common.ts).
export function installInternalErrorHandler(
  command: string,
  before?: (error: unknown) => void,
): (error: unknown) => never;
export function outputFailed(label: string): (error: NodeJS.ErrnoException) => never;
export function isOutputError(error: unknown): error is NodeJS.ErrnoException;
