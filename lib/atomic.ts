import { lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { InputError } from './errors.ts';
import { dirname, join, basename } from 'node:path';

/**
 * Writes a file atomically: the content goes to a temporary file in the same folder, which is
 * then renamed over the target, so a reader never sees a half-written file and an interrupted
 * write leaves the old file (or none) in place.
 */
let writeCounter = 0;

export function writeFileAtomic(path: string, content: string | Uint8Array): void {
  refuseSpecialTarget(path);
  mkdirSync(dirname(path), { recursive: true });
  // pid and a counter: two writers (processes, or calls within one) never share a temporary file.
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${(writeCounter += 1)}.tmp`);
  try {
    writeFileSync(temporary, content);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Writes `value` as pretty JSON with a trailing newline, atomically. */
export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Refuses to write over anything but a regular file (or nothing): a rename would silently
 * replace a FIFO, a device or a symlink with a regular file, and writing through them instead
 * could block (a FIFO with no reader) or land outside the folder the user named.
 */
export function refuseSpecialTarget(path: string, what = path): void {
  let stats;
  try {
    stats = lstatSync(path);
  } catch {
    return; // nothing there yet (or a folder on the way is missing: mkdirSync reports that)
  }
  if (stats.isFile()) return;
  const kind = stats.isSymbolicLink()
    ? 'a symbolic link'
    : stats.isFIFO()
      ? 'a FIFO'
      : stats.isDirectory()
        ? 'a folder'
        : 'not a regular file';
  throw new InputError(
    `${what === path ? path : `${what}: '${path}'`} is ${kind}; give the path of a regular file (or of none yet)`,
  );
}
