import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  readdirSync,
  renameSync,
  rmSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { claimJob, readLease, unlockClaims, type Claim, type Held } from '../study/leases.ts';
import { jobState, type Plan } from '../study/index.ts';
import { jobDir, jobFingerprint } from '../study/output.ts';
import { fingerprintDifferences, isFingerprint } from '../agent/index.ts';
import { sourcesSha256 } from '../agent/fingerprint.ts';
import { BIN, cliChild } from './support/child.ts';
import { finishedSmokeStudy, type StudyCopy } from './support/smoke-study.ts';

// Claims are leases: tested here on bare claims folders, with fake leases of "another host"
// written by the test (renewed by it, or not) and with real processes that hold a lease.
const root = mkdtempSync(join(tmpdir(), 'tinyagent-leases-'));
let counter = 0;
const folder = () => {
  const dir = join(root, `study-${(counter += 1)}`);
  mkdirSync(join(dir, 'claims'), { recursive: true });
  return dir;
};
const lockOf = (dir: string, jobId: string) => join(dir, 'claims', `${jobId}.lock`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const OTHER = 'node-17.elsewhere';

/** Writes a lease of process 4242 on another host, its mtime `offset` ms from now; returns a function that renews it (a new mtime, `offset` from then). */
function otherHostLease(dir: string, jobId: string, offset = 0): () => void {
  const path = lockOf(dir, jobId);
  writeFileSync(path, `${JSON.stringify({ pid: 4242, host: OTHER, since: '2026-01-01T00:00:00Z' })}\n`);
  const renew = () => {
    const at = new Date(Date.now() + offset);
    // A lock removed meanwhile (unlock --force, a takeover) is no longer this holder's to renew.
    if (existsSync(path)) utimesSync(path, at, at);
  };
  renew();
  return renew;
}

const isHeld = (claim: Claim | Held): claim is Held => 'heldBy' in claim;

/** Claims `jobId`, expecting a takeover said in one line matching `line` (`what`: the case, in a failure); returns the claim. */
async function takenOver(dir: string, jobId: string, timeout: number, line: RegExp, what?: string) {
  const lines: string[] = [];
  const claim = await claimJob(dir, jobId, { timeout, say: (said) => lines.push(said) });
  expect(isHeld(claim), what).toBe(false);
  expect(lines, what).toEqual([expect.stringMatching(line)]);
  return claim as Claim;
}

/**
 * The lease of `jobId` now and once renewed. The renewal thread runs every 0.1 s; on a loaded machine it
 * may be late, so this waits for the renewal (up to a minute: a hang, not slowness), not a fixed time.
 */
async function renewal(dir: string, jobId: string) {
  const first = readLease(dir, jobId);
  const markOf = (lease: ReturnType<typeof readLease>) =>
    lease !== undefined && 'lease' in lease ? lease.lease.mark : undefined;
  let later = readLease(dir, jobId);
  for (let waited = 0; markOf(later) === markOf(first) && waited < 60_000; waited += 100) {
    await sleep(100);
    later = readLease(dir, jobId);
  }
  return { first, later };
}

const timers: NodeJS.Timeout[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A process holding the lease of `jobId` (test/support/lease-holder.ts), once it says so. */
async function holderProcess(dir: string, jobId: string, timeout: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [
    '--import',
    'tsx',
    join(import.meta.dirname, 'support', 'lease-holder.ts'),
    dir,
    jobId,
    String(timeout),
  ]);
  children.push(child);
  let stdout = '';
  child.stdout!.on('data', (chunk) => (stdout += String(chunk)));
  const deadline = Date.now() + 60_000;
  while (!stdout.includes('\n') && Date.now() < deadline) await sleep(20);
  expect(stdout).toBe('held\n');
  return child;
}

describe('a claim is a lease its holder renews', () => {
  it('the holder renews its lock (mtime) from its own thread; a second claim on this host finds it live; release removes it', async () => {
    const dir = folder();
    const claim = await claimJob(dir, 'job', { timeout: 1 });
    expect(isHeld(claim)).toBe(false);
    const { first, later } = await renewal(dir, 'job');
    expect(first !== undefined && 'lease' in first && later !== undefined && 'lease' in later).toBe(true);
    if (first === undefined || !('lease' in first) || later === undefined || !('lease' in later)) return;
    expect(later.lease.mark).not.toBe(first.lease.mark);
    expect(first.lease.holder).toMatchObject({ pid: process.pid, host: hostname(), renewEvery: 0.1 });
    const second = await claimJob(dir, 'job', { timeout: 1 });
    expect(isHeld(second) && second.heldBy.pid).toBe(process.pid);
    expect((claim as Claim).held()).toBe(true);
    (claim as Claim).release();
    expect(existsSync(lockOf(dir, 'job'))).toBe(false);
  });

  it("another host's lease that keeps renewing is not taken; one that stopped is taken after the timeout of this process's clock", async () => {
    const dir = folder();
    // One renewal, then none: with a timeout of a day, only leaving at the first renewal seen returns at all.
    timers.push(setTimeout(otherHostLease(dir, 'renewing'), 200));
    const held = await claimJob(dir, 'renewing', { timeout: 86_400 });
    expect(isHeld(held) && held.heldBy.host).toBe(OTHER);
    otherHostLease(dir, 'stopped');
    const taken = await takenOver(
      dir,
      'stopped',
      0.8,
      /took over the claim .*stopped\.lock of process 4242 on node-17\.elsewhere .*not renewed for 0\.8 s/,
    );
    taken.release();
  });

  it('a node whose clock is an hour ahead (or behind): future or past renewal times neither keep a lease fresh nor make it stale at once', async () => {
    const hour = 3_600_000;
    for (const offset of [hour, -hour]) {
      const dir = folder();
      otherHostLease(dir, 'stopped', offset);
      const taken = await claimJob(dir, 'stopped', { timeout: 0.6 });
      expect(isHeld(taken), `offset ${offset}`).toBe(false);
      (taken as Claim).release();
      const renew = otherHostLease(dir, 'renewing', offset);
      timers.push(setInterval(renew, 100));
      // A verdict of live comes at the first renewal seen: a long timeout only spares a loaded machine.
      const held = await claimJob(dir, 'renewing', { timeout: 5 });
      expect(isHeld(held), `offset ${offset}`).toBe(true);
    }
  });

  it('a lease of this host whose pid is dead is stale at once', async () => {
    const dir = folder();
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => dead.on('exit', resolve));
    writeFileSync(lockOf(dir, 'job'), JSON.stringify({ pid: dead.pid, host: hostname(), since: 'then' }));
    // With a timeout of a day, only a verdict at once returns at all.
    const claim = await claimJob(dir, 'job', { timeout: 86_400 });
    expect(isHeld(claim)).toBe(false);
    (claim as Claim).release();
  });

  it('a lease is stale after the timeout whatever its lock says: a renewEvery of 1e300 or 86400 changes nothing', async () => {
    const dir = folder();
    for (const [jobId, renewEvery] of [
      ['claimed', 1e300],
      ['unlocked', 86_400],
    ] as const)
      writeFileSync(
        lockOf(dir, jobId),
        JSON.stringify({ pid: 4242, host: OTHER, since: '2026-01-01T00:00:00Z', renewEvery }),
      );
    const taken = await takenOver(
      dir,
      'claimed',
      0.5,
      /took over the claim .*claimed\.lock .*: not renewed for 0\.5 s$/,
    );
    taken.release();
    const rows = await unlockClaims(dir, ['claimed', 'unlocked'], { timeout: 0.5 });
    expect(rows.map((row) => [row.jobId, row.verdict, row.removed])).toEqual([['unlocked', 'stale', true]]);
  }, 30_000);

  it("a lease of this host whose pid runs but never renews (a crashed job's pid reused after a reboot) is stale after the timeout", async () => {
    const dir = folder();
    // This test's own process: alive, and no holder of these leases.
    for (const jobId of ['claimed', 'unlocked'])
      writeFileSync(
        lockOf(dir, jobId),
        JSON.stringify({ pid: process.pid, host: hostname(), since: 'before' }),
      );
    const taken = await takenOver(
      dir,
      'claimed',
      0.5,
      new RegExp(`took over the claim .* of process ${process.pid} on .*: not renewed for 0\\.5 s$`),
    );
    taken.release();
    const rows = await unlockClaims(dir, ['claimed', 'unlocked'], { timeout: 0.5 });
    expect(rows.map((row) => [row.jobId, row.verdict, row.removed])).toEqual([['unlocked', 'stale', true]]);
  }, 30_000);

  it('a real holder process: live while it runs, its renewals advance; SIGKILLed, its lease is taken at once', async () => {
    const dir = folder();
    const child = await holderProcess(dir, 'job', 1);
    const { first, later } = await renewal(dir, 'job');
    expect(first !== undefined && 'lease' in first && first.lease.holder.pid).toBe(child.pid);
    expect(
      later !== undefined &&
        'lease' in later &&
        first !== undefined &&
        'lease' in first &&
        later.lease.mark !== first.lease.mark,
    ).toBe(true);
    const held = await claimJob(dir, 'job', { timeout: 1 });
    expect(isHeld(held) && held.heldBy.pid).toBe(child.pid);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    const claim = await claimJob(dir, 'job', { timeout: 30 });
    expect(isHeld(claim)).toBe(false);
    (claim as Claim).release();
  });
});

