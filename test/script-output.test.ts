import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Standard output that cannot be written (/dev/full, a full disk) is the environment's fault: every
// npm script of the project ends in one line and exit code 1, as the tinyagent commands do.
const ROOT = join(import.meta.dirname, '..');
const scripts = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;
const out = mkdtempSync(join(tmpdir(), 'tinyagent-script-output-'));
const FULL = 'cannot write to standard output: ENOSPC: no space left on device, write';

/** Scripts that are other tools (their own handling of standard output), the test suite's setup or `npm pack`'s build. */
const NOT_OURS: Record<string, string> = {
  pretest: 'node --import tsx test/system-setup.ts',
  test: 'vitest run',
  'test:unit':
    'sh -c \'vitest run --mode unit --passWithNoTests "$@" && vitest run --mode unit-globals --passWithNoTests "$@"\' test:unit',
  prepack: `node -e "require('node:fs').rmSync('dist',{recursive:true,force:true})" && tsc -p tsconfig.build.json`,
  typecheck: 'tsc --noEmit',
  format: 'prettier --write .',
  'format:check': 'prettier --check .',
};
const ours = Object.keys(scripts).filter((name) => !(name in NOT_OURS));

/**
 * The command of a script with its stdout redirected to /dev/full by the shell. Asynchronous: a
 * worker blocked in spawnSync for the whole file misses vitest's own messages (its RPC times out
 * after 60 s and the run fails with all tests green).
 */
function runToFull(name: string, args: string[] = []) {
  const command = [scripts[name]!, ...args.map((arg) => `'${arg}'`)].join(' ');
  return new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const child = spawn('/bin/sh', ['-c', `${command} > /dev/full`], { cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

describe('every npm script with standard output on /dev/full: exit 1, one line', () => {
  it('every script is an experiment script, a tinyagent command or one of the others named here', () => {
    for (const name of ours)
      expect(scripts[name], name).toMatch(
        /^node (--import tsx (experiments|publish\/page)\/[\w.-]+\.ts|bin\/tinyagent\.js \w+)$/,
      );
    for (const [name, command] of Object.entries(NOT_OURS)) expect(scripts[name], name).toBe(command);
  });

  // --help writes to standard output at once: every script, the costly ones too, in seconds.
  it.each(ours)(
    'npm run %s -- --help',
    async (name) => {
      const result = await runToFull(name, ['--help']);
      const label = scripts[name]!.startsWith('node bin/tinyagent.js ')
        ? `tinyagent ${scripts[name]!.split(' ').pop()}`
        : name;
      expect(result.stderr).toBe(`${label}: ${FULL}\n`);
      expect(result.status).toBe(1);
    },
    60_000,
  );

  // A run that writes its results, then its Markdown to standard output at the end.
  it.each([
    ['exp:17.2', ['--smoke', '--out', join(out, '17.2')]],
    ['exp:17.3', ['--smoke', '--out', join(out, '17.3')]],
    ['ex:1', ['--smoke', '--out', join(out, 'ex-1')]],
    ['report', ['--out', join(out, 'report', 'index.html')]],
  ])(
    'npm run %s',
    async (name, args) => {
      const result = await runToFull(name, args);
      expect(result.stderr).toBe(`${name}: ${FULL}\n`);
      expect(result.status).toBe(1);
    },
    120_000,
  );
});
