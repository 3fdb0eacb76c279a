import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
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

/** The most bytes `readRegularFile` reads unless told otherwise: V8's longest string (2^29 - 24 characters). */
const MAX_READ_BYTES = 0x1fffffe8;

/** A file `openRegularFile` would not open or read: its path and what is wrong with it, for a caller that words its own error. */
export class FileRefusedError extends InputError {
  override name = 'FileRefusedError';

  constructor(
    readonly path: string,
    readonly problem: string,
    label: string | undefined,
  ) {
    const named = problem.startsWith('is ')
      ? `'${path}' ${problem}`
      : problem.replace(/^(no such file|cannot \w+)/, (start) => `${start} '${path}'`);
    super(label === undefined ? named : `${label}: ${named}`);
  }
}

/** Open a path only as itself: never through a symbolic link, never waiting on a FIFO's other end. */
const OPEN_ONLY_ITSELF = constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * A failed system call (ENOENT, ENOSPC, EROFS, ...), which the user fixes, as one InputError line
 * after `where`: `runs/x: ENOSPC: no space left on device, write`. Anything else is returned as it is.
 */
export function fileSystemError(error: unknown, where: string): unknown {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  if (error instanceof InputError || typeof code !== 'string' || typeof syscall !== 'string') return error;
  return new InputError(`${where}: ${(error as Error).message}`);
}

/** Runs `action`, a file system error it throws made one line (`fileSystemError`). */
export function explained<T>(where: string, action: () => T): T {
  try {
    return action();
  } catch (error) {
    throw fileSystemError(error, where);
  }
}

