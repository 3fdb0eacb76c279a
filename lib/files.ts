import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  type Stats,
} from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { InputError } from './errors.ts';

/** What a path that is not a regular file is, for a message: `a FIFO`, `a folder`, ... */
export function fileKind(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * Reads a text file that must be a regular file (a symlink to one is fine). Anything else is
 * refused before it is opened, since opening a FIFO with no writer blocks forever and a device
 * can be endless. Errors are InputErrors: `label: 'path' is a FIFO, not a regular file`, `label:
 * no such file 'path'`, `label: cannot read 'path' (ELOOP)`.
 */
export function readRegularFile(path: string, label: string): string {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw unreadable(path, label, error);
  }
  if (!stats.isFile()) throw new InputError(`${label}: '${path}' is ${fileKind(stats)}, not a regular file`);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw unreadable(path, label, error);
  }
}

function unreadable(path: string, label: string, error: unknown): InputError {
  const code = (error as NodeJS.ErrnoException).code;
  return new InputError(
    code === 'ENOENT'
      ? `${label}: no such file '${path}'`
      : `${label}: cannot read '${path}' (${code ?? (error as Error).message})`,
  );
}

/**
 * Hard-links `from` to `to` unless `to` exists: true when the link was made, false when `to` was
 * there. Atomic on local file systems, so of two processes linking to one name only one wins: the
 * run lock and the seed study's job claims are taken this way, from a file written whole first.
 */
export function linkUnlessExists(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Whether `name`, a path relative to `root` in a folder that others write to (a study folder on
 * shared storage), is a `want` inside `root`: refused (an InputError naming the path and what is
 * wrong) when it is absolute, has a `.`, `..` or empty part, or when any part of it is a symbolic
 * link or is not what it must be (each part before the last a folder, the last a `want`). lstat
 * never follows a link, so nothing outside `root` is looked at. Returns false when a part is missing.
 */
export function existsInside(root: string, name: string, want: 'file' | 'folder'): boolean {
  const parts = name.split('/');
  if (isAbsolute(name) || parts.some((part) => part === '' || part === '.' || part === '..'))
    throw new InputError(`'${join(root, name)}': the path '${name}' leaves the folder ${root}`);
  let path = root;
  for (const [i, part] of parts.entries()) {
    path = join(path, part);
    let stats: Stats;
    try {
      stats = lstatSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw unreadable(path, path, error);
    }
    const wanted = i < parts.length - 1 || want === 'folder' ? stats.isDirectory() : stats.isFile();
    if (!wanted)
      throw new InputError(
        `'${path}' is ${fileKind(stats)}, not ${i < parts.length - 1 || want === 'folder' ? 'a folder' : 'a regular file'}; nothing in ${root} is followed out of it or opened unless it is one`,
      );
  }
  return true;
}

/** The flags that open a path only as itself: never through a symbolic link, never waiting on a FIFO's other end. */
const OPEN_ONLY_ITSELF = constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Opens `root/name` (checked by `existsInside`) with O_NOFOLLOW | O_NONBLOCK and checks the open
 * file again with fstat, so that a file swapped for a link or a FIFO between the check and the
 * open is neither followed nor waited on. Returns the descriptor; the caller closes it.
 */
function openInside(root: string, name: string, flags: number): number {
  const path = join(root, name);
  let fd: number;
  try {
    fd = openSync(path, flags | OPEN_ONLY_ITSELF, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(
      code === 'ELOOP'
        ? `'${path}' is a symbolic link, not followed`
        : code === 'ENXIO'
          ? `'${path}' is a FIFO or device, not a regular file`
          : `cannot open '${path}': ${(error as Error).message}`,
    );
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw new InputError(`'${path}' is ${fileKind(stats)}, not a regular file`);
  }
  return fd;
}

/**
 * Reads the regular file `root/name` of a folder others write to (see `existsInside`), at most
 * `maxBytes` of it: a missing file, one outside `root`, a link, a FIFO, a device or a larger file
 * is an InputError naming the path. Opening a FIFO with no writer blocks forever and a device
 * can be endless, so neither is ever opened for reading.
 */
export function readInside(
  root: string,
  name: string,
  { maxBytes = Number.POSITIVE_INFINITY }: { maxBytes?: number } = {},
): Buffer {
  if (!existsInside(root, name, 'file')) throw new InputError(`no such file '${join(root, name)}'`);
  const fd = openInside(root, name, constants.O_RDONLY);
  try {
    const { size } = fstatSync(fd);
    if (size > maxBytes)
      throw new InputError(
        `'${join(root, name)}' is ${size} bytes, more than the ${maxBytes} such a file holds`,
      );
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens the file `root/name` for appending, creating it if absent (see `existsInside`): a link
 * is not followed and a FIFO or device is refused (an InputError), so that appending to a log
 * never writes to a file outside `root` nor waits on a FIFO's reader. Returns the descriptor.
 */
export function openAppendInside(root: string, name: string): number {
  const folder = name.split('/').slice(0, -1).join('/');
  if (folder !== '') existsInside(root, folder, 'folder');
  existsInside(root, name, 'file');
  return openInside(root, name, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
}

/**
 * Makes a folder and every missing folder above it, one `mkdir` at a time. Node's own
 * `mkdirSync(path, { recursive: true })` never returns under /proc (procfs answers ENOENT for a
 * folder that exists, and Node retries its parent for ever); here a `mkdir` that fails throws its
 * error (ENOENT, EACCES, ENOTDIR, ...) for the caller to name the path. A folder made meanwhile
 * by another process is fine.
 */
export function makeFolders(path: string): void {
  const missing: string[] = [];
  for (let folder = resolve(path); ; folder = dirname(folder)) {
    let stats: Stats | undefined;
    try {
      stats = statSync(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (stats !== undefined) {
      // A file in the place of a folder: the mkdir of the folder below it says ENOTDIR, or of itself EEXIST.
      if (!stats.isDirectory() && missing.length === 0) mkdirSync(folder);
      break;
    }
    missing.push(folder);
    if (dirname(folder) === folder) break;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(folder).isDirectory()) throw error;
    }
  }
}
