import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.ts';

describe('gym CLI', () => {
  it('tasks --json lists one row per task with the documented fields', async () => {
    const { code, stdout } = await cli(['tasks', '--json']);
    expect(code).toBe(0);
    const rows = JSON.parse(stdout) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(30);
    expect(Object.keys(rows[4]!).sort()).toEqual(['id', 'name', 'repairOp', 'split', 'type', 'variant']);
    expect(rows[4]).toEqual({
      id: 4,
      name: 'speed',
      type: 'zero',
      variant: 4,
      split: 'heldout',
      repairOp: 'add_zero_guard',
    });
    const heldOut = JSON.parse(
      (await cli(['tasks', '--split', 'heldout', '--held-out-type', 'compare', '--json'])).stdout,
    ) as Array<{ type: string }>;
    expect(heldOut.map((row) => row.type)).toEqual(Array(6).fill('compare'));
  });

  it('canary --json has results, harnesses and seed, and exits 0', async () => {
    const { code, stdout } = await cli(['canary', '--episodes', '5', '--seed', '4', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      results: Array<Record<string, unknown>>;
      harnesses: Record<string, { hash: string }>;
      seed: number;
    };
    expect(report.seed).toBe(4);
    expect(report.results).toHaveLength(12);
    expect(Object.keys(report.results[0]!)).toEqual(
      expect.arrayContaining([
        'policy',
        'env',
        'reward',
        'episodes',
        'meanReward',
        'successRate',
        'harnessHash',
        'ok',
      ]),
    );
    expect(report.results[0]).toMatchObject({
      policy: 'oracle',
      env: 'train',
      reward: 'hidden',
      episodes: 150,
      meanReward: 1,
      successRate: 1,
      ok: true,
    });
    expect(Object.keys(report.harnesses)).toHaveLength(3);
  });

  it('exits 2 with a one-line message on a bad flag', async () => {
    for (const argv of [
      ['canary', '--episodes', 'many'],
      ['tasks', '--split', 'test'],
      ['canary', '--bogus'],
      ['play', '--task', 'nope'],
    ]) {
      const { code, stderr } = await cli(argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('play works with piped stdin and shows the protocol exactly', () => {
    const bin = fileURLToPath(new URL('../bin/tinyagent.js', import.meta.url));
    const result = spawnSync(process.execPath, [bin, 'play', '--task', 'under_cap', '--harness', 'plain'], {
      input: 'read <end>\nedit fix_comparison <end>\ntest <end>\nsubmit <end>\n',
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      '<task> under_cap : true when total plus item is at most cap </task> <act>',
    );
    expect(result.stdout).toContain('<obs> tests 2 of 2 passed </obs>');
    expect(result.stdout).toContain('terminated (submitted): reward 1');
  });
});
