import {
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
import { fileSystemError, linkUnlessExists, readInside } from '../lib/files.ts';
import { holderAlive } from '../lib/processes.ts';
import { printable } from '../lib/text.ts';
import { studyFolder } from './disk.ts';

/** Who holds a job's claim: written once when the claim is taken; renewals change only the lock's mtime. */
export interface Holder {
  pid: number;
  /** As the lock gives it, control characters escaped (`printable`): it is shown on terminals. */
  host: string;
  since: string;
  /** Seconds between the holder's renewals (absent in locks of older versions): only shown, never trusted. */
  renewEvery?: number;
}

/** A claim as one look at its lock sees it. */
export interface Lease {
  holder: Holder;
  /** The lock's mtime as the holder last set it, by the holder's clock (only shown, never compared with ours). */
  renewed: string;
  /** What changes with every renewal: the lock's inode and mtime. */
  mark: string;
}

/** Seconds a lease may go unrenewed, as this process watches it, before it is stale (`--lease-timeout`). */
export const DEFAULT_LEASE_TIMEOUT = 60;
/** A holder renews its lease this many times per timeout. */
const RENEWALS_PER_TIMEOUT = 10;
/** The largest lock read: ours are one line of about 100 bytes. */
const MAX_LOCK_BYTES = 4096;
export const LEASE_TIMEOUT_ENV = 'TINYAGENT_LEASE_TIMEOUT';
export const LEASE_TIMEOUT_RANGE = { min: 0.1, max: 86_400 };

let counter = 0;

const claimPath = (studyDir: string, jobId: string) => join(studyDir, 'claims', `${jobId}.lock`);

/**
 * One look at a job's lock: its lease, or why it names no holder (a link, a FIFO, a file that is
 * too large or not a holder: `problem`), or undefined when there is no lock. The content is read
 * through an open file (which NFS revalidates: close-to-open), so the mark read after it is fresh.
 */
export function readLease(
  studyDir: string,
  jobId: string,
): { lease: Lease } | { problem: string; mark: string } | undefined {
  const path = claimPath(studyDir, jobId);
  let mark: string;
  try {
    mark = markOf(path);
  } catch {
    return undefined;
  }
  let holder: Holder;
  try {
    holder = JSON.parse(
      readInside(studyDir, `claims/${jobId}.lock`, { maxBytes: MAX_LOCK_BYTES }).toString('utf8'),
    ) as Holder;
  } catch (error) {
    return {
      problem: printable(
        error instanceof SyntaxError ? `'${path}' is not a lease` : (error as Error).message,
      ),
      mark,
    };
  }
  if (
    typeof holder?.pid !== 'number' ||
    typeof holder.host !== 'string' ||
    typeof holder.since !== 'string' ||
    (holder.renewEvery !== undefined && typeof holder.renewEvery !== 'number')
  )
    return { problem: printable(`'${path}' is not a lease`), mark };
  try {
    const stats = lstatSync(path, { bigint: true });
    const renewed = new Date(Number(stats.mtimeMs));
    return {
      lease: {
        holder: { ...holder, host: printable(holder.host), since: printable(holder.since) },
        renewed: Number.isNaN(renewed.getTime()) ? String(stats.mtimeMs) : renewed.toISOString(),
        mark: `${stats.dev}:${stats.ino}:${stats.mtimeNs}`,
      },
    };
  } catch {
    return undefined;
  }
}

/** What changes when a lock is renewed or replaced: its device, inode and mtime (lstat: a link is itself). */
function markOf(path: string): string {
  const stats = lstatSync(path, { bigint: true });
  return `${stats.dev}:${stats.ino}:${stats.mtimeNs}`;
}

/**
 * What one look can tell of a lease: stale at once when it names this host and its pid is gone;
 * otherwise only watching its renewals tells (`watchLeases`). A live pid of this host is no
 * proof: after a reboot a crashed job's pid may belong to another process, which never renews.
 */
export function leaseAtOnce(lease: Lease): 'stale' | 'watch' {
  return holderAlive(lease.holder) ? 'watch' : 'stale';
}

/**
 * Watches leases for `timeout` seconds of this process's monotonic clock (never any host's wall
 * clock, so skew between nodes does not matter): a lease whose mark (inode, mtime) changes was
 * renewed; one that is unchanged for the timeout is stale, whatever its lock says (its
 * `renewEvery` is the holder's word, not a bound); one whose lock went away is gone. Returns a
 * verdict per job as soon as every lease has one.
 */
export async function watchLeases(
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
export interface Claim {
  held: () => boolean;
  release: () => void;
}

/** Why `claimJob` did not get a job: its live holder and the lease's last renewal. */
export interface Held {
  heldBy: Holder;
  renewed: string;
}

/**
 * Claims a job for this process: `claims/<id>.lock` is written whole under a temporary name and
 * hard-linked into place, which fails when the lock exists (atomic on local and NFS file
 * systems), so of two `study run` on one folder only one gets a job. The holder keeps the lock
 * open and renews it (its mtime, from a thread of its own, so a busy job does not miss a
 * renewal) every timeout/10 seconds. A lock is taken over when it is stale: at once when it names
 * no holder or its holder's pid on this host is gone, else (another host's, or a live pid of this
 * host) after watching it go unrenewed for the timeout (`watchLeases`). It is renamed aside
 * first, and put back if what was moved is not the lease judged stale, so of two takers only one
 * wins. Returns the claim, or the live holder.
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
        const now = leaseAtOnce(lease);
        if (now === 'watch') {
          const verdict = (await watchLeases(studyDir, new Map([[jobId, lease]]), timeout)).get(jobId);
          if (verdict === 'renewed') {
            const renewed = readLease(studyDir, jobId);
            return renewed !== undefined && 'lease' in renewed
              ? { heldBy: renewed.lease.holder, renewed: renewed.lease.renewed }
              : { heldBy: lease.holder, renewed: lease.renewed };
          }
          if (verdict === 'gone') continue;
        }
        if (takeAside(path, temporary, lease.mark))
          say(
            `took over the claim ${path} of process ${lease.holder.pid} on ${lease.holder.host} (last renewed ${lease.renewed}): ${now === 'stale' ? 'that process is gone' : `not renewed for ${timeout} s`}`,
          );
      } else if (takeAside(path, temporary, read.mark)) say(`took over the claim ${path}: ${read.problem}`);
    }
    const read = readLease(studyDir, jobId);
    return read !== undefined && 'lease' in read
      ? { heldBy: read.lease.holder, renewed: read.lease.renewed }
      : { heldBy: { pid: -1, host: 'unknown', since: '' }, renewed: '' };
  } catch (error) {
    throw fileSystemError(error, path);
  } finally {
    if (fd !== undefined) closeSync(fd);
    rmSync(temporary, { force: true });
  }
}

/** File systems without hard links (FAT, some FUSE and SMB mounts) fail a link with one of these. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * `linkUnlessExists`, with a file system that has no hard links named as the problem: claims
 * are taken only by a hard link (no O_EXCL fallback: O_EXCL is not atomic on older NFS, and a
 * lock must never be seen half-written), so such a study folder is refused in one line.
 */
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

/**
 * Moves the lock at `path` aside and removes it, if it is still the one judged stale (`mark`: a
 * link or a FIFO is moved as itself, never opened). A lock that changed meanwhile (renewed, or
 * another taker's new lock) is linked back into place.
 */
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

/** The code of the renewal thread: every `everyMs`, the lock's mtime is set to now (through the open file) and `lost` set once the lock at `path` is another file. */
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

/** Holds the lease whose lock `fd` is open at `path`: renews it from a thread until released. */
function holdLease(path: string, fd: number, renewEvery: number): Claim {
  const own = fstatSync(fd, { bigint: true });
  const flags = new SharedArrayBuffer(8);
  const state = new Int32Array(flags);
  const heartbeat = new Worker(HEARTBEAT, {
    eval: true,
    workerData: { fd, path, ino: String(own.ino), everyMs: renewEvery * 1000, flags },
  });
  heartbeat.unref();
  heartbeat.on('error', () => Atomics.store(state, 1, 1));
  const isOurs = () => {
    try {
      const stats = lstatSync(path, { bigint: true });
      return stats.ino === own.ino && stats.dev === own.dev;
    } catch {
      return false;
    }
  };
  let released = false;
  return {
    held: () => !released && Atomics.load(state, 1) === 0 && isOurs(),
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
        const stats = lstatSync(aside, { bigint: true });
        if (stats.ino !== own.ino || stats.dev !== own.dev) linkSync(aside, path);
        rmSync(aside, { force: true });
      } catch {
        // already gone, or taken over and relinked by its new holder
      }
      closeSync(fd);
    },
  };
}

