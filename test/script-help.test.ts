import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultFiles, wroteLine } from '../publish/results.ts';
import { scriptHelp } from '../lib/script.ts';

const ROOT = join(import.meta.dirname, '..');
const scripts = Object.entries(
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts,
).filter(([, command]) => /^node --import tsx (experiments|publish)\//.test(command));

const run = (args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });

describe('every npm script has --help (lib/script.ts runScript)', () => {
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
      expect(help.startsWith(`${name} (${command.split(' ')[3]!})`), name).toBe(true);
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

describe('the scripts parse flags as the commands do, and say what they wrote', () => {
  it('a mistyped flag gets a hint; a flag given twice or empty is refused (exit 2, one line)', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['--sed', '1'],
        "exp:17.2: unknown flag '--sed'; did you mean --seed? (options: --seed S, --smoke, --out DIR)\n",
      ],
      [['--seed', '1', '--seed', '2'], 'exp:17.2: --seed is given twice; give it once\n'],
      [['--smoke', '--smoke'], 'exp:17.2: --smoke is given twice; give it once\n'],
      [['--out', ''], 'exp:17.2: --out is empty; give it a value\n'],
    ];
    for (const [args, stderr] of cases) {
      const result = await run(['--import', 'tsx', 'experiments/17.2.ts', ...args]);
      expect(result.stderr, args.join(' ')).toBe(stderr);
      expect(result.status).toBe(2);
    }
  }, 120_000);

  it('an experiment prints the files it wrote, last', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'tinyagent-script-wrote-'));
    const { status, stdout } = await run([
      '--import',
      'tsx',
      'experiments/17.3.ts',
      '--smoke',
      '--out',
      outDir,
    ]);
    expect(status).toBe(0);
    const written = resultFiles(outDir, '17.3');
    expect(written.every((path) => existsSync(path))).toBe(true);
    expect(written).toHaveLength(4); // JSON, Markdown, one figure as SVG and as its vega-lite spec
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(
      `wrote ${outDir}/17.3.json, ${outDir}/17.3.md and 1 figure in ${outDir}/figures (17.1-coverage-vs-episodes: .svg and .vl.json)`,
    );
    expect(wroteLine(written)).toBe(stdout.trimEnd().split('\n').at(-1));
  }, 120_000);
});
