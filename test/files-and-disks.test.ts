import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRunLog } from '../lib/log.ts';
import { cli } from './support/cli.ts';

const BIN = new URL('../bin/tinyagent.js', import.meta.url).pathname;
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A run folder whose log.jsonl is /dev/full: every write to it fails with ENOSPC, as on a full disk. */
function fullDiskRun(): { runsDir: string; runDir: string } {
  const runsDir = mkdtempSync(join(tmpdir(), 'tinyagent-full-'));
  folders.push(runsDir);
  const runDir = join(runsDir, 'r');
  mkdirSync(runDir);
  symlinkSync('/dev/full', join(runDir, 'log.jsonl'));
  return { runsDir, runDir };
}

describe('a full disk', () => {
  it('throws the file system error on the write that fails, instead of retrying it', () => {
    const { runDir } = fullDiskRun();
    const log = openRunLog(runDir, { quiet: true });
    expect(() => log.record('run/start', { step: 0 })).toThrow(/ENOSPC/);
    log.close();
  });

  it('writes every record as one JSON line when the disk has room', () => {
    const runDir = mkdtempSync(join(tmpdir(), 'tinyagent-log-'));
    folders.push(runDir);
    const log = openRunLog(runDir, { quiet: true });
    log.record('grpo/step', { step: 1, 'losses/policy': 0.5 });
    log.say('hello');
    log.close();
    const lines = readFileSync(join(runDir, 'log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.event)).toEqual(['grpo/step', 'say']);
    expect(lines[0]['losses/policy']).toBe(0.5);
  });

  it('fails `train` in one line with exit code 1, naming the run folder', () => {
    const { runsDir, runDir } = fullDiskRun();
    // The timeout turns a hang (the old behaviour) into a failure of this test.
    const result = spawnSync(process.execPath, [BIN, 'train', '--runs-dir', runsDir, '--name', 'r'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, TINYAGENT_BACKEND: 'cpu' },
    });
    expect(result.signal).toBeNull();
    expect(result.status).toBe(1);
    const errors = result.stderr
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('tinyagent train:'));
    expect(errors).toEqual([`tinyagent train: ${runDir}: ENOSPC: no space left on device, write`]);
  });

  it('ends a command whose standard output cannot be written (/dev/full) in one line, exit code 1', () => {
    const full = openSync('/dev/full', 'w');
    try {
      const result = spawnSync(process.execPath, [BIN, 'tasks'], {
        encoding: 'utf8',
        stdio: ['ignore', full, 'pipe'],
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toBe(
        'tinyagent tasks: cannot write to standard output: ENOSPC: no space left on device, write\n',
      );
    } finally {
      closeSync(full);
    }
  });

  it('refuses `train --config` that is a FIFO before opening it (opening one blocks until a writer comes)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'tinyagent-fifo-'));
    folders.push(folder);
    const fifo = join(folder, 'config.json');
    execFileSync('mkfifo', [fifo]);
    const { code, stderr } = await cli(['train', '--config', fifo, '--runs-dir', folder]);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(`tinyagent train: --config: '${fifo}' is a FIFO, not a regular file`);
  });
});