/** One claim as `study unlock` found and left it. */
export interface UnlockRow {
  jobId: string;
  /** The job's index in the plan (undefined: a lock of no job of the plan). */
  index: number | undefined;
  holder: Holder | undefined;
  renewed: string | undefined;
  /** Why the lock names no holder. */
  problem: string | undefined;
  /** stale: its holder's pid here is gone, it names none, or it went unrenewed for the timeout; live: it was renewed; gone: released meanwhile. */
  verdict: 'stale' | 'live' | 'gone';
  removed: boolean;
}

/**
 * Every claim of a study folder, judged as `claimJob` judges it (all but a dead pid's of this host
 * by watching its renewals for the timeout), and the stale ones removed (with `force`, the live-looking ones too,
 * each with a warning through `say`). `jobIds` are the plan's, in index order.
 */
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
    const row: UnlockRow = {
      jobId,
      index: indexOf.get(jobId),
      holder: 'lease' in read ? read.lease.holder : undefined,
      renewed: 'lease' in read ? read.lease.renewed : undefined,
      problem: 'lease' in read ? undefined : read.problem,
      verdict: 'stale',
      removed: false,
    };
    marks.set(jobId, 'lease' in read ? read.lease.mark : read.mark);
    if ('lease' in read && leaseAtOnce(read.lease) === 'watch') toWatch.set(jobId, read.lease);
    rows.push(row);
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
    let mark = marks.get(row.jobId)!;
    if (row.verdict === 'live') {
      say(
        `warning: removing the claim ${path} of process ${row.holder?.pid} on ${row.holder?.host}, which looks alive (--force): if it still runs, it discards its output when it ends (exit 75)`,
      );
      try {
        mark = markOf(path);
      } catch {
        continue;
      }
    }
    try {
      row.removed = takeAside(path, join(dir, `.${row.jobId}.${process.pid}.${(counter += 1)}.unlock`), mark);
    } catch (error) {
      throw fileSystemError(error, path);
    }
  }
  return rows;
}
