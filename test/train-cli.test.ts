import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, TINY_TRAINING } from './support/cli.ts';

const workDir = mkdtempSync(join(tmpdir(), 'tinyagent-cli-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('train and eval commands', () => {
  it('trains a tiny run, then evaluates its checkpoint with the documented JSON keys and writes a result file', async () => {
    const config = join(workDir, 'tiny.json');
    writeFileSync(config, JSON.stringify({ ...TINY_TRAINING, evalEvery: 1, parallel: false }));
    const trained = await cli([
      'train',
      '--bc-steps',
      '2',
      '--steps',
      '1',
      '--config',
      config,
      '--runs-dir',
      workDir,
      '--name',
      'tiny',
      '--quiet',
      '--json',
    ]);
    expect(trained.code).toBe(0);
    const summary = JSON.parse(trained.stdout) as {
      snapshots: string[];
      backend: string;
      parameterCount: number;
    };
    expect(summary.snapshots).toEqual([join(workDir, 'tiny', 'step-0'), join(workDir, 'tiny', 'step-1')]);
    expect(Math.abs(summary.parameterCount / 158_000 - 1)).toBeLessThan(0.02);

    const out = join(workDir, 'eval.jsonl');
    const evaluated = await cli([
      'eval',
      '--checkpoint',
      summary.snapshots[1]!,
      '--episodes',
      '2',
      '--seed',
      '3',
      '--out',
      out,
      '--json',
    ]);
    expect(evaluated.code).toBe(0);
    const report = JSON.parse(evaluated.stdout) as Record<string, unknown> & {
      perTask: Array<Record<string, unknown>>;
      checkpoint: { step: number };
    };
    for (const key of [
      'passAt1',
      'perTask',
      'firstEdit',
      'harness',
      'harnessHash',
      'checkpoint',
      'backend',
      'meanReadCalls',
    ])
      expect(report).toHaveProperty(key);
    expect(report.perTask).toHaveLength(10);
    expect(Object.keys(report.perTask[0]!).sort()).toEqual(['episodes', 'name', 'successes', 'task', 'type']);
    expect(report.checkpoint.step).toBe(1);
    expect(report.backend).toBe(summary.backend);
    expect(existsSync(out)).toBe(true);

    // The result file feeds the metrics tool.
    const metrics = await cli(['metrics', out, '--k', '1,2', '--reps', '200', '--json']);
    expect(JSON.parse(metrics.stdout).tasks).toBe(10);

    // The same seed gives the same counts.
    const again = await cli([
      'eval',
      '--checkpoint',
      summary.snapshots[1]!,
      '--episodes',
      '2',
      '--seed',
      '3',
      '--json',
    ]);
    expect((JSON.parse(again.stdout) as typeof report).perTask).toEqual(report.perTask);
  });

  it('--seeds trains several seeds into runs/seed-N, resumes them, and tables their held-out pass@1', async () => {
    const config = join(workDir, 'tiny-seeds.json');
    writeFileSync(config, JSON.stringify({ ...TINY_TRAINING, evalEvery: 1, parallel: false }));
    const argv = [
      'train',
      '--seeds',
      '0,1',
      '--bc-steps',
      '1',
      '--steps',
      '1',
      '--config',
      config,
      '--runs-dir',
      workDir,
      '--quiet',
    ];
    const first = await cli([...argv, '--json']);
    expect(first.code).toBe(0);
    const rows = JSON.parse(first.stdout) as Array<{
      seed: number;
      runDir: string;
      passAt1: number;
      perTask: Array<{ episodes: number }>;
    }>;
    expect(rows.map((row) => [row.seed, row.runDir])).toEqual([
      [0, join(workDir, 'seed-0')],
      [1, join(workDir, 'seed-1')],
    ]);
    expect(
      rows.every((row) => row.perTask.length === 10 && row.perTask.every((count) => count.episodes === 32)),
    ).toBe(true);
    // A second call resumes both runs and measures the same checkpoints on the same episodes.
    const again = await cli(argv);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('held-out pass@1 at step 1, 32 episodes per task');
    expect(again.stdout).toMatch(new RegExp(`^0\\s+${rows[0]!.passAt1.toFixed(3)}`, 'm'));
    expect(again.stdout).toMatch(/spread \(max - min\) \d\.\d{3}/);
    expect((await cli(['train', '--seeds', '0,0'])).code).toBe(2);
    expect((await cli(['train', '--seeds', '1,2', '--seed', '3'])).code).toBe(2);
    expect((await cli(['train', '--seeds', '-1'])).code).toBe(2);
  });

  it('rejects bad flags with exit code 2 and bad config files with the field named', async () => {
    expect((await cli(['train', '--steps', 'many'])).code).toBe(2);
    const bad = join(workDir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ learningRat: 0.1 }));
    const unknown = await cli(['train', '--config', bad, '--runs-dir', workDir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/learningRat/);
    writeFileSync(bad, JSON.stringify({ maxTurns: -1 }));
    expect((await cli(['train', '--config', bad, '--runs-dir', workDir])).stderr).toMatch(/maxTurns/);
    const missing = await cli(['eval', '--checkpoint', join(workDir, 'nothing-here')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/npm run train/);
  });
});
