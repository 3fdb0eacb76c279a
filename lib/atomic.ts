import { lstatSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { InputError } from './errors.ts';
import { explained, fileKind, makeFolders, orUndefined } from './files.ts';
import { processAlive } from './processes.ts';
import { dirname, join, basename } from 'node:path';

let writeCounter = 0;

/**
 * Writes a file atomically: to a temporary file in the same folder, renamed over the target, so a
 * reader never sees a half-written file and an interrupted write leaves the old file (or none).
 */
export function writeFileAtomic(path: string, content: string | Uint8Array): void {
  writeFilesAtomic([{ path, content }]);
}

/**
 * Writes several files that belong together: every temporary first, then the renames, in the order
 * given. A failed write (a full disk) changes none of the files; only a kill between two renames
 * can leave some new beside some old.
 */
export function writeFilesAtomic(files: ReadonlyArray<{ path: string; content: string | Uint8Array }>): void {
  for (const { path } of files) refuseSpecialTarget(path);
  const temporaries: string[] = [];
  const cannot = (path: string) => `cannot write ${path}`;
  try {
    for (const { path, content } of files) {
      explained(cannot(path), () => makeFolders(dirname(path)));
      // pid and a counter: two writers (processes, or calls within one) never share a temporary file.
      const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${(writeCounter += 1)}.tmp`);
      temporaries.push(temporary);
      explained(cannot(path), () => writeFileSync(temporary, content));
    }
    files.forEach(({ path }, i) => explained(cannot(path), () => renameSync(temporaries[i]!, path)));
  } finally {
    for (const temporary of temporaries) rmSync(temporary, { force: true });
  }
}

/** Removes the temporaries of `writeFileAtomic` in `dir` left by a process that is gone (a live writer may be writing there). */
export function removeDeadTemporaries(dir: string): string[] {
  const removed: string[] = [];
  for (const name of orUndefined(() => readdirSync(dir)) ?? []) {
    const match = /^\.[^/]+\.(\d+)\.\d+\.tmp$/.exec(name);
    if (match === null || processAlive(Number(match[1]))) continue;
    rmSync(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Refuses to write over anything but a regular file (or nothing): a rename would silently replace
 * a FIFO, a device or a symlink, and writing through them could block (a FIFO with no reader) or
 * land outside the folder the user named.
 */
export function refuseSpecialTarget(path: string, what = path): void {
  const stats = orUndefined(() => lstatSync(path));
  // Nothing there yet (or a folder on the way is missing: makeFolders reports that), or a regular file.
  if (stats === undefined || stats.isFile()) return;
  const device = stats.isSocket() || stats.isCharacterDevice() || stats.isBlockDevice();
  throw new InputError(
    `${what === path ? path : `${what}: '${path}'`} is ${device ? 'not a regular file' : fileKind(stats)}; give the path of a regular file (or of none yet)`,
  );
}
