import { linkSync, readFileSync, statSync, type Stats } from 'node:fs';
import { InputError } from './errors.ts';

/** What a path that is not a regular file is, for a message: `a FIFO`, `a folder`, ... */
export function fileKind(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a folder';
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
