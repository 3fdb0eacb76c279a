import { readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../lib/errors.ts';
import { linkUnlessExists, makeFolders, orUndefined } from '../lib/files.ts';
import { holderAlive } from '../lib/processes.ts';

/**
 * A run folder that cannot be used as asked: held by another training, holding another run's
 * config, or unreadable. The message names the folder and what to do; the CLI exits with 1.
 */
export class RunFolderError extends InputError {
  override name = 'RunFolderError';
}

/** The lock file inside a run folder while a training writes to it. */
export const LOCK_FILE = '.lock';

interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

let lockCounter = 0;

/**
 * Takes the run folder's lock: `<runDir>/.lock` holds the pid, host and start time of the one
 * training that may write there. Returns the function that releases it.
 *
 * The lock file is written whole under a temporary name and hard-linked into place, which
 * fails if the lock exists (atomic on local file systems), so a reader never sees a half-written
 * lock. A lock whose process is gone (same host, no such pid) is stale and taken over; a lock
 * of a live process, of another host, or of this very process is refused with a RunFolderError.
 * Two processes taking over the same stale lock at the same instant may both succeed: the lock
 * guards against a second run started by hand, not against that race.
 */
export function acquireRunLock(runDir: string): () => void {
  makeFolders(runDir);
  const path = join(runDir, LOCK_FILE);
  const holder: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const temporary = join(runDir, `${LOCK_FILE}.${process.pid}.${(lockCounter += 1)}.tmp`);
  writeFileSync(temporary, `${JSON.stringify(holder)}\n`);
  try {
    if (!linkUnlessExists(temporary, path)) {
      const current = readHolder(path);
      if (current !== undefined && holderAlive(current))
        throw new RunFolderError(inUseMessage(runDir, current));
      // Stale (its process is gone) or unreadable: take it over.
      rmSync(path, { force: true });
      if (!linkUnlessExists(temporary, path)) {
        const winner = readHolder(path);
        throw new RunFolderError(
          winner !== undefined ? inUseMessage(runDir, winner) : `${runDir} is locked by ${path}; retry`,
        );
      }
    }
  } finally {
    rmSync(temporary, { force: true });
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // Remove the lock only if it is still ours (a stale-lock takeover may have replaced it).
    const current = readHolder(path);
    if (
      current !== undefined &&
      current.pid === holder.pid &&
      current.host === holder.host &&
      current.since === holder.since
    )
      orUndefined(() => unlinkSync(path)); // fails only when already gone
  };
}

/**
 * Refuses, with a RunFolderError, a run folder that a live training holds; does not take the
 * lock. Lets a command fail before it writes anything into the folder.
 */
export function assertRunFolderFree(runDir: string): void {
  const current = readHolder(join(runDir, LOCK_FILE));
  if (current !== undefined && holderAlive(current)) throw new RunFolderError(inUseMessage(runDir, current));
}

/**
 * Removes what an interrupted checkpoint or file write left in the run folder: the temporary
 * `.step-N.<pid>.<time>.tmp` folders (and their `.tmp.old` asides) of `saveCheckpoint` and the
 * `.<file>.<pid>[.<n>].tmp` files of `writeFileAtomic`. Call it holding the lock. Returns the names.
 */
export function removeStaleTemporaries(runDir: string): string[] {
  const stale = (orUndefined(() => readdirSync(runDir)) ?? []).filter(
    (name) =>
      /^\.step-\d+\.\d+\.\d+\.tmp(\.old)?$/.test(name) ||
      (/^\.[^/]+\.\d+(\.\d+)?\.tmp$/.test(name) && !name.startsWith(`${LOCK_FILE}.`)),
  );
  for (const name of stale) rmSync(join(runDir, name), { recursive: true, force: true });
  return stale;
}

/** The lock's holder; undefined when there is no lock or it is unreadable (treated as stale). */
function readHolder(path: string): LockHolder | undefined {
  const value = orUndefined(() => JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder> | null);
  if (Number.isSafeInteger(value?.pid) && typeof value?.host === 'string' && typeof value.since === 'string')
    return value as LockHolder;
  return undefined;
}

function inUseMessage(runDir: string, holder: LockHolder): string {
  const who =
    holder.pid === process.pid && holder.host === hostname()
      ? 'this process'
      : `pid ${holder.pid} on ${holder.host}`;
  return (
    `${runDir} is in use by another training (${who}, since ${holder.since}); wait for it to end, or choose another folder (train's --name, an experiment's --run) ` +
    `(if no such training runs, delete ${join(runDir, LOCK_FILE)})`
  );
}
