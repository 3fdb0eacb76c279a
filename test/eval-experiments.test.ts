import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as main172 } from '../experiments/17.2.ts';
import { main as main173 } from '../experiments/17.3.ts';

describe('experiments (smoke)', () => {
  it('17.2: plug-in biased low, unbiased on target, product form = exact', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'exp-17.2-'));
    const result = await main172({ smoke: true, seed: 1, outDir });
    for (const row of result.monteCarlo) {
      expect(row.plugInBias).toBeLessThan(-0.02);
      expect(Math.abs(row.unbiasedBias)).toBeLessThan(5 * row.monteCarloSE + 1e-9);
    }
    expect(result.productForm[0]?.productForm).toBeCloseTo(1 - 21 / 252, 12);
    expect(result.productForm[1]?.productForm).toBeCloseTo(0.9689062107418256, 12);
    const json = JSON.parse(readFileSync(join(outDir, '17.2.json'), 'utf8'));
    expect(json).toMatchObject({ section: '17.2', seed: 1, smoke: true });
    expect(json.packages.seedrandom).toMatch(/^\d/);
    expect(readFileSync(join(outDir, '17.2.md'), 'utf8')).toMatch(/\| book \|/);
  });

  it('17.3: Wald undercovers at p = 0.03, episode-level undercovers, Figure 17.1 written', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'exp-17.3-'));
    const result = await main173({ smoke: true, seed: 1, outDir });
    const edge = result.waldWilson.find(({ p }) => p === 0.03);
    expect(edge?.waldExact).toBeCloseTo(0.703, 2);
    expect(edge?.wilsonExact).toBeGreaterThan(0.93);
    expect(result.unit.episodeCoversPopulation).toBeLessThan(result.unit.taskCoversPopulation);
    expect(result.figure).toHaveLength(4);
    const svg = readFileSync(join(outDir, 'figures', '17.1-coverage-vs-episodes.svg'), 'utf8');
    expect(svg).toMatch(/^<svg/);
    expect(svg).toMatch(/episodes per task n/);
    expect(svg).toMatch(/nominal 0.95/);
    expect(existsSync(join(outDir, '17.3.md'))).toBe(true);
  });
});
