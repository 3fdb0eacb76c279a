import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourcesSha256 } from '../agent/fingerprint.ts';
import { passAtK } from '../eval/index.ts';
import { TINY_TRAINING } from './support/cli.ts';

// `npm pack`, then the tarball installed as a user installs it: `npm install -g` into a prefix
// and `npm install` into a project, each from the npm registry (the local cache first). Minutes:
// the installs fetch and unpack the dependencies, TensorFlow.js among them.
const ROOT = join(import.meta.dirname, '..');
const SAMPLE = join(ROOT, 'samples', 'humaneval', 'samples.jsonl_results.jsonl');
const MINUTES = 600_000;

/** npm's settings that an enclosing `npm test` exports, less where to install: the child chooses. */
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) => !/^npm_/i.test(name) || /^npm_config_(cache|registry|userconfig)$/i.test(name),
  ),
);

/** Runs a program without blocking the test's worker (an install takes a minute). */
function run(command: string, args: string[], cwd: string) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const INSTALL = ['--prefer-offline', '--no-audit', '--no-fund'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

function versionOf(packageDir: string): string {
  return (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
}

describe('the npm package (npm pack, then npm install elsewhere)', () => {
  let dir: string;
  let tarball: string;
  let packed: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tinyagent-package-'));
    const pack = await run('npm', ['pack', '--json', '--pack-destination', dir], ROOT);
    expect(pack.status, pack.stderr).toBe(0);
    const [report] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = join(dir, report!.filename);
    packed = report!.files.map((file) => file.path);
  }, MINUTES);

  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('holds the command, the compiled statistics and readers with their types; no tests, studies, results, runs, samples or docs', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      exports: Record<string, { types: string; default: string }>;
    };
    const targets = Object.values(pkg.exports).flatMap(({ types, default: main }) => [types, main]);
    expect(targets).toEqual([
      './dist/eval/index.d.ts',
      './dist/eval/index.js',
      './dist/eval/io/index.d.ts',
      './dist/eval/io/index.js',
    ]);
    for (const target of targets) expect(packed).toContain(target.slice(2));
    for (const path of [...Object.values(pkg.bin), 'cli/main.ts', 'agent/kernels/kernels.wat', 'README.md'])
      expect(packed).toContain(path);
    const excluded = packed.filter((path) =>
      /^(test|studies|results|runs|samples|docs|node_modules)\//.test(path),
    );
    expect(excluded).toEqual([]);
    // The build holds the public faces' modules only: eval/ and the few lib/ files it imports.
    expect(packed.filter((path) => path.startsWith('dist/') && !/^dist\/(eval|lib)\//.test(path))).toEqual(
      [],
    );
  });

  it(
    'npm install -g: the tinyagent command runs from the prefix, outside the checkout',
    async () => {
      const prefix = join(dir, 'global');
      const install = await run('npm', ['install', '-g', '--prefix', prefix, ...INSTALL, tarball], dir);
      expect(install.status, install.stderr).toBe(0);
      const command = join(prefix, 'bin', 'tinyagent');

      // The top help loads every command's module: a file missing from the package fails here.
      const help = await run(command, ['--help'], dir);
      expect(help.stderr).toBe('');
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(/^ {2}passk\s/m);

      const passk = await run(
        command,
        ['passk', '--samples', '20', '--successes', '3', '--k', '1,5,10', '--json'],
        dir,
      );
      expect(passk.stderr).toBe('');
      expect(JSON.parse(passk.stdout)).toEqual({
        1: passAtK(20, 3, 1),
        5: passAtK(20, 3, 5),
        10: passAtK(20, 3, 10),
      });
      rmSync(prefix, { recursive: true, force: true });
    },
    MINUTES,
  );

  it(
    "a project's npm install: the statistics and readers import and type-check, give the command's numbers, load no TensorFlow; the command trains on wasm",
    async () => {
      const project = join(dir, 'project');
      mkdirSync(project);
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
      );
      // The TypeScript and Node types of the checkout, so that they come from the npm cache.
      const typescript = `typescript@${versionOf(join(ROOT, 'node_modules', 'typescript'))}`;
      const nodeTypes = `@types/node@${versionOf(join(ROOT, 'node_modules', '@types', 'node'))}`;
      const install = await run(
        'npm',
        ['install', '--prefix', project, ...INSTALL, tarball, typescript, nodeTypes],
        project,
      );
      expect(install.status, install.stderr).toBe(0);
      cpSync(SAMPLE, join(project, 'results.jsonl'));
      const installed = join(project, 'node_modules', 'tinyagent');

      // The library: a statistic and a reader, against the installed command on the same input.
      writeFileSync(
        join(project, 'consumer.mjs'),
        [
          "import { meanAccuracy, passAtK } from 'tinyagent';",
          "import { batchOf, readResults } from 'tinyagent/io';",
          "const tasks = batchOf(await readResults('results.jsonl'), undefined);",
          'const counts = tasks.map(({ outcomes }) => ({ n: outcomes.length, c: outcomes.reduce((a, b) => a + b, 0) }));',
          'console.log(JSON.stringify({ meanAccuracy: meanAccuracy(counts), passAt5: passAtK(20, 3, 5) }));',
        ].join('\n'),
      );
      const library = await run(process.execPath, ['consumer.mjs'], project);
      expect(library.stderr).toBe('');
      const fromLibrary = JSON.parse(library.stdout) as { meanAccuracy: number; passAt5: number };
      const command = join(project, 'node_modules', '.bin', 'tinyagent');
      const metrics = await run(command, ['metrics', 'results.jsonl', '--json'], project);
      expect(metrics.stderr).toBe('');
      const passk = await run(
        command,
        ['passk', '--samples', '20', '--successes', '3', '--k', '5', '--json'],
        project,
      );
      expect(fromLibrary).toEqual({
        meanAccuracy: (JSON.parse(metrics.stdout) as { meanAccuracy: { estimate: number } }).meanAccuracy
          .estimate,
        passAt5: (JSON.parse(passk.stdout) as Record<string, number>)['5'],
      });

      // The compiled statistics import nothing of TensorFlow.
      const dist = filesUnder(join(installed, 'dist'));
      expect(dist.length).toBeGreaterThan(0);
      expect(dist.filter((file) => readFileSync(file, 'utf8').includes('@tensorflow'))).toEqual([]);

      // The types, checked strictly, declarations included: the consumer passes; every wrong use
      // is an error (the names have their types, not `any`), and nothing else is.
      writeFileSync(
        join(project, 'consumer.ts'),
        [
          "import { passAtK, wilsonInterval, type Interval } from 'tinyagent';",
          "import { readResults, type ResultFile } from 'tinyagent/io';",
          'const file: ResultFile = await readResults(process.argv[2] ?? "results.jsonl");',
          'const interval: Interval = wilsonInterval(41, 100);',
          'export const figures: number[] = [passAtK(20, 3, 5), interval.low, file.rows.length];',
        ].join('\n'),
      );
      writeFileSync(
        join(project, 'wrong.ts'),
        [
          "import { passAtK } from 'tinyagent';",
          "import { readResults } from 'tinyagent/io';",
          'export const text: string = passAtK(20, 3, 5);',
          "export const rows: number = (await readResults('results.jsonl')).rows;",
        ].join('\n'),
      );
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            module: 'nodenext',
            target: 'es2022',
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            types: ['node'],
          },
          files: ['consumer.ts', 'wrong.ts'],
        }),
      );
      const tsc = await run(
        process.execPath,
        [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project],
        project,
      );
      const errors = tsc.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
      expect(errors.map((line) => /^(\S+)\((\d+),\d+\): error (TS\d+)/.exec(line)?.slice(1))).toEqual([
        ['wrong.ts', '3', 'TS2322'],
        ['wrong.ts', '4', 'TS2322'],
      ]);

      // The model on the wasm backend from the installed package: the fingerprint finds
      // TensorFlow.js where npm hoisted it, beside tinyagent, and the sources are the checkout's.
      writeFileSync(join(project, 'tiny.json'), JSON.stringify({ ...TINY_TRAINING, evalEvery: 1 }));
      const train = await run(
        command,
        [
          'train',
          '--steps',
          '1',
          '--bc-steps',
          '1',
          '--config',
          'tiny.json',
          '--name',
          'wasm',
          '--backend',
          'wasm',
          '--quiet',
          '--json',
        ],
        project,
      );
      expect(train.status, train.stderr).toBe(0);
      expect((JSON.parse(train.stdout) as { backend: string }).backend).toBe('wasm');
      const manifest = JSON.parse(
        readFileSync(join(project, 'runs', 'wasm', 'step-1', 'manifest.json'), 'utf8'),
      ) as { fingerprint: Record<string, string> };
      const tfjs = join(project, 'node_modules', '@tensorflow');
      expect(manifest.fingerprint).toMatchObject({
        backend: 'wasm',
        tfjs: versionOf(join(tfjs, 'tfjs')),
        backendVersion: versionOf(join(tfjs, 'tfjs-backend-wasm')),
        sources: sourcesSha256(),
      });
      rmSync(project, { recursive: true, force: true });
    },
    MINUTES,
  );
});
