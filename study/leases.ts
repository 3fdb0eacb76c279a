import {
  type BigIntStats,
  closeSync,
  fstatSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { InputError } from '../lib/errors.ts';
import { explained, fileSystemError, linkUnlessExists, orUndefined, readInside } from '../lib/files.ts';
import { holderAlive } from '../lib/processes.ts';
import { printable } from '../lib/text.ts';
import { studyFolder } from './disk.ts';

/** Who holds a job's claim, as its lock says (renewals change only the lock's mtime); `host` escaped for terminals, `renewEvery` only shown. */
export interface Holder {
  pid: number;
  host: string;
  since: string;
  renewEvery?: number;
}

/** A claim as one look at its lock sees it: `renewed` is the lock's mtime by the holder's clock (only shown), `mark` what every renewal changes. */
interface Lease {
  holder: Holder;
  renewed: string;
  mark: string;
}

/** Seconds a lease may go unrenewed before it is stale (`--lease-timeout`). */
export const DEFAULT_LEASE_TIMEOUT = 60;
const RENEWALS_PER_TIMEOUT = 10;
/** Ours are about 100 bytes. */
const MAX_LOCK_BYTES = 4096;
export const LEASE_TIMEOUT_ENV = 'TINYAGENT_LEASE_TIMEOUT';
export const LEASE_TIMEOUT_RANGE = { min: 0.1, max: 86_400 };

let counter = 0;

export const claimPath = (studyDir: string, jobId: string) => join(studyDir, 'claims', `${jobId}.lock`);

/** One look at a job's lock, read through an open file (NFS revalidates it on open), so the mark read after it is fresh. */
export function readLease(
  studyDir: string,
  jobId: string,
): { lease: Lease } | { problem: string; mark: string } | undefined {
  const path = claimPath(studyDir, jobId);
  const mark = orUndefined(() => markOf(path));
  if (mark === undefined) return undefined;
  let holder: Holder;
  try {
    holder = JSON.parse(
      readInside(studyDir, `claims/${jobId}.lock`, { maxBytes: MAX_LOCK_BYTES }).toString('utf8'),
    ) as Holder;
    if (
      typeof holder?.pid !== 'number' ||
      typeof holder.host !== 'string' ||
      typeof holder.since !== 'string' ||
      (holder.renewEvery !== undefined && typeof holder.renewEvery !== 'number')
    )
      throw new SyntaxError();
  } catch (error) {
    const problem = error instanceof SyntaxError ? `'${path}' is not a lease` : (error as Error).message;
    return { problem: printable(problem), mark };
  }
  const stats = orUndefined(() => lstatSync(path, { bigint: true }));
  if (stats === undefined) return undefined;
  const renewed = new Date(Number(stats.mtimeMs));
  return {
    lease: {
      holder: { ...holder, host: printable(holder.host), since: printable(holder.since) },
      renewed: Number.isNaN(renewed.getTime()) ? String(stats.mtimeMs) : renewed.toISOString(),
      mark: markOf(path, stats),
    },
  };
}

/** What changes when a lock is renewed or replaced: its device, inode and mtime (lstat: a link is itself). */
function markOf(path: string, stats = lstatSync(path, { bigint: true })): string {
  return `${stats.dev}:${stats.ino}:${stats.mtimeNs}`;
}

function heldNow(studyDir: string, jobId: string, fallback: Held): Held {
  const read = readLease(studyDir, jobId);
  return read !== undefined && 'lease' in read
    ? { heldBy: read.lease.holder, renewed: read.lease.renewed }
    : fallback;
}

/** Watches leases for `timeout` seconds of this process's monotonic clock: no host's wall clock, so skew does not matter. */
async function watchLeases(
  studyDir: string,
  leases: ReadonlyMap<string, Lease>,
  timeout: number,
): Promise<Map<string, 'renewed' | 'stale' | 'gone'>> {
  const verdicts = new Map<string, 'renewed' | 'stale' | 'gone'>();
  const started = performance.now();
  const poll = Math.max(20, Math.min(1000, (timeout * 1000) / 20));
  for (;;) {
    const elapsed = (performance.now() - started) / 1000;
    for (const [jobId, lease] of leases) {
      if (verdicts.has(jobId)) continue;
      const now = readLease(studyDir, jobId);
      if (now === undefined || !('lease' in now)) verdicts.set(jobId, 'gone');
      else if (now.lease.mark !== lease.mark) verdicts.set(jobId, 'renewed');
      else if (elapsed >= timeout) verdicts.set(jobId, 'stale');
    }
    if (verdicts.size === leases.size) return verdicts;
    await new Promise((resolve) => setTimeout(resolve, poll));
  }
}

/** A claim this process holds: `held()` says whether it is still ours, `release()` gives it up. */
export type Claim = ReturnType<typeof holdLease>;

/** Why `claimJob` did not get a job: its live holder and the lease's last renewal. */
export interface Held {
  heldBy: Holder;
  renewed: string;
}

/**
 * Claims a job: `claims/<id>.lock` is written whole under a temporary name and hard-linked into
 * place, which fails when the lock exists (atomic on local and NFS file systems). The holder renews
 * its mtime from a thread of its own, so a busy job misses no renewal. A stale lock is renamed aside
 * and put back if what was moved is not the lease judged stale, so of two takers only one wins. A
 * lease of another host is judged only by its renewals (after a reboot a live pid may be another's).
 */
export async function claimJob(
  studyDir: string,
  jobId: string,
  { timeout, say = () => {} }: { timeout: number; say?: (line: string) => void },
): Promise<Claim | Held> {
  const dir = studyFolder(studyDir, 'claims');
  const path = claimPath(studyDir, jobId);
  const renewEvery = timeout / RENEWALS_PER_TIMEOUT;
  const me: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), renewEvery };
  const temporary = join(dir, `.${jobId}.${process.pid}.${(counter += 1)}.tmp`);
  let fd: number | undefined;
  try {
    // A full or read-only disk fails here or at the link: one line, and the finally removes the temporary.
    fd = openSync(temporary, 'wx');
    writeSync(fd, `${JSON.stringify(me)}\n`);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      if (linkOrExplain(temporary, path)) {
        const claim = holdLease(path, fd, renewEvery);
        fd = undefined;
        return claim;
      }
      const read = readLease(studyDir, jobId);
      if (read === undefined) continue;
      if ('lease' in read) {
        const { lease } = read;
        const alive = holderAlive(lease.holder);
        if (alive) {
          const verdict = (await watchLeases(studyDir, new Map([[jobId, lease]]), timeout)).get(jobId);
          if (verdict === 'renewed')
            return heldNow(studyDir, jobId, { heldBy: lease.holder, renewed: lease.renewed });
          if (verdict === 'gone') continue;
        }
        if (takeAside(path, temporary, lease.mark))
          say(
            `took over the claim ${path} of process ${lease.holder.pid} on ${lease.holder.host} (last renewed ${lease.renewed}): ${alive ? `not renewed for ${timeout} s` : 'that process is gone'}`,
          );
      } else if (takeAside(path, temporary, read.mark)) say(`took over the claim ${path}: ${read.problem}`);
    }
    return heldNow(studyDir, jobId, { heldBy: { pid: -1, host: 'unknown', since: '' }, renewed: '' });
  } catch (error) {
    throw fileSystemError(error, path);
  } finally {
    if (fd !== undefined) closeSync(fd);
    rmSync(temporary, { force: true });
  }
}

