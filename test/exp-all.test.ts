import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../lib/paths.ts';
import { EXPERIMENTS, fileDifferences } from '../experiments/repro.ts';
import { resultsToQuote } from '../experiments/common.ts';
import { parseRunOptions } from '../experiments/runs.ts';
import { nodeChild } from './support/child.ts';

const root = mkdtempSync(join(tmpdir(), 'tinyagent-exp-all-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// The experiments that need no trained run (pure statistics, or reading the committed studies),
// each with its script: they run here at full size in about a minute per entry point; test:repro
// reruns the others the same way.
const WITHOUT_RUNS: Record<string, string> = {
  '17.2': '17.2.ts',
  '17.3': '17.3.ts',
  'ex-1': 'ex-1.ts',
  'ex-7': 'ex-7.ts',
  seeds: 'seeds.ts',
  recipes: 'recipes.ts',
  'recipe-claims': 'recipe-claims.ts',
  design: 'design.ts',
};

/** Every committed file of each section rewritten in `outDir` byte for byte (the machine's part aside), at the committed seed. */
function expectCommitted(outDir: string): void {
  for (const section of Object.keys(WITHOUT_RUNS)) {
    const seedOf = (dir: string) =>
      (JSON.parse(readFileSync(join(dir, `${section}.json`), 'utf8')) as { seed: number }).seed;
    expect(seedOf(outDir), section).toBe(seedOf(join(ROOT, 'results')));
    expect(fileDifferences(section, { expectedDir: join(ROOT, 'results'), outDir }), section).toEqual([]);
  }
}

describe('a section quoting another reads what its batch wrote', () => {
  it('the file its batch wrote when the batch has run that section, else the committed one', () => {
    const dir = mkdtempSync(join(root, 'quote-'));
    const committed = join(ROOT, 'results', 'coverage.json');
    expect(resultsToQuote('coverage', undefined)).toBe(committed);
    expect(resultsToQuote('coverage', { dir, sections: ['17.2'] })).toBe(committed);
    expect(resultsToQuote('coverage', { dir, sections: ['coverage', '17.2'] })).toBe(
      join(dir, 'coverage.json'),
    );
  });

  it('outside a batch, never a file an earlier run left beside the output', async () => {
    const outDir = mkdtempSync(join(root, 'stale-'));
    writeFileSync(join(outDir, '17.4.json'), '{"numbers": {"paired": {"correlation": 0.99}}}');
    const { main } = await import('../experiments/ex-7.ts');
    await main({ outDir });
    const quoted = (dir: string) =>
      (JSON.parse(readFileSync(join(dir, 'ex-7.json'), 'utf8')) as { numbers: unknown }).numbers;
    expect(quoted(outDir)).toEqual(quoted(join(ROOT, 'results')));
  });

  it('the batch (exp:all, test:repro, the rebaseline) makes every quoted section before the sections quoting it', () => {
    const order = Object.keys(EXPERIMENTS);
    const quotes = order.flatMap((section) =>
      [
        ...readFileSync(join(ROOT, 'experiments', `${section}.ts`), 'utf8').matchAll(
          /resultsToQuote\(\s*'([^']+)'/g,
        ),
      ].map((match) => ({ section, quoted: match[1]! })),
    );
    // The five sections quoting coverage and ex-7 quoting 17.4: a test that finds none would pass vacuously.
    expect(quotes.length).toBeGreaterThanOrEqual(6);
    for (const { section, quoted } of quotes) {
      expect(order, `${section} quotes ${quoted}`).toContain(quoted);
      expect(order.indexOf(quoted), `${section} quotes ${quoted}`).toBeLessThan(order.indexOf(section));
    }
  });
});

describe('every entry point rewrites the committed results', () => {
  it('exp:all leaves the seed to each experiment unless --seed is given', () => {
    expect(parseRunOptions([])).not.toHaveProperty('seed');
    expect(parseRunOptions(['--seed', '5']).seed).toBe(5);
  });

  it('each script alone, without --seed', async () => {
    const outDir = join(root, 'alone');
    for (const script of Object.values(WITHOUT_RUNS)) {
      const { status, stderr } = await nodeChild([join('experiments', script), '--out', outDir]);
      expect(status, `${script}: ${stderr}`).toBe(0);
    }
    expectCommitted(outDir);
  }, 600_000); // about a minute alone; a hang, not slowness, at this bound

  it('exp:all, without --seed', async () => {
    const outDir = join(root, 'all');
    const only = JSON.stringify(Object.keys(WITHOUT_RUNS));
    const program = `const { main } = await import(${JSON.stringify(join(ROOT, 'experiments', 'all.ts'))}); await main({ outDir: ${JSON.stringify(outDir)} }, { only: (section) => ${only}.includes(section) });`;
    const { status, stderr } = await nodeChild(['--input-type=module', '-e', program]);
    expect(status, stderr).toBe(0);
    expectCommitted(outDir);
  }, 600_000);
});
