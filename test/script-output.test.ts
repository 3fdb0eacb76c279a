import { spawnSync } from 'node:child_process';
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

/** Other tools' scripts: their own handling of standard output, not the project's. */
const TOOLS = { test: 'vitest', typecheck: 'tsc', format: 'prettier', 'format:check': 'prettier' };

/** The command of a script with its stdout redirected to /dev/full by the shell. */
function runToFull(name: string, args: string[] = []) {
  const command = [scripts[name]!, ...args.map((arg) => `'${arg}'`)].join(' ');
  return spawnSync('/bin/sh', ['-c', `${command} > /dev/full`], { cwd: ROOT, encoding: 'utf8' });
}

describe('every npm script with standard output on /dev/full: exit 1, one line', () => {
  it('each script is a project script (through runScript or bin/tinyagent.js) or another tool', () => {
    for (const [name, command] of Object.entries(scripts)) {
      const experiment = /^node --import tsx (experiments\/[\w.-]+\.ts)$/.exec(command);
      if (experiment !== null) {
        // the script's entry goes through runScript under its own name (experiments/common.ts)
        expect(readFileSync(join(ROOT, experiment[1]!), 'utf8'), name).toMatch(
          new RegExp(`runScript\\(\\s*'${name.replace('.', '\\.')}'`),
        );
      } else if (command.startsWith('node bin/tinyagent.js ')) continue;
      else expect(command.split(' ')[0], name).toBe(TOOLS[name as keyof typeof TOOLS]);
    }
  });

  it.each([
    ['exp:17.2', ['--smoke', '--out', join(out, '17.2')]],
    ['exp:17.3', ['--smoke', '--out', join(out, '17.3')]],
    ['ex:1', ['--smoke', '--out', join(out, 'ex-1')]],
    ['report', ['--out', join(out, 'report', 'index.html')]],
  ])(
    'npm run %s',
    (name, args) => {
      const result = runToFull(name, args);
      expect(result.stderr).toBe(`${name}: ${FULL}\n`);
      expect(result.status).toBe(1);
    },
    120_000,
  );

  it('runScript, which every experiment script runs in, for a script that writes at its end', () => {
    const program = `const { runScript } = await import('./experiments/common.ts'); await runScript('exp:17.1', async () => { process.stdout.write('done\\n'); });`;
    const result = spawnSync(
      '/bin/sh',
      [
        '-c',
        `${JSON.stringify(process.execPath)} --import tsx --input-type=module -e "$0" > /dev/full`,
        program,
      ],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(result.stderr).toBe(`exp:17.1: ${FULL}\n`);
    expect(result.status).toBe(1);
  }, 60_000);

  it.each(['train', 'canary', 'bench'])(
    'npm run %s (bin/tinyagent.js)',
    (name) => {
      const result = runToFull(name, ['--help']);
      expect(result.stderr).toBe(`tinyagent ${scripts[name]!.split(' ').pop()}: ${FULL}\n`);
      expect(result.status).toBe(1);
    },
    60_000,
  );
});