describe('a lock edited by hand names no holder and is taken over at once, never followed nor opened', () => {
  it('garbage, a huge file, a symbolic link, a FIFO, a folder: each one line, and the claim taken', async () => {
    const dir = folder();
    const outside = join(root, `outside-${counter}.lock`);
    writeFileSync(outside, JSON.stringify({ pid: 4242, host: OTHER, since: 'x' }));
    writeFileSync(lockOf(dir, 'garbage'), 'not json {');
    writeFileSync(lockOf(dir, 'huge'), 'x'.repeat(1 << 20));
    symlinkSync(outside, lockOf(dir, 'link'));
    execFileSync('mkfifo', [lockOf(dir, 'fifo')]);
    mkdirSync(join(lockOf(dir, 'folder'), 'inside'), { recursive: true });
    const expected = {
      garbage: /garbage\.lock' is not a lease$/,
      huge: /huge\.lock' is 1048576 bytes, more than the 4096/,
      link: /link\.lock' is a symbolic link/,
      fifo: /fifo\.lock' is a FIFO/,
      folder: /folder\.lock' is a folder, not a regular file/,
    };
    for (const [jobId, message] of Object.entries(expected)) {
      const claim = await takenOver(dir, jobId, 30, message, jobId);
      expect(lstatSync(lockOf(dir, jobId)).isFile(), jobId).toBe(true);
      claim.release();
    }
    // The link was moved, not followed: the file it pointed at is as it was.
    expect(JSON.parse(readFileSync(outside, 'utf8')).pid).toBe(4242);
  });
});

