import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { holderAlive, processAlive } from '../lib/processes.ts';

/** The pid of a process that has exited (a child that ran and was waited for). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  expect(child.status).toBe(0);
  return child.pid as number;
}

describe('lib/processes', () => {
  it('processAlive: this process runs, an exited child does not', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(deadPid())).toBe(false);
  });

  it('processAlive: a pid that names no one process (0 is our group, -1 everyone, a fraction nothing) is not alive', () => {
    for (const pid of [0, -1, -process.pid, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(processAlive(pid), String(pid)).toBe(false);
    expect(holderAlive({ pid: 0, host: hostname() })).toBe(false);
    expect(holderAlive({ pid: -1, host: hostname() })).toBe(false);
  });

  it('holderAlive: by the pid on this host; a holder on another host counts as alive', () => {
    const dead = deadPid();
    expect(holderAlive({ pid: process.pid, host: hostname() })).toBe(true);
    expect(holderAlive({ pid: dead, host: hostname() })).toBe(false);
    expect(holderAlive({ pid: dead, host: `${hostname()}-elsewhere` })).toBe(true);
  });
});
