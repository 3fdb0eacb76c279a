import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { progressBar, type OffTerminal } from '../lib/progress.ts';
import { writePlan } from '../study/plan.ts';
import { TINY_TRAINING } from './support/cli.ts';
import { cliChild } from './support/child.ts';

const workDir = mkdtempSync(join(tmpdir(), 'tinyagent-progress-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function written(terminal: boolean, offTerminal: OffTerminal): string {
  let text = '';
  const bar = progressBar('phase', 3, { terminal, offTerminal, write: (chunk) => (text += chunk) });
  for (const done of [1, 2, 3]) bar.tick(done, `item ${done}`);
  bar.done('finished');
  return text;
}

describe('progress off a terminal is lines, on one a bar', () => {
  it('phases: a line at the start and one at the end', () => {
    expect(written(false, 'phases').split('\n')).toEqual([
      'phase: started, 3 to do',
      expect.stringMatching(/^phase: done, 3\/3 in \d+s finished$/),
      '',
    ]);
  });

  it('ticks: a line for each unit done', () => {
    expect(written(false, 'ticks').split('\n')).toEqual([
      expect.stringMatching(/^phase 1\/3 \d+s item 1$/),
      expect.stringMatching(/^phase 2\/3 \d+s item 2$/),
      expect.stringMatching(/^phase 3\/3 \d+s item 3$/),
      '',
    ]);
  });

  it('silent: nothing; on a terminal: a bar redrawn in place, whatever is asked off one', () => {
    expect(written(false, 'silent')).toBe('');
    const bar = written(true, 'ticks');
    expect(bar).toMatch(/^\rphase \[#+\.*\] 1\/3 /);
    expect(bar).toMatch(/\rphase \[#{24}\] 3\/3 \d+s finished\x1b\[K\n$/);
    expect(bar).not.toMatch(/started/);
  });
});

describe('commands with piped output print progress lines', () => {
  it('train: a line at the start and the end of behaviour cloning and of each GRPO segment', async () => {
    const config = join(workDir, 'tiny.json');
    writeFileSync(config, JSON.stringify({ ...TINY_TRAINING, evalEvery: 1, parallel: false }));
    const args = ['train', '--bc-steps', '2', '--steps', '1', '--config', config, '--runs-dir', workDir];
    const trained = await cliChild([...args, '--name', 'tiny']);
    expect(trained.status).toBe(0);
    const lines = trained.stderr.split('\n');
    const start = lines.indexOf('behaviour cloning: started, 2 to do');
    expect(start).toBeGreaterThanOrEqual(0);
    expect(lines[start + 1]).toMatch(/^behaviour cloning: done, 2\/2 in \d+s loss \d+\.\d{3}$/);
    expect(lines).toContain('grpo 0->1: started, 1 to do');
    expect(lines.some((line) => /^grpo 0->1: done, 1\/1 in \d+s reward -?\d+\.\d{2}$/.test(line))).toBe(true);
    expect(trained.stderr).not.toMatch(/\r/);
    // --quiet: no progress lines either.
    const quiet = await cliChild([...args, '--name', 'tiny-quiet', '--quiet']);
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).toBe('');
  }, 300_000);

  it('study run: one line per job done', async () => {
    const dir = join(workDir, 'study');
    const plan = writePlan(dir, { recipe: 'smoke', seeds: [0], evalSeed: 1, steps: [0] });
    const result = await cliChild(['study', 'run', dir, '--jobs', '1']);
    expect(result.status).toBe(0);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(plan.jobs.length);
    lines.forEach((line, i) =>
      expect(line).toMatch(new RegExp(`^study ${i + 1}/${plan.jobs.length} \\d+s \\S+$`)),
    );
    expect(lines.map((line) => line.split(' ').pop()).sort()).toEqual(plan.jobs.map((job) => job.id).sort());
  }, 300_000);
});
