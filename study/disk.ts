import { writeFileAtomic } from '../lib/atomic.ts';
import { InputError } from '../lib/errors.ts';

/** File-system faults the user fixes (a full disk, a quota, a read-only or missing share): one line, exit 1. */
const ENVIRONMENT_CODES = new Set([
  'ENOSPC',
  'EDQUOT',
  'EROFS',
  'EACCES',
  'EPERM',
  'ENOENT',
  'ENOTDIR',
  'EIO',
]);

/** An error of the file system as an InputError naming the path, else the error itself. */
export function diskError(error: unknown, path: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (error instanceof InputError || code === undefined || !ENVIRONMENT_CODES.has(code)) return error;
  return new InputError(`${path}: ${(error as Error).message}`);
}

/** `writeFileAtomic` with a full disk (or a read-only share) reported as one line, exit 1; nothing half-written is left. */
export function writeStudyFile(path: string, content: string | Uint8Array): void {
  try {
    writeFileAtomic(path, content);
  } catch (error) {
    throw diskError(error, path);
  }
}
