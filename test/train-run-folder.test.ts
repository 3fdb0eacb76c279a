import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointChecksum, initBackend } from '../agent/index.ts';
import { defaultRLConfig, trainSnapshots } from '../train/index.ts';
import { acquireRunLock, LOCK_FILE, removeStaleTemporaries, RunFolderError } from '../train/runLock.ts';
import { openRunLog } from '../lib/log.ts';
import { cli, TINY_TRAINING } from './support/cli.ts';

const tiny = { ...TINY_TRAINING, bcSteps: 2, steps: 2, evalEvery: 1, parallel: false };
let workDir: string;
let reference: string[];

beforeAll(async () => {
  await initBackend({ preference: 'wasm' });
  workDir = mkdtempSync(join(tmpdir(), 'tinyagent-run-folder-'));
  reference = (await run('reference')).checksums;
});

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

async function run(name: string, overrides: Record<string, unknown> = {}) {
  const runDir = join(workDir, name);
  const summary = await trainSnapshots(defaultRLConfig({ ...tiny, ...overrides }), {
    runDir,
    log: openRunLog(runDir, { quiet: true }),
  });
  return { runDir, summary, checksums: summary.snapshots.map((dir) => checkpointChecksum(dir)) };
}

function logEvents(runDir: string): Array<Record<string, unknown>> {
  return readFileSync(join(runDir, 'log.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The pid of a process that has ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

describe('the run folder lock', () => {
  it('refuses a second training into the same folder while the first runs; exactly one of two concurrent runs trains', async () => {
    const runDir = join(workDir, 'concurrent');
    const log = openRunLog(runDir, { quiet: true });
    const results = await Promise.allSettled([
      trainSnapshots(defaultRLConfig(tiny), { runDir, log }),
      trainSnapshots(defaultRLConfig(tiny), { runDir, log }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(RunFolderError);
    expect(String(refused.reason.message)).toMatch(
      /is in use by another training \(this process, since .*\); wait for it to end, or choose another folder \(train's --name, an experiment's --run\)/,
    );
    expect(existsSync(join(runDir, LOCK_FILE))).toBe(false); // released at the end
    expect((await run('concurrent')).checksums).toEqual(reference); // and the folder is usable again
  });

  it('the CLI refuses a locked run folder with one line and exit 1, and writes nothing into it', async () => {
    const runDir = join(workDir, 'held');
    const release = acquireRunLock(runDir);
    try {
      const result = await cli(['train', '--runs-dir', workDir, '--name', 'held', '--quiet']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(
          `^tinyagent train: ${runDir} is in use by another training \\(this process, since [^)]*\\); .*delete ${join(runDir, LOCK_FILE)}\\)\\n$`,
        ),
      );
      expect(readdirSync(runDir)).toEqual([LOCK_FILE]);
    } finally {
      release();
    }
    expect(readdirSync(runDir)).toEqual([]);
  });

  it('takes over a stale lock (dead pid) and an unreadable one; refuses a live one', () => {
    const runDir = join(workDir, 'stale');
    mkdirSync(runDir, { recursive: true });
    const lockPath = join(runDir, LOCK_FILE);
    writeFileSync(
      lockPath,
      JSON.stringify({ pid: deadPid(), host: hostname(), since: '2020-01-01T00:00:00.000Z' }),
    );
    let release = acquireRunLock(runDir);
    expect(JSON.parse(readFileSync(lockPath, 'utf8')).pid).toBe(process.pid);
    release();
    writeFileSync(lockPath, '{"pid": 12');
    release = acquireRunLock(runDir);
    expect(JSON.parse(readFileSync(lockPath, 'utf8')).pid).toBe(process.pid);
    release();
    // The parent of this process is alive: its lock holds.
    writeFileSync(
      lockPath,
      JSON.stringify({ pid: process.ppid, host: hostname(), since: '2020-01-01T00:00:00.000Z' }),
    );
    expect(() => acquireRunLock(runDir)).toThrow(
      new RegExp(`in use by another training \\(pid ${process.ppid} on `),
    );
    unlinkSync(lockPath);
  });

  it('removes the temporaries a kill left behind, and only those', () => {
    const runDir = join(workDir, 'temporaries');
    const stale = [
      '.step-30.4242.1700000000000.tmp',
      '.step-30.4242.1700000000000.tmp.old',
      '.config.json.4242.tmp',
      '.summary.json.4242.3.tmp',
    ];
    const kept = ['step-30', 'config.json', 'log.jsonl', `${LOCK_FILE}.4242.1.tmp`];
    for (const name of [...stale, ...kept]) {
      if (name.startsWith('step-') || name.startsWith('.step-'))
        mkdirSync(join(runDir, name), { recursive: true });
      else writeFileSync(join(runDir, name), '');
    }
    expect(removeStaleTemporaries(runDir).sort()).toEqual([...stale].sort());
    expect(readdirSync(runDir).sort()).toEqual([...kept].sort());
  });

  it('a training removes half-written step folders at start', async () => {
    const runDir = join(workDir, 'killed');
    mkdirSync(join(runDir, '.step-1.99999.1700000000000.tmp'), { recursive: true });
    writeFileSync(join(runDir, '.step-1.99999.1700000000000.tmp', 'weights.bin'), 'half');
    const { checksums } = await run('killed');
    expect(checksums).toEqual(reference);
    expect(readdirSync(runDir).filter((name) => name.includes('.tmp'))).toEqual([]);
    expect(logEvents(runDir).some((event) => event.event === 'run/removedTemporaries')).toBe(true);
  });
});

describe('resuming', () => {
  it('meets a truncated snapshot, says which, retrains it from the last good one and ends with the same checkpoints', async () => {
    const { runDir } = await run('truncated');
    truncateSync(join(runDir, 'step-1', 'weights.bin'), 100);
    const resumed = await run('truncated');
    expect(resumed.checksums).toEqual(reference);
    const corrupt = logEvents(runDir).filter((event) => event.event === 'run/corruptSnapshot');
    expect(corrupt).toHaveLength(1);
    expect(corrupt[0]).toMatchObject({ dir: join(runDir, 'step-1') });
    expect(String(corrupt[0]!.problem)).toMatch(/weights\.bin has 100 bytes/);
    const said = logEvents(runDir)
      .filter((event) => event.event === 'say')
      .map((event) => String(event.line));
    expect(
      said.some((line) =>
        /^resume: checkpoint .*step-1: weights\.bin has 100 bytes.*; retraining it from the last good snapshot$/.test(
          line,
        ),
      ),
    ).toBe(true);
  });

  it('meets a step-0 folder without a manifest and an edited manifest, and retrains both', async () => {
    const { runDir } = await run('emptied');
    unlinkSync(join(runDir, 'step-0', 'manifest.json'));
    const manifestPath = join(runDir, 'step-2', 'manifest.json');
    writeFileSync(manifestPath, readFileSync(manifestPath, 'utf8').replace('"step": 2', '"step": 3'));
    const resumed = await run('emptied');
    expect(resumed.checksums).toEqual(reference);
    expect(resumed.summary.resumedFrom).toBe(1);
    expect(
      logEvents(runDir)
        .filter((event) => event.event === 'run/corruptSnapshot')
        .map((event) => event.dir),
    ).toEqual([join(runDir, 'step-0'), join(runDir, 'step-2')]);
  });

  it('refuses another config with a RunFolderError naming the field, and an unreadable config.json', async () => {
    const { runDir } = await run('mismatch');
    await expect(run('mismatch', { seed: 3 })).rejects.toThrow(
      new RegExp(
        `^${runDir} holds a run with another config \\(seed 0 there, 3 here\\); choose another folder \\(train's --name, an experiment's --run\\) or delete the folder$`,
      ),
    );
    await expect(run('mismatch', { seed: 3 })).rejects.toBeInstanceOf(RunFolderError);
    writeFileSync(join(runDir, 'config.json'), '{"config": ');
    await expect(run('mismatch')).rejects.toThrow(
      /config\.json is not a run's config; delete the folder or choose another \(train's --name, an experiment's --run\)/,
    );
  });
});

describe('the train command after the wasm backend has loaded', () => {
  it("a config mismatch is one line with exit 1 from the real binary, not the wasm module's rethrow", async () => {
    await run('binary'); // the same config as the command line below, trained in-process
    const bin = fileURLToPath(new URL('../bin/tinyagent.js', import.meta.url));
    const config = join(workDir, 'tiny.json');
    writeFileSync(config, JSON.stringify(tiny));
    const mismatch = spawnSync(
      process.execPath,
      [
        bin,
        'train',
        '--config',
        config,
        '--seed',
        '3',
        '--runs-dir',
        workDir,
        '--name',
        'binary',
        '--quiet',
        '--backend',
        'wasm',
      ],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(mismatch.stderr).toBe(
      `tinyagent train: ${join(workDir, 'binary')} holds a run with another config (seed 0 there, 3 here); choose another folder (train's --name, an experiment's --run) or delete the folder\n`,
    );
    expect(mismatch.status).toBe(1);
  });
});