/** The JSON value of the file at `path`; unreadable or not JSON, an InputError naming `name`, `hint` after. */
export function readJsonFile(path: string, name = path, hint = ''): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(
      `${name}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})${hint}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputError(`${name}: not JSON (${(error as Error).message.split('\n')[0]})${hint}`);
  }
}

/** What is wrong with a path that could not be looked at or opened, in words, for a message that names the path itself. */
export function fileProblem(error: unknown, doing: 'read' | 'write' = 'read'): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'no such file';
  if (code === 'ELOOP') return 'is a symbolic link, not a regular file';
  if (code === 'ENXIO') return 'is a FIFO or device, not a regular file';
  if (code === 'EACCES' || code === 'EPERM') return `cannot ${doing}: permission denied`;
  // Node's message is `CODE: what, syscall 'path'`: the path is named already.
  const what = /^[A-Z]+: ([^,]+)/.exec((error as Error).message)?.[0];
  return `cannot ${doing} (${what ?? code ?? (error as Error).message})`;
}

/** Opens `path` as itself (OPEN_ONLY_ITSELF), refusing all but a regular file; the caller closes it. */
function openItself(path: string, flags: number, label?: string): { fd: number; stats: Stats } {
  let fd: number;
  try {
    fd = openSync(path, flags | OPEN_ONLY_ITSELF, 0o644);
  } catch (error) {
    throw new FileRefusedError(
      path,
      fileProblem(error, (flags & constants.O_WRONLY) === 0 ? 'read' : 'write'),
      label,
    );
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw new FileRefusedError(path, `is ${fileKind(stats)}, not a regular file`, label);
  }
  return { fd, stats };
}

/**
 * Opens a file we did not write for reading, the one way every such file is opened: a regular file
 * itself (lstat), of at most `maxBytes`, and the file opened the one looked at, so that a file
 * swapped for a link or a FIFO in between is neither followed nor waited on (a FIFO with no writer
 * blocks forever, a device can be endless). The caller closes it.
 */
export function openRegularFile(
  path: string,
  { label, maxBytes = Number.POSITIVE_INFINITY }: { label?: string; maxBytes?: number } = {},
): { fd: number; size: number } {
  let looked: Stats;
  try {
    looked = lstatSync(path);
  } catch (error) {
    throw new FileRefusedError(path, fileProblem(error), label);
  }
  if (!looked.isFile()) throw new FileRefusedError(path, `is ${fileKind(looked)}, not a regular file`, label);
  const { fd, stats } = openItself(path, constants.O_RDONLY, label);
  const refuse = (problem: string) => {
    closeSync(fd);
    return new FileRefusedError(path, problem, label);
  };
  if (stats.ino !== looked.ino || stats.dev !== looked.dev)
    throw refuse('is not the file it was a moment ago (replaced while opened)');
  if (stats.size > maxBytes) throw refuse(tooLarge(stats.size, maxBytes));
  return { fd, size: stats.size };
}

const tooLarge = (size: number, maxBytes: number) =>
  `is ${size} bytes, more than the ${maxBytes} such a file may hold`;

/** The bytes of a file we did not write (`openRegularFile`), at most `maxBytes`, even if it grows while read. */
export function readRegularBytes(
  path: string,
  { label, maxBytes = MAX_READ_BYTES }: { label?: string; maxBytes?: number } = {},
): Buffer {
  const { fd, size } = openRegularFile(path, label === undefined ? { maxBytes } : { label, maxBytes });
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    // One read of the size fstat gave, and one more byte to see whether the file grew.
    for (let room = size + 1; ; room = Math.min(1 << 20, maxBytes + 1 - total)) {
      const chunk = Buffer.allocUnsafe(Math.max(1, room));
      let read: number;
      try {
        read = readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        throw new FileRefusedError(path, fileProblem(error), label);
      }
      if (read === 0) break;
      total += read;
      if (total > maxBytes) throw new FileRefusedError(path, tooLarge(total, maxBytes), label);
      chunks.push(chunk.subarray(0, read));
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** A text file we did not write, as UTF-8 (`readRegularBytes`). */
export function readRegularFile(path: string, label?: string, { maxBytes = MAX_READ_BYTES } = {}): string {
  return readRegularBytes(path, label === undefined ? { maxBytes } : { label, maxBytes }).toString('utf8');
}

/** Hard-links `from` to `to` unless `to` exists (false then): atomic, so of two processes linking to one name only one wins. */
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
 * Whether `name`, a path relative to `root` in a folder others write to (a study folder on shared
 * storage), is a `want` inside `root`; false when a part is missing. An InputError when it leaves
 * `root` or any part is a link or not what it must be: nothing outside `root` is looked at.
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
      throw new FileRefusedError(path, fileProblem(error), undefined);
    }
    const wanted = i < parts.length - 1 || want === 'folder' ? stats.isDirectory() : stats.isFile();
    if (!wanted)
      throw new InputError(
        `'${path}' is ${fileKind(stats)}, not ${i < parts.length - 1 || want === 'folder' ? 'a folder' : 'a regular file'}; nothing in ${root} is followed out of it or opened unless it is one`,
      );
  }
  return true;
}

/** The regular file `root/name` of a folder others write to; missing: an InputError. */
export function readInside(root: string, name: string, { maxBytes }: { maxBytes: number }): Buffer {
  if (!existsInside(root, name, 'file')) throw new InputError(`no such file '${join(root, name)}'`);
  return readRegularBytes(join(root, name), { maxBytes });
}

/** Opens `root/name` for appending, creating it: never outside `root`, never a FIFO. */
export function openAppendInside(root: string, name: string): number {
  const folder = name.split('/').slice(0, -1).join('/');
  if (folder !== '') existsInside(root, folder, 'folder');
  existsInside(root, name, 'file');
  return openItself(join(root, name), constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT).fd;
}

/**
 * Makes a folder and every missing folder above it, one `mkdir` at a time: Node's recursive
 * `mkdirSync` never returns under /proc (procfs answers ENOENT for a folder that exists). A failed
 * `mkdir` throws its error for the caller to name the path; one made meanwhile by another process is fine.
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

/** What `action` returns, or undefined when it throws (a file gone or not what it must be). */
export function orUndefined<T>(action: () => T): T | undefined {
  try {
    return action();
  } catch {
    return undefined;
  }
}

/** Whether `path` is a folder (following links); false when there is nothing to look at. */
export const isFolder = (path: string): boolean => orUndefined(() => statSync(path).isDirectory()) ?? false;
