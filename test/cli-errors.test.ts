import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../agent/index.ts';
import { defaultRLConfig } from '../train/index.ts';
import { reportError } from '../cli/main.ts';
import { oneLine } from '../lib/text.ts';
import { cli, expectCliError as expectError } from './support/cli.ts';
import { saveUntrainedCheckpoint } from './support/checkpoint.ts';
import { ROOT as ROOT_DIR } from '../lib/paths.ts';
import { makeFolders } from '../lib/files.ts';
import { duplicatedKeyPath } from '../lib/json.ts';
import { BIN } from './support/child.ts';

// The error contract of every command and experiment script (README, "Exit codes"): usage
// errors exit 2, bad data 1, a bug 3, each reported in one line.

let root: string;
let good: string;
const savedBackendEnv = process.env['TINYAGENT_BACKEND'];

beforeAll(async () => {
  await initBackend({ preference: 'wasm' });
  root = mkdtempSync(join(tmpdir(), 'tinyagent-cli-errors-'));
  good = join(root, 'good');
  saveUntrainedCheckpoint(good);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

afterEach(() => {
  if (savedBackendEnv === undefined) delete process.env['TINYAGENT_BACKEND'];
  else process.env['TINYAGENT_BACKEND'] = savedBackendEnv;
});

describe('exit codes: usage errors exit 2, data errors exit 1, one line each', () => {
  it('train', async () => {
    await expectError(['train', '--seed', '-1'], 2, /--seed must be in \[0, 2147483647\], got -1/);
    await expectError(['train', '--seed=-1'], 2, /--seed must be in \[0, 2147483647\], got -1/);
    await expectError(['train', '--seed', '0x10'], 2, /--seed must be a decimal integer, got '0x10'/);
    await expectError(['train', '--steps', '10001'], 2, /--steps must be in \[0, 10000\]/);
    await expectError(['train', '--bc-steps', '1e3'], 2, /--bc-steps must be a decimal integer/);
    await expectError(['train', '--name', '..'], 2, /--name must be/);
    await expectError(['train', '--bogus'], 2, /unknown flag '--bogus'/);
    process.env['TINYAGENT_BACKEND'] = 'bogus';
    await expectError(['train', '--runs-dir', root], 2, /TINYAGENT_BACKEND='bogus' is not a backend/);
    delete process.env['TINYAGENT_BACKEND'];
    const broken = join(root, 'broken.json');
    writeFileSync(broken, '{"seed": 1,\n  }\n');
    await expectError(
      ['train', '--config', broken, '--runs-dir', root],
      1,
      /broken\.json: not valid JSON \(.*line 2, column 3\)$/,
    );
    await expectError(
      ['train', '--config', join(root, 'absent.json'), '--runs-dir', root],
      1,
      /--config: no such file/,
    );
    writeFileSync(broken, JSON.stringify({ steps: 100_000_000 }));
    await expectError(['train', '--config', broken, '--runs-dir', root], 1, /steps: Too big/);
    await expectError(['train', '--runs-dir', broken, '--name', 'x'], 1, /broken\.json\/x: ENOTDIR/);
  });

  it('eval', async () => {
    await expectError(
      ['eval', '--checkpoint', good, '--episodes', '100000000'],
      2,
      /--episodes must be in \[1, 1024\], got 100000000/,
    );
    await expectError(
      ['eval', '--checkpoint', good, '--temperature', '0x1'],
      2,
      /--temperature must be a decimal number/,
    );
    await expectError(
      ['eval', '--checkpoint', good, '--max-turns', '3001'],
      2,
      /--max-turns must be in \[1, 1000\]/,
    );
    await expectError(['eval'], 2, /--checkpoint DIR is required/);
    process.env['TINYAGENT_BACKEND'] = 'bogus';
    await expectError(['eval', '--checkpoint', good], 2, /TINYAGENT_BACKEND='bogus'/);
    delete process.env['TINYAGENT_BACKEND'];
    // A usage error is reported before a missing folder.
    await expectError(['eval', '--checkpoint', join(root, 'none'), '--seed', '-2'], 2, /--seed/);
    await expectError(
      ['eval', '--checkpoint', join(root, 'none')],
      1,
      /does not exist; train one with `npm run train`/,
    );
  });

  it('play', async () => {
    await expectError(['play'], 2, /--task is required/);
    await expectError(['play', '--task', 'speed', '--seed', '0x10'], 2, /decimal integer/);
    await expectError(['play', '--task', '__proto__'], 2, /no task '__proto__'/);
  });

  it('tasks', async () => {
    await expectError(['tasks', '--split', 'test'], 2, /--split must be one of all, train, heldout/);
    await expectError(['tasks', 'extra'], 2, /unexpected argument 'extra'/);
  });

  it('canary', async () => {
    await expectError(['canary', '--episodes', '100000'], 2, /--episodes must be in \[1, 256\]/);
    await expectError(['canary', '--seed', '-5'], 2, /--seed must be in \[0, 2147483647\], got -5/);
  });

  it('bench', async () => {
    await expectError(['bench', '--only', 'nope'], 2, /unknown suite 'nope'/);
    // a suite named twice would run twice, its second figures over its first
    await expectError(
      ['bench', '--only', 'gym,eval, gym'],
      2,
      /tinyagent bench: --only: suite 'gym' is given twice/,
    );
    // The PyTorch reference is optional: asked for, and missing, it is one line naming the package.
    await expectError(
      ['bench', '--only', 'model', '--torch'],
      2,
      /--torch times the training step: it needs the train suite/,
    );
    await expectError(['bench', '--only', 'gym', '--python', 'python3'], 2, /--python goes with --torch/);
    await expectError(
      ['bench', '--only', 'train', '--torch', '--python', join(root, 'no-python')],
      1,
      /--torch: no Python with PyTorch \(tried .*no-python\); install python3-torch/,
    );
    process.env['TINYAGENT_BACKEND'] = 'bogus';
    await expectError(['bench', '--only', 'gym'], 2, /TINYAGENT_BACKEND='bogus'/);
  });

  it('an unknown command, even an Object.prototype name, is a usage error', async () => {
    for (const name of ['__proto__', 'constructor', 'toString']) {
      const result = await cli([name]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`tinyagent: unknown command '${name}' (try tinyagent --help)\n`);
    }
  });
});

describe('an error that reaches the top', () => {
  it('an unexpected error is one line with exit 3; the stack only with TINYAGENT_DEBUG=1', () => {
    const writes: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => {
      writes.push(chunk);
      return true;
    }) as typeof process.stderr.write;
    const savedDebug = process.env['TINYAGENT_DEBUG'];
    try {
      delete process.env['TINYAGENT_DEBUG'];
      expect(reportError('eval', new TypeError(`boom\n${'x'.repeat(40_000)}\n    at somewhere`))).toBe(3);
      expect(writes).toHaveLength(1);
      expect(writes[0]).toMatch(
        /^tinyagent eval: internal error: TypeError: boom x+\.\.\. \(TINYAGENT_DEBUG=1 shows the stack\)\n$/,
      );
      expect(writes[0]!.length).toBeLessThan(700);
      process.env['TINYAGENT_DEBUG'] = '1';
      writes.length = 0;
      expect(reportError('eval', new Error('boom'))).toBe(3);
      expect(writes.join('')).toMatch(/^tinyagent eval: internal error: Error: boom\nError: boom\n\s+at /);
    } finally {
      process.stderr.write = original;
      if (savedDebug === undefined) delete process.env['TINYAGENT_DEBUG'];
      else process.env['TINYAGENT_DEBUG'] = savedDebug;
    }
  });

  it('oneLine folds newlines and bounds the length', () => {
    expect(oneLine('a\n  b\r\nc')).toBe('a b c');
    expect(oneLine('y'.repeat(1000), 10)).toBe(`${'y'.repeat(10)}...`);
  });
});

describe('experiment scripts end an error in one line', () => {
  it('a run folder holding no run config, or a corrupt checkpoint: one line naming it, exit 1, no stack', () => {
    const root = mkdtempSync(join(tmpdir(), 'tinyagent-exp-error-'));
    try {
      const badRun = join(root, 'bad-config');
      mkdirSync(badRun);
      writeFileSync(join(badRun, 'config.json'), '{');
      const badCheckpoint = join(root, 'bad-checkpoint');
      mkdirSync(join(badCheckpoint, 'step-80'), { recursive: true });
      writeFileSync(join(badCheckpoint, 'config.json'), JSON.stringify({ config: defaultRLConfig() }));
      writeFileSync(join(badCheckpoint, 'step-80', 'manifest.json'), '{"format":"x"}');
      const noConfig = join(root, 'no-config');
      mkdirSync(join(noConfig, 'step-80'), { recursive: true });
      writeFileSync(join(noConfig, 'step-80', 'manifest.json'), '{"format":"x"}');
      for (const [run, expected] of [
        [badRun, /config\.json is not a run's config/],
        [badCheckpoint, /not a TinyAgent checkpoint/],
        [noConfig, /holds snapshots but no config\.json: not a training run's folder/],
      ] as const) {
        const result = spawnSync(process.execPath, ['--import', 'tsx', 'experiments/17.9.ts', '--run', run], {
          cwd: ROOT_DIR,
          encoding: 'utf8',
          env: { ...process.env, TINYAGENT_DEBUG: '' },
        });
        expect(result.status, result.stderr).toBe(1);
        const lines = result.stderr.trim().split('\n');
        expect(lines.at(-1)).toMatch(/^exp:17\.9: /);
        expect(lines.at(-1)).toMatch(expected);
        expect(result.stderr).not.toMatch(/\n\s+at |Module\["asm"\]/);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('config files and output paths', () => {
  it('a key given twice in a config or recipe is refused with its path, not read as the last', async () => {
    const config = join(root, 'twice.json');
    writeFileSync(config, '{"steps": 8,\n "bcSteps": 1, "steps": 80}\n');
    await expectError(
      ['train', '--config', config, '--runs-dir', root],
      1,
      /twice\.json: the key 'steps' is given twice/,
    );
    expect(duplicatedKeyPath('{"a": {"b": 1, "c": [{"d": 1, "d": 2}]}}')).toBe('a.c[].d');
    expect(duplicatedKeyPath('{"a": {"b": 1}, "c": {"b": 2}, "s": "\\"a\\": 1"}')).toBeUndefined();
    const recipe = join(root, 'recipe-twice.json');
    writeFileSync(recipe, '{"entropyCoef": 0, "entropyCoef": 0.01}');
    await expectError(
      ['study', 'plan', '--recipe', recipe, '--seeds', '0', '--out', join(root, 'study-twice')],
      1,
      /recipe-twice\.json: the key 'entropyCoef' is given twice/,
    );
  });

  it('a flag does not hide an invalid field of the config file it overrides', async () => {
    const config = join(root, 'fractional.json');
    writeFileSync(config, JSON.stringify({ steps: 1.5 }));
    await expectError(
      ['train', '--config', config, '--steps', '0', '--runs-dir', root],
      1,
      /fractional\.json: invalid config: config\.steps/,
    );
    const recipe = join(root, 'parallel-yes.json');
    writeFileSync(recipe, JSON.stringify({ parallel: 'yes' }));
    await expectError(
      [
        'study',
        'plan',
        '--recipe',
        recipe,
        '--seeds',
        '0',
        '--threads',
        '2',
        '--out',
        join(root, 'study-yes'),
      ],
      1,
      /parallel-yes\.json: invalid config: config\.parallel/,
    );
  });

  it("an output path under /proc is one line naming it, exit 1 (Node's own recursive mkdir never returns there)", async () => {
    expect(() => makeFolders('/proc/tinyagent-no-such/x')).toThrow(
      /ENOENT.*mkdir '\/proc\/tinyagent-no-such'/,
    );
    await expectError(
      ['canary', '--episodes', '1', '--out', '/proc/tinyagent-no-such/c.json'],
      1,
      /cannot write \/proc\/tinyagent-no-such\/c\.json: ENOENT/,
    );
    await expectError(
      ['train', '--runs-dir', '/proc/tinyagent-no-such', '--steps', '0', '--bc-steps', '0', '--quiet'],
      1,
      /\/proc\/tinyagent-no-such\/default: ENOENT/,
    );
    const nested = join(root, 'made', 'a', 'b');
    makeFolders(nested);
    makeFolders(nested); // there already: fine
    expect(statSync(nested).isDirectory()).toBe(true);
    writeFileSync(join(root, 'a-file'), '');
    expect(() => makeFolders(join(root, 'a-file', 'x'))).toThrow(/ENOTDIR/);
  });

  it('a deleted current folder is one line before the TypeScript loader starts, exit 1', () => {
    const result = spawnSync(
      '/bin/sh',
      ['-c', `mkdir gone && cd gone && rmdir ../gone && exec "${process.execPath}" "${BIN}" tasks`],
      { cwd: mkdtempSync(join(root, 'cwd-')), encoding: 'utf8' },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'tinyagent tasks: the current folder no longer exists (ENOENT); cd into one that does\n',
    );
  });
});
