import { closeSync, writeSync } from 'node:fs';
import { join, relative } from 'node:path';
import { existsInside, fileSystemError, makeFolders, openAppendInside } from '../lib/files.ts';

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
    throw fileSystemError(error, path);
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
    throw fileSystemError(error, path);
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