describe('unlockClaims (study unlock)', () => {
  it('removes the stale claims, keeps the live ones, and with force removes those too, each with a warning', async () => {
    const dir = folder();
    otherHostLease(dir, 'stopped');
    const renew = otherHostLease(dir, 'renewing');
    timers.push(setInterval(renew, 100));
    writeFileSync(lockOf(dir, 'garbage'), '{}');
    // A holder of this host is judged as any other, by its renewals under the timeout it shares.
    const child = await holderProcess(dir, 'local', 3);
    const ids = ['stopped', 'renewing', 'garbage', 'local'];
    const said: string[] = [];
    // 3 s, not less: the holder and the renewing timer must each be seen to renew within it on a loaded machine.
    const rows = await unlockClaims(dir, ids, { timeout: 3, say: (line) => said.push(line) });
    expect(rows.map((row) => [row.jobId, row.index, row.verdict, row.removed])).toEqual([
      ['garbage', 2, 'stale', true],
      ['local', 3, 'live', false],
      ['renewing', 1, 'live', false],
      ['stopped', 0, 'stale', true],
    ]);
    expect(rows.find((row) => row.jobId === 'local')!.holder!.pid).toBe(child.pid);
    expect(said).toEqual(['watching 3 claims for up to 3 s for a renewal']);
    expect(existsSync(lockOf(dir, 'stopped'))).toBe(false);
    const forced: string[] = [];
    const again = await unlockClaims(dir, ids, {
      timeout: 3,
      force: true,
      say: (line) => forced.push(line),
    });
    expect(again.map((row) => [row.jobId, row.verdict, row.removed])).toEqual([
      ['local', 'live', true],
      ['renewing', 'live', true],
    ]);
    expect(forced.filter((line) => line.startsWith('warning: '))).toHaveLength(2);
    expect(existsSync(lockOf(dir, 'local'))).toBe(false);
  });
});

