import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptHelp } from '../experiments/common.ts';

const ROOT = join(import.meta.dirname, '..');
const scripts = Object.entries(
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts,
).filter(([, command]) => command.startsWith('node --import tsx experiments/'));

const run = (args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });

describe('every npm script has --help (experiments/common.ts runScript)', () => {
  it('lists the experiment scripts (exp:*, ex:*, report, test:repro)', () => {
    const names = scripts.map(([name]) => name);
    for (const name of [
      'exp:17.1',
      'exp:17.9',
      'exp:all',
      'exp:seeds',
      'ex:1',
      'ex:7',
      'ex:all',
      'report',
      'test:repro',
    ])
      expect(names).toContain(name);
  });

  it("prints each script's header, with its command and flags, from the one runScript", () => {
    for (const [name, command] of scripts) {
      const file = join(ROOT, command.split(' ')[3]!);
      expect(readFileSync(file, 'utf8'), file).toContain(`runScript('${name}'`);
      const help = scriptHelp(name, file);
      expect(help.startsWith(`${name} (experiments/`), name).toBe(true);
      expect(help, name).toContain(`npm run ${name}`);
      expect(help, name).toMatch(/\nCommand: [\s\S]*\nOutput: /);
      expect(help, name).toMatch(/Exit codes: 0 done/);
    }
  });

  it(
    '--help and -h print it and exit 0 before any other flag is parsed (a real script of each kind)',
    { timeout: 120_000 },
    async () => {
      const cases: Array<[string[], string]> = [
        [['experiments/17.2.ts', '--help'], 'exp:17.2'],
        [['experiments/17.7.ts', '--smoke', '-h'], 'exp:17.7'],
        [['experiments/repro.ts', '--help'], 'test:repro'],
      ];
      for (const [args, name] of cases) {
        const { status, stdout, stderr } = await run(['--import', 'tsx', ...args]);
        expect(stderr).toBe('');
        expect(status).toBe(0);
        expect(stdout).toBe(scriptHelp(name, join(ROOT, args[0]!)));
      }
      expect((await run(['--import', 'tsx', 'experiments/17.2.ts', '--bogus'])).status).toBe(2);
    },
  );
});
