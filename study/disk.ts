import { closeSync, writeSync } from 'node:fs';
import { join, relative } from 'node:path';
import { writeFileAtomic } from '../lib/atomic.ts';
import { InputError } from '../lib/errors.ts';
import { existsInside, makeFolders, openAppendInside } from '../lib/files.ts';

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

/**
 * The folder `name` of a study (`jobs`, `claims`, `logs`, `failed`), made when absent: a link, a
 * file or a FIFO in its place is refused in one line (lib/files.ts `existsInside`), so nothing is
 * written outside the study folder. Returns its path.
 */
export function studyFolder(root: string, name: string): string {
  const path = join(root, name);
  try {
    if (!existsInside(root, name, 'folder')) makeFolders(path);
  } catch (error) {
    throw diskError(error, path);
  }
  return path;
}

/**
 * Appends to a log of the study folder (`path`, inside `root`), creating it: a link is never
 * followed and a FIFO never waited on (lib/files.ts `openAppendInside`). Returns the descriptor.
 */
export function openStudyLog(root: string, path: string): number {
  try {
    return openAppendInside(root, relative(root, path));
  } catch (error) {
    throw diskError(error, path);
  }
}

/** Writes all of `bytes` to `fd` (writeSync may write less than asked). */
export function writeAll(fd: number, bytes: Uint8Array): void {
  for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset);
}

/** Appends `chunk` to the log `path` of the study in `root`, never through a link (`openStudyLog`). */
export function appendStudyLog(root: string, path: string, chunk: Uint8Array | string): void {
  const fd = openStudyLog(root, path);
  try {
    writeAll(fd, typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  } finally {
    closeSync(fd);
  }
}
