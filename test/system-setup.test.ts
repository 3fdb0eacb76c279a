import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SYSTEM_COMPONENTS, SYSTEM_PACKAGES } from './support/systemPackages.ts';
import { missingPackages, setupAction } from './system-setup.ts';

const ROOT = join(import.meta.dirname, '..');
const SCRIPT = join(ROOT, 'test', 'system-setup.ts');

/** Runs the setup step with stand-ins on PATH: `dpkg-query` printing `dpkgOutput`, `apt-get` recording its arguments. */
function runWithStubs(dpkgOutput: string) {
  const bin = mkdtempSync(join(tmpdir(), 'tinyagent-setup-'));
  const log = join(bin, 'apt.log');
  writeFileSync(join(bin, 'dpkg-query'), `#!/bin/sh\n${dpkgOutput}\n`);
  writeFileSync(join(bin, 'apt-get'), `#!/bin/sh\necho "$*" >> ${log}\n`);
  for (const name of ['dpkg-query', 'apt-get']) chmodSync(join(bin, name), 0o755);
  const result = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
  });
  return { result, log };
}

describe("npm test's setup step (test/system-setup.ts)", () => {
  it('lists what is missing, in list order', () => {
    expect(missingPackages(SYSTEM_COMPONENTS, new Set(['slurmd', 'munge']))).toEqual([
      'chromium',
      'slurmctld',
      'slurm-client',
      'iproute2',
      'util-linux',
    ]);
    expect(missingPackages(SYSTEM_COMPONENTS, new Set(SYSTEM_PACKAGES))).toEqual([]);
  });

  it('does nothing when all is there, installs as root, and otherwise prints the one line to run', () => {
    expect(setupAction([], { root: false, apt: true })).toEqual({ kind: 'none' });
    expect(setupAction(['chromium'], { root: true, apt: true })).toEqual({
      kind: 'install',
      packages: ['chromium'],
    });
    const user = setupAction(['chromium', 'munge'], { root: false, apt: true });
    expect(user).toEqual({
      kind: 'instruct',
      message: expect.stringContaining('run: sudo apt-get update && sudo apt-get install -y chromium munge'),
    });
    const noApt = setupAction(['munge'], { root: true, apt: false });
    expect(noApt.kind).toBe('instruct');
    expect(noApt.kind === 'instruct' && noApt.message).toMatch(/no apt-get: munge/);
  });

  it('runs apt-get update, then apt-get install -y of exactly the missing packages (stub apt-get and dpkg-query on PATH)', () => {
    // dpkg-query reports only slurmd as installed.
    const { result, log } = runWithStubs('echo "slurmd ii "');
    const missing = SYSTEM_PACKAGES.filter((name) => name !== 'slurmd');
    if (process.getuid?.() === 0) {
      expect(result.status, result.stderr).toBe(0);
      expect(readFileSync(log, 'utf8')).toBe(
        `-o DPkg::Lock::Timeout=600 update\n-o DPkg::Lock::Timeout=600 install -y ${missing.join(' ')}\n`,
      );
      expect(result.stderr).toContain(
        'a real browser (Chromium) for the report page and episode viewer tests',
      );
    } else {
      expect(result.status).toBe(1);
      expect(existsSync(log)).toBe(false);
      expect(result.stderr.trim()).toBe(
        `npm test: the tests need packages that are not installed; run: sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}`,
      );
    }
  });

  it('is silent and installs nothing when every package is installed', () => {
    const { result, log } = runWithStubs(SYSTEM_PACKAGES.map((name) => `echo "${name} ii "`).join('\n'));
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    expect(existsSync(log)).toBe(false);
  });

  it("keeps one list: npm test runs the step, .ci/run runs README's test command and names no package", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts.pretest).toBe('node --import tsx test/system-setup.ts');
    const readmeTest = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n')[4]!;
    expect(readmeTest.startsWith('npm test ')).toBe(true);
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toMatch(/^npm test$/m);
    expect(ci).not.toMatch(/apt-get install/);
    for (const name of SYSTEM_PACKAGES) expect(ci).not.toMatch(new RegExp(`\\b${name}\\b`));
  });
});
