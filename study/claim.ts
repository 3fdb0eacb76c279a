import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { linkUnlessExists, readInside } from '../lib/files.ts';
import { holderAlive } from '../lib/processes.ts';
import { diskError, studyFolder } from './disk.ts';

/** Who holds a job's claim. */
export interface Holder {
  pid: number;
  host: string;
  since: string;
}

let counter = 0;
/** The largest lock read: ours are one line of about 80 bytes. */
const MAX_LOCK_BYTES = 4096;

function claimPath(studyDir: string, jobId: string): string {
  return join(studyDir, 'claims', `${jobId}.lock`);
}

/**
 * The holder of a job's claim, or undefined when it is unclaimed (or the lock is unreadable, which
 * a taker removes: a link, a FIFO or a file that is not a holder is never followed nor waited on).
 */
export function claimHolder(studyDir: string, jobId: string): Holder | undefined {
  try {
    const holder = JSON.parse(
      readInside(studyDir, `claims/${jobId}.lock`, { maxBytes: MAX_LOCK_BYTES }).toString('utf8'),
    ) as Holder;
    return typeof holder?.pid === 'number' &&
      typeof holder.host === 'string' &&
      typeof holder.since === 'string'
      ? holder
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a holder's process is alive (lib/processes.ts): by its pid on this host, always on another. */
export { holderAlive };

/**
 * Claims a job for this process: `claims/<id>.lock` is written whole under a temporary name and
 * hard-linked into place, which fails when the lock exists (atomic on local and NFS file
 * systems), so of two `study run` on one folder only one gets a job. A dead holder's lock is
 * first renamed aside: of two processes taking it over at once only one rename succeeds, and the
 * other finds the winner's lock. Returns the release function, or the live holder.
 */
export function claimJob(studyDir: string, jobId: string): { release: () => void } | { heldBy: Holder } {
  const dir = studyFolder(studyDir, 'claims');
  const path = claimPath(studyDir, jobId);
  const me: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const temporary = join(dir, `.${jobId}.${process.pid}.${(counter += 1)}.tmp`);
  try {
    // A full or read-only disk fails here or at the link: one line, and the finally removes the temporary.
    writeFileSync(temporary, `${JSON.stringify(me)}\n`);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (linkUnlessExists(temporary, path)) return { release: () => release(studyDir, jobId, me) };
      const holder = claimHolder(studyDir, jobId);
      if (holder !== undefined && holderAlive(holder)) return { heldBy: holder };
      const aside = `${temporary}.stale`;
      try {
        renameSync(path, aside);
        rmSync(aside, { force: true });
      } catch {
        // another process took the stale lock aside first; its own lock is found on the next try
      }
    }
    const holder = claimHolder(studyDir, jobId);
    return { heldBy: holder ?? { pid: -1, host: 'unknown', since: '' } };
  } catch (error) {
    throw diskError(error, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}

function release(studyDir: string, jobId: string, me: Holder): void {
  const current = claimHolder(studyDir, jobId);
  if (current?.pid !== me.pid || current.host !== me.host || current.since !== me.since) return;
  try {
    rmSync(claimPath(studyDir, jobId));
  } catch {
    // already gone
  }
}
