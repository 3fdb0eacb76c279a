import { lstatSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { InputError } from './errors.ts';
import { fileSystemError, makeFolders } from './files.ts';
import { processAlive } from './processes.ts';
import { dirname, join, basename } from 'node:path';

let writeCounter = 0;

/** One file of a `writeFilesAtomic` batch. */
export interface FileWrite {
  path: string;
  content: string | Uint8Array;
}

/**
 * Writes a file atomically: the content goes to a temporary file in the same folder, which is
 * then renamed over the target, so a reader never sees a half-written file and an interrupted
 * write leaves the old file (or none) in place.
 */
export function writeFileAtomic(path: string, content: string | Uint8Array): void {
  writeFilesAtomic([{ path, content }]);
}

/**
 * Writes several files that belong together (a result's JSON, its Markdown, its figures): every
 * temporary is written first, and only when all of them are on disk are they renamed into place,
 * in the order given. A write that fails (a full disk) therefore changes none of the files, and
 * only a kill between two renames, which take no space and no time to speak of, can leave some
 * new beside some old. A failed write is an InputError naming the file and the reason (exit 1).
 */
export function writeFilesAtomic(files: readonly FileWrite[]): void {
  for (const { path } of files) refuseSpecialTarget(path);
  const temporaries: string[] = [];
  try {
    for (const { path, content } of files) {
      writeOrExplain(path, () => makeFolders(dirname(path)));
      // pid and a counter: two writers (processes, or calls within one) never share a temporary file.
      const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${(writeCounter += 1)}.tmp`);
      temporaries.push(temporary);
      writeOrExplain(path, () => writeFileSync(temporary, content));
    }
    files.forEach(({ path }, i) => writeOrExplain(path, () => renameSync(temporaries[i]!, path)));
  } finally {
    for (const temporary of temporaries) rmSync(temporary, { force: true });
  }
}

/** Runs a file system write; its failure (ENOSPC, EACCES, EROFS, ...) becomes one InputError line naming `path`. */
function writeOrExplain(path: string, write: () => void): void {
  try {
    write();
  } catch (error) {
    throw fileSystemError(error, `cannot write ${path}`);
  }
}

/**
 * Removes the temporaries of `writeFileAtomic` in `dir` that a process which is gone left
 * behind (a kill between writing and renaming). A live writer's temporaries are kept: another
 * process may be writing into the same folder. Returns the names removed.
 */
export function removeDeadTemporaries(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = /^\.[^/]+\.(\d+)\.\d+\.tmp$/.exec(name);
    if (match === null || processAlive(Number(match[1]))) continue;
    rmSync(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
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
    return; // nothing there yet (or a folder on the way is missing: makeFolders reports that)
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