// The CLI on a finished smoke study of one seed and step 0 (a training, an evaluation), copied
// for each test; every command a real process.
describe('study run, status and unlock with leases', () => {
  let copy: () => StudyCopy;
  /** The one stderr line of a command that ended with `code`. */
  const oneLine = (result: { status: number | null; stderr: string }, code: number) => {
    expect(result.status, result.stderr).toBe(code);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    return lines[0]!;
  };

  beforeAll(async () => {
    copy = await finishedSmokeStudy(join(root, 'cli'));
  }, 300_000);

  it('--index on a job held by a live lease exits 75; on an evaluation whose training is missing, 1, naming the training', async () => {
    const { dir, plan, train, evaluation } = copy();
    rmSync(evaluation, { recursive: true });
    timers.push(setInterval(otherHostLease(dir, plan.jobs[1]!.id), 100));
    const held = await cliChild(['study', 'run', dir, '--index', '1', '--lease-timeout', '3']);
    expect(oneLine(held, 75)).toMatch(
      /^tinyagent study: job 1 \(.*\) is held by process 4242 on node-17\.elsewhere \(claimed 2026-01-01T00:00:00Z, last renewed .*\); left to it: retry later$/,
    );
    expect(held.stdout).toBe('');
    const status = await cliChild(['study', 'status', dir, '--lease-timeout', '3']);
    expect(status.stdout).toMatch(
      /^running\t1\t.*\tprocess 4242 on node-17\.elsewhere since 2026-01-01T00:00:00Z, last renewed \d{4}-.*Z \(\d+ s ago by this host's clock\); stale once not renewed for 3 s/m,
    );
    rmSync(train, { recursive: true });
    const missing = await cliChild(['study', 'run', dir, '--index', '1']);
    expect(oneLine(missing, 1)).toMatch(
      /needs the training of seed 0, job 0 \(.*\), done first, and it is not done; run it/,
    );
    expect(oneLine(await cliChild(['study', 'run', dir, '--index', '0', '--lease-timeout', '0']), 2)).toMatch(
      /--lease-timeout must be in \[0\.1, 86400\], got 0/,
    );
  }, 120_000);

  it("takes over another host's lease that stopped renewing, after --lease-timeout, and runs the job", async () => {
    const { dir, plan, evaluation } = copy();
    const before = readFileSync(join(evaluation, 'result.json'), 'utf8');
    rmSync(evaluation, { recursive: true });
    otherHostLease(dir, plan.jobs[1]!.id);
    const result = await cliChild(['study', 'run', dir, '--index', '1', '--lease-timeout', '1']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /^tinyagent study: took over the claim .*\.lock of process 4242 on node-17\.elsewhere \(last renewed .*\): not renewed for 1 s$/m,
    );
    expect(result.stdout).toMatch(/^job 1 \(.*\) done$/m);
    expect(readFileSync(join(evaluation, 'result.json'), 'utf8')).toBe(before);
    expect(existsSync(lockOf(dir, plan.jobs[1]!.id))).toBe(false);
  }, 120_000);

  it("a holder whose lease is taken over discards its own partial output, leaves the new holder's lock, exits 75; a rerun recovers", async () => {
    const { dir, plan, evaluation } = copy();
    const before = readFileSync(join(evaluation, 'result.json'), 'utf8');
    rmSync(evaluation, { recursive: true });
    const id = plan.jobs[1]!.id;
    const holder = cliChild(['study', 'run', dir, '--index', '1']);
    // The moment its lock appears, another process takes the claim over (as after a missed renewal).
    const lock = lockOf(dir, id);
    while (!existsSync(lock)) await sleep(2);
    renameSync(lock, `${lock}.gone`);
    otherHostLease(dir, id);
    const taker = readFileSync(lock, 'utf8');
    const takerInode = lstatSync(lock).ino;
    const result = await holder;
    expect(oneLine(result, 75)).toMatch(
      /^tinyagent study: job 1 \(.*\): its claim .* was taken over by process 4242 on node-17\.elsewhere; this attempt's output was discarded and the new holder's left as it is: retry later$/,
    );
    expect(existsSync(evaluation)).toBe(false);
    expect(readdirSync(join(dir, 'jobs')).filter((name) => name.includes(id))).toEqual([]);
    expect(existsSync(join(dir, 'failed', `${id}.txt`))).toBe(false);
    expect(readFileSync(lock, 'utf8')).toBe(taker);
    expect(lstatSync(lock).ino).toBe(takerInode);
    // The new holder stopped renewing: a rerun takes the lease over and makes the same bytes.
    const rerun = await cliChild(['study', 'run', dir, '--index', '1', '--lease-timeout', '0.5']);
    expect(rerun.status, rerun.stderr).toBe(0);
    expect(readFileSync(join(evaluation, 'result.json'), 'utf8')).toBe(before);
  }, 120_000);

  it("one lease rule for every command: a lock's renewEvery of 1e300 does not stop run --index nor unlock; a live pid of this host that never renews does not block run --jobs", async () => {
    const { dir, plan, evaluation } = copy();
    rmSync(evaluation, { recursive: true });
    const id = plan.jobs[1]!.id;
    const lease = (holder: object) => writeFileSync(lockOf(dir, id), JSON.stringify(holder));
    lease({ pid: 4242, host: OTHER, since: '2026-01-01T00:00:00Z', renewEvery: 1e300 });
    const unlock = await cliChild(['study', 'unlock', dir, '--lease-timeout', '0.5']);
    expect(unlock.stdout).toMatch(/^stale\t1\t.*\tremoved$/m);
    lease({ pid: 4242, host: OTHER, since: '2026-01-01T00:00:00Z', renewEvery: 1e300 });
    const index = await cliChild(['study', 'run', dir, '--index', '1', '--lease-timeout', '0.5']);
    expect(index.status, index.stderr).toBe(0);
    expect(index.stderr).toMatch(/took over the claim .* of process 4242 .*: not renewed for 0\.5 s$/m);
    rmSync(evaluation, { recursive: true });
    // This test's own process: alive on this host, and no holder of the job.
    lease({ pid: process.pid, host: hostname(), since: 'before the reboot' });
    const jobs = await cliChild(['study', 'run', dir, '--jobs', '1', '--lease-timeout', '0.5']);
    expect(jobs.status, jobs.stderr).toBe(0);
    expect(jobs.stdout).toMatch(/: 1 job ran, 1 was done, 0 failed, 0 left pending;/);
    const log = readdirSync(join(dir, 'logs')).find((name) => name.startsWith('1-'))!;
    expect(readFileSync(join(dir, 'logs', log), 'utf8')).toMatch(
      new RegExp(`took over the claim .* of process ${process.pid} on .*: not renewed for 0\\.5 s$`, 'm'),
    );
  }, 120_000);

  it('a claim removed under its holder (unlock --force) is said to be removed; study run --jobs leaves that job for later, exit 75, not failed', async () => {
    const { dir, plan, evaluation } = copy();
    rmSync(evaluation, { recursive: true });
    const lock = lockOf(dir, plan.jobs[1]!.id);
    const holder = cliChild(['study', 'run', dir, '--index', '1']);
    while (!existsSync(lock)) await sleep(2);
    rmSync(lock);
    const result = await holder;
    expect(oneLine(result, 75)).toMatch(
      /: its claim .* was removed by another process \(study unlock --force, or a takeover that has ended\); this attempt's output was discarded/,
    );
    const run = cliChild(['study', 'run', dir, '--jobs', '1']);
    while (!existsSync(lock)) await sleep(2);
    rmSync(lock);
    const ran = await run;
    expect(ran.status, ran.stderr).toBe(75);
    expect(ran.stderr).toMatch(
      /^job 1 \(.*\) lost its claim while it ran \(exit 75\); left for a later run/m,
    );
    expect(ran.stdout).toMatch(/: 0 jobs ran, 1 was done, 0 failed, 1 left pending;/);
    expect(existsSync(evaluation)).toBe(false);
  }, 120_000);

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)(
    '%s (a scheduler cancel, Ctrl-C) during a job releases its claim and removes its partial folder',
    async (signal, code) => {
      const { dir, plan, train } = copy();
      rmSync(train, { recursive: true });
      const id = plan.jobs[0]!.id;
      const child = spawn(process.execPath, [BIN, 'study', 'run', dir, '--index', '0']);
      children.push(child);
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += String(chunk)));
      const exited = new Promise((resolve) => child.on('exit', (status, by) => resolve([status, by])));
      const partial = () => readdirSync(join(dir, 'jobs')).some((name) => name.startsWith(`.partial-${id}-`));
      while (!(existsSync(lockOf(dir, id)) && partial())) await sleep(20);
      child.kill(signal);
      expect(await exited).toEqual([code, null]);
      expect(stderr).toMatch(
        new RegExp(
          `job 0 \\(${id}\\) stopped by ${signal}: its partial folder removed and its claim released`,
        ),
      );
      expect(existsSync(lockOf(dir, id))).toBe(false);
      expect(readdirSync(join(dir, 'jobs')).filter((name) => name.includes(id))).toEqual([]);
    },
    120_000,
  );

  it('SIGTERM to study run --jobs is passed on to its workers: each releases its claim and removes its partial folder', async () => {
    const { dir, plan, train } = copy();
    rmSync(train, { recursive: true });
    const id = plan.jobs[0]!.id;
    const child = spawn(process.execPath, [BIN, 'study', 'run', dir, '--jobs', '1']);
    children.push(child);
    const exited = new Promise((resolve) => child.on('exit', (status, by) => resolve([status, by])));
    const partial = () => readdirSync(join(dir, 'jobs')).some((name) => name.startsWith(`.partial-${id}-`));
    while (!(existsSync(lockOf(dir, id)) && partial())) await sleep(20);
    child.kill('SIGTERM');
    expect(await exited).toEqual([143, null]);
    expect(existsSync(lockOf(dir, id))).toBe(false);
    expect(readdirSync(join(dir, 'jobs')).filter((name) => name.includes(id))).toEqual([]);
    const log = readdirSync(join(dir, 'logs')).find((name) => name.startsWith('0-'))!;
    expect(readFileSync(join(dir, 'logs', log), 'utf8')).toMatch(/stopped by SIGTERM/);
  }, 120_000);

  it('a lock whose host, or a failure note, holds terminal escape codes: status and unlock show them escaped', async () => {
    const { dir, plan, evaluation } = copy();
    rmSync(evaluation, { recursive: true });
    const id = plan.jobs[1]!.id;
    writeFileSync(
      lockOf(dir, id),
      JSON.stringify({ pid: 4242, host: 'evil\u001b[2J\u001b]0;owned\u0007', since: '\u009b31mthen' }),
    );
    const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
    const status = await cliChild(['study', 'status', dir]);
    expect(status.stdout).not.toMatch(raw);
    expect(status.stdout).toMatch(
      /process 4242 on evil\\u001b\[2J\\u001b\]0;owned\\u0007 since \\u009b31mthen/,
    );
    const unlock = await cliChild(['study', 'unlock', dir, '--lease-timeout', '0.5']);
    expect(unlock.stdout).not.toMatch(raw);
    expect(unlock.stdout).toMatch(/^stale\t1\t.*on evil\\u001b\[2J.*\tremoved$/m);
    mkdirSync(join(dir, 'failed'), { recursive: true });
    writeFileSync(join(dir, 'failed', `${id}.txt`), 'boom \u001b[2J\u001b[31m red\n');
    const failed = await cliChild(['study', 'status', dir]);
    expect(failed.stdout).not.toMatch(raw);
    expect(failed.stdout).toMatch(/^failed\t1\t.*\tboom \\u001b\[2J\\u001b\[31m red$/m);
  }, 120_000);

  it('a job killed between its output and its rename: status says its process died, a rerun discards the partial folder and recovers', async () => {
    const { dir, plan, evaluation } = copy();
    const before = readFileSync(join(evaluation, 'output.json'), 'utf8');
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => dead.on('exit', resolve));
    const job = plan.jobs[1]!;
    // What a kill after output.json and before the rename leaves: the whole output, under its temporary name, and the lock.
    const partial = join(dir, 'jobs', `.partial-${job.id}-${hostname()}-${dead.pid}`);
    renameSync(evaluation, partial);
    writeFileSync(lockOf(dir, job.id), JSON.stringify({ pid: dead.pid, host: hostname(), since: 'then' }));
    expect(jobState(plan, job)).toEqual({
      state: 'failed',
      problem: `its process ${dead.pid} on ${hostname()} died`,
    });
    const rerun = await cliChild(['study', 'run', dir, '--index', '1']);
    expect(rerun.status, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/took over the claim .* of process \d+ on .*: that process is gone/);
    expect(existsSync(partial)).toBe(false);
    expect(readFileSync(join(evaluation, 'output.json'), 'utf8')).toBe(before);
  }, 120_000);

  it('study run without --index leaves a renewing lease to its holder, takes it once it stops, and exits 0 when all is done', async () => {
    const { dir, plan, evaluation } = copy();
    rmSync(evaluation, { recursive: true });
    const renew = otherHostLease(dir, plan.jobs[1]!.id);
    const timer = setInterval(renew, 100);
    timers.push(timer);
    const child = spawn(process.execPath, [BIN, 'study', 'run', dir, '--jobs', '1', '--lease-timeout', '1']);
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    // The run's worker finds the lease renewed, and the job's log says so; then the holder stops.
    const logs = join(dir, 'logs');
    const heldLine = () =>
      existsSync(logs) &&
      readdirSync(logs).some(
        (name) =>
          name.startsWith('1-') && /is held by process 4242/.test(readFileSync(join(logs, name), 'utf8')),
      );
    const deadline = Date.now() + 90_000;
    while (!heldLine() && Date.now() < deadline) await sleep(100);
    expect(heldLine()).toBe(true);
    expect(jobState(plan, plan.jobs[1]!).state).toBe('running');
    clearInterval(timer);
    expect(await exited).toBe(0);
    expect(stderr).toMatch(
      /^waiting for job 1 \(.*\): its claim .* is held by process 4242 on node-17\.elsewhere since 2026-01-01T00:00:00Z, last renewed .*; it is taken over if not renewed for 1 s$/m,
    );
    expect(jobState(plan, plan.jobs[1]!).state).toBe('done');
  }, 150_000);

  it('study unlock lists the claims with their last renewal and removes the stale ones; --force the live-looking ones, with a warning', async () => {
    const { dir, plan } = copy();
    otherHostLease(dir, plan.jobs[0]!.id);
    timers.push(setInterval(otherHostLease(dir, plan.jobs[1]!.id), 100));
    const listed = await cliChild(['study', 'unlock', dir, '--lease-timeout', '1']);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stderr).toBe('tinyagent study: watching 2 claims for up to 1 s for a renewal\n');
    expect(listed.stdout).toMatch(
      /^stale\t0\t.*\tprocess 4242 on node-17\.elsewhere since 2026-01-01T00:00:00Z, last renewed .*\tremoved$/m,
    );
    expect(listed.stdout).toMatch(/^live\t1\t.*\tkept$/m);
    expect(listed.stdout).toMatch(/: 2 claims, 1 removed, 1 kept\n$/);
    const forced = await cliChild(['study', 'unlock', dir, '--lease-timeout', '1', '--force']);
    expect(forced.status).toBe(0);
    expect(forced.stderr).toMatch(
      /^tinyagent study: warning: removing the claim .* which looks alive \(--force\)/m,
    );
    expect(forced.stdout).toMatch(/: 1 claim, 1 removed, 0 kept\n$/);
    expect(readdirSync(join(dir, 'claims')).filter((name) => name.endsWith('.lock'))).toEqual([]);
  }, 120_000);

  /** Rewrites the fingerprint job `index`'s output.json records (outside its checksums), or removes it. */
  const refingerprint = (
    plan: Plan,
    index: number,
    edit: (print: Record<string, string>) => Record<string, string> | undefined,
  ) => {
    const path = join(jobDir(plan, plan.jobs[index]!), 'output.json');
    const output = JSON.parse(readFileSync(path, 'utf8')) as { fingerprint?: Record<string, string> };
    const edited = edit(output.fingerprint!);
    if (edited === undefined) delete output.fingerprint;
    else output.fingerprint = edited;
    writeFileSync(path, JSON.stringify(output));
  };

  it("every job's output records the fingerprint of the code that made it; status finds none stale", async () => {
    const { dir, plan } = copy();
    const prints = plan.jobs.map((job) => jobFingerprint(plan, job));
    expect(prints.every((print) => isFingerprint(print))).toBe(true);
    expect(fingerprintDifferences(prints[0], prints[1])).toEqual([]);
    expect(prints[0]!.sources).toBe(sourcesSha256());
    const status = await cliChild(['study', 'status', dir]);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toBe(`${dir}: 2 done, 0 running, 0 failed, 0 pending of 2\n`);
  }, 60_000);

  it('outputs of different code: status lists them stale, report refuses naming the parts and the jobs, --allow-mixed merges and says so', async () => {
    const { dir, plan } = copy();
    refingerprint(plan, 1, (print) => ({ ...print, sources: 'f'.repeat(64), threads: 'default' }));
    const status = await cliChild(['study', 'status', dir]);
    expect(status.stdout).toMatch(
      /^stale\t1\t.*\tmade by other code: sources: f{12} -> [0-9a-f]{12}, threads: default -> 1$/m,
    );
    expect(status.stdout).toMatch(
      /2 done, 0 running, 0 failed, 0 pending of 2; 1 of the done made by other code than this \(stale\)\n$/,
    );
    const refused = await cliChild(['study', 'report', dir]);
    expect(oneLine(refused, 1)).toMatch(
      /^tinyagent study: .*: its outputs were made by different code: job 1 \(1\) differs from job 0 \(1\) in sources: [0-9a-f]{12} -> f{12}, threads: 1 -> default; rerun those jobs/,
    );
    expect(existsSync(join(dir, 'results', 'study.json'))).toBe(false);
    const mixed = await cliChild(['study', 'report', dir, '--allow-mixed']);
    expect(oneLine(mixed, 0)).toMatch(
      /^tinyagent study: warning: merging outputs of different code: job 1 \(1\) differs/,
    );
    expect(readFileSync(join(dir, 'results', 'study.md'), 'utf8')).toMatch(
      /\*\*Mixed code\.\*\* .*job 1 \(1\) differs from job 0/,
    );
    expect(JSON.parse(readFileSync(join(dir, 'results', 'study.json'), 'utf8')).numbers.mixedCode).toMatch(
      /^job 1 \(1\) differs/,
    );
  }, 120_000);

  it('outputs with no fingerprint: one of them differs from the rest; all of them merge as one code, with a note', async () => {
    const { dir, plan } = copy();
    refingerprint(plan, 0, () => undefined);
    expect(oneLine(await cliChild(['study', 'report', dir]), 1)).toMatch(
      /job 0 \(1, no fingerprint\) differs from job 1 \(1\) in version: .* -> missing, sources: /,
    );
    expect((await cliChild(['study', 'status', dir])).stdout).toMatch(
      /^stale\t0\t.*\tno fingerprint \(made before fingerprints were recorded\)$/m,
    );
    refingerprint(plan, 1, () => undefined);
    const report = await cliChild(['study', 'report', dir]);
    expect(oneLine(report, 0)).toMatch(
      /^tinyagent study: note: no output of .* records a fingerprint .*merged as one code/,
    );
    expect(readFileSync(join(dir, 'results', 'study.md'), 'utf8')).not.toMatch(/Mixed code/);
  }, 120_000);
});
