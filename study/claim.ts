import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { linkUnlessExists } from '../lib/files.ts';
import { holderAlive } from '../lib/processes.ts';

/** Who holds a job's claim. */
export interface Holder {
  pid: number;
  host: string;
  since: string;
}

let counter = 0;

function claimPath(studyDir: string, jobId: string): string {
  return join(studyDir, 'claims', `${jobId}.lock`);
}

/** The holder of a job's claim, or undefined when it is unclaimed (or the lock is unreadable, which a taker removes). */
export function claimHolder(studyDir: string, jobId: string): Holder | undefined {
  try {
    const holder = JSON.parse(readFileSync(claimPath(studyDir, jobId), 'utf8')) as Holder;
    return typeof holder?.pid === 'number' && typeof holder.host === 'string' ? holder : undefined;
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
  const dir = join(studyDir, 'claims');
  mkdirSync(dir, { recursive: true });
  const path = claimPath(studyDir, jobId);
  const me: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const temporary = join(dir, `.${jobId}.${process.pid}.${(counter += 1)}.tmp`);
  writeFileSync(temporary, `${JSON.stringify(me)}\n`);
  try {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (linkUnlessExists(temporary, path)) return { release: () => release(path, me) };
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
  } finally {
    rmSync(temporary, { force: true });
  }
}

function release(path: string, me: Holder): void {
  try {
    const current = JSON.parse(readFileSync(path, 'utf8')) as Holder;
    if (current.pid === me.pid && current.host === me.host && current.since === me.since) rmSync(path);
  } catch {
    // already gone
  }
}