/** File systems without hard links (FAT, some FUSE and SMB mounts) fail a link with one of these. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/** Claims are taken only by a hard link: O_EXCL is not atomic on older NFS, and a lock is never seen half-written. */
function linkOrExplain(temporary: string, path: string): boolean {
  try {
    return linkUnlessExists(temporary, path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined || !NO_HARD_LINKS.has(code)) throw error;
    throw new InputError(
      `${path}: cannot hard-link a claim into place (${code}); claims need a file system with hard links (a local disk or NFS): move the study folder to one`,
    );
  }
}

/** Removes the lock at `path` if it is still the one judged stale (`mark`); one that changed meanwhile is linked back. */
function takeAside(path: string, temporary: string, mark: string): boolean {
  const aside = `${temporary}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return false; // another process took it aside first; its own lock is found on the next try
  }
  if (markOf(aside) !== mark) {
    try {
      linkSync(aside, path);
    } catch {
      // a third process linked its lock meanwhile: the one moved is lost, and its holder finds so
    }
    rmSync(aside, { force: true });
    return false;
  }
  // A folder in the lock's place is removed whole; a link is removed, not what it points at.
  rmSync(aside, { recursive: true, force: true });
  return true;
}

/** The renewal thread: every `everyMs`, the lock's mtime set to now through the open file; flag 1 set once `path` is another file. */
const HEARTBEAT = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { fd, path, ino, everyMs, flags } = workerData;
const state = new Int32Array(flags);
while (Atomics.load(state, 0) === 0) {
  Atomics.wait(state, 0, 0, everyMs);
  if (Atomics.load(state, 0) !== 0) break;
  const now = new Date();
  try { fs.futimesSync(fd, now, now); } catch {}
  let ours = false;
  try { ours = String(fs.lstatSync(path, { bigint: true }).ino) === ino; } catch {}
  if (!ours) { Atomics.store(state, 1, 1); break; }
}
`;

/** Renews the lease whose lock `fd` is open at `path` from a thread until released. */
function holdLease(path: string, fd: number, renewEvery: number) {
  const own = fstatSync(fd, { bigint: true });
  const flags = new SharedArrayBuffer(8);
  const state = new Int32Array(flags);
  const heartbeat = new Worker(HEARTBEAT, {
    eval: true,
    workerData: { fd, path, ino: String(own.ino), everyMs: renewEvery * 1000, flags },
  });
  heartbeat.unref();
  heartbeat.on('error', () => Atomics.store(state, 1, 1));
  const sameFile = (stats: BigIntStats | undefined) =>
    stats !== undefined && stats.ino === own.ino && stats.dev === own.dev;
  let released = false;
  return {
    held: () =>
      !released &&
      Atomics.load(state, 1) === 0 &&
      sameFile(orUndefined(() => lstatSync(path, { bigint: true }))),
    release: () => {
      if (released) return;
      released = true;
      Atomics.store(state, 0, 1);
      Atomics.notify(state, 0);
      void heartbeat.terminate();
      // Moved aside first, so that a lock another process linked after a takeover is never removed.
      const aside = `${path}.${process.pid}.${(counter += 1)}.release`;
      try {
        renameSync(path, aside);
        if (!sameFile(lstatSync(aside, { bigint: true }))) linkSync(aside, path);
        rmSync(aside, { force: true });
      } catch {
        // already gone, or taken over and relinked by its new holder
      }
      closeSync(fd);
    },
  };
}

/** One claim as `study unlock` found and left it (`index` undefined: a lock of no job of the plan; `problem`: why it names no holder). */
export interface UnlockRow {
  jobId: string;
  index: number | undefined;
  holder: Holder | undefined;
  renewed: string | undefined;
  problem: string | undefined;
  verdict: 'stale' | 'live' | 'gone';
  removed: boolean;
}

/** Every claim of a study folder, judged as `claimJob` judges it, the stale ones removed (with `force`, the live ones too). */
export async function unlockClaims(
  studyDir: string,
  jobIds: readonly string[],
  {
    timeout,
    force = false,
    say = () => {},
  }: { timeout: number; force?: boolean; say?: (line: string) => void },
): Promise<UnlockRow[]> {
  const dir = studyFolder(studyDir, 'claims');
  const names = readdirSync(dir)
    .filter((name) => name.endsWith('.lock') && !name.startsWith('.'))
    .map((name) => name.slice(0, -'.lock'.length))
    .sort();
  const indexOf = new Map(jobIds.map((id, index) => [id, index]));
  const rows: UnlockRow[] = [];
  const marks = new Map<string, string>();
  const toWatch = new Map<string, Lease>();
  for (const jobId of names) {
    const read = readLease(studyDir, jobId);
    if (read === undefined) continue;
    const lease = 'lease' in read ? read.lease : undefined;
    rows.push({
      jobId,
      index: indexOf.get(jobId),
      holder: lease?.holder,
      renewed: lease?.renewed,
      problem: 'problem' in read ? read.problem : undefined,
      verdict: 'stale',
      removed: false,
    });
    marks.set(jobId, lease?.mark ?? (read as { mark: string }).mark);
    if (lease !== undefined && holderAlive(lease.holder)) toWatch.set(jobId, lease);
  }
  if (toWatch.size > 0) {
    say(`watching ${toWatch.size} claims for up to ${timeout} s for a renewal`);
    const verdicts = await watchLeases(studyDir, toWatch, timeout);
    for (const row of rows) {
      const verdict = verdicts.get(row.jobId);
      if (verdict !== undefined) row.verdict = verdict === 'renewed' ? 'live' : verdict;
    }
  }
  for (const row of rows) {
    if (row.verdict === 'gone' || (row.verdict === 'live' && !force)) continue;
    const path = claimPath(studyDir, row.jobId);
    if (row.verdict === 'live')
      say(
        `warning: removing the claim ${path} of process ${row.holder?.pid} on ${row.holder?.host}, which looks alive (--force): if it still runs, it discards its output when it ends (exit 75)`,
      );
    // A live one is removed as it is now: its renewals changed its mark.
    const mark = row.verdict === 'live' ? orUndefined(() => markOf(path)) : marks.get(row.jobId);
    if (mark === undefined) continue;
    const temporary = join(dir, `.${row.jobId}.${process.pid}.${(counter += 1)}.unlock`);
    row.removed = explained(path, () => takeAside(path, temporary, mark));
  }
  return rows;
}
