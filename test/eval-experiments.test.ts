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
    // exact plug-in bias at p = 0.5: E[1 - (1 - c/10)^5] - (1 - 0.5^5) = -57/1600 (python fractions, c ~ Binomial(10, 1/2))
    const half = result.monteCarlo.find(({ p }) => p === 0.5);
    expect(half?.plugInBiasExact).toBeCloseTo(-57 / 1600, 14);
    expect(half?.bookRange.outside).toBe(true);
    expect(result.monteCarlo.filter(({ bookRange }) => bookRange.outside).map(({ p }) => p)).toEqual([0.5]);
    for (const row of result.monteCarlo) expect(Math.abs(row.unbiasedBiasExact)).toBeLessThan(1e-14);
    expect(result.productForm[0]?.productForm).toBeCloseTo(1 - 21 / 252, 12);
    expect(result.productForm[1]?.productForm).toBeCloseTo(0.9689062107418256, 12);
    const json = JSON.parse(readFileSync(join(outDir, '17.2.json'), 'utf8'));
    expect(json).toMatchObject({ section: '17.2', seed: 1, smoke: true });
    expect(json.packages.seedrandom).toMatch(/^\d/);
    const markdown = readFileSync(join(outDir, '17.2.md'), 'utf8');
    expect(markdown).toMatch(/\| book \|/);
    expect(markdown).toMatch(/does not hold at p = 0\.5: the exact plug-in bias there is -0\.0356/);
  });

  it('17.3: Wald undercovers at p = 0.03, episode-level undercovers, Figure 17.1 written', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'exp-17.3-'));
    const result = await main173({ smoke: true, seed: 1, outDir });
    const edge = result.waldWilson.find(({ p }) => p === 0.03);
    expect(edge?.waldExact).toBeCloseTo(0.703, 2);
    expect(edge?.wilsonExact).toBeGreaterThan(0.93);
    expect(result.unit.episodeCoversPopulation).toBeLessThan(result.unit.taskCoversPopulation);
    // statsmodels 0.13.5 wilson + scipy 1.10.1 binom.pmf: exact coverage at p = 0.2, n = 40
    expect(result.waldWilson.find(({ p }) => p === 0.2)?.wilsonExact).toBeCloseTo(0.9282962831639315, 12);
    expect(result.verdicts.wilson.filter(({ outside }) => outside).map(({ p }) => p)).toEqual([0.2, 0.8]);
    // scipy 1.10.1: 10 betabinom(32, 0.4, 0.3) convolved, binomial quantiles by the cdf (see eval-exact)
    expect(result.unit.exact.episodeCoversPopulationUnlimitedReps).toBeCloseTo(0.3322231, 6);
    expect(result.unit.se.episodeCoversPopulation).toBeCloseTo(
      Math.sqrt((result.unit.episodeCoversPopulation * (1 - result.unit.episodeCoversPopulation)) / 60),
      12,
    );
    expect(result.unit.largeSimulation.taskCoversPopulation.se).toBeGreaterThan(0);
    expect(
      result.figure.every(({ episodeLevelExact }) => episodeLevelExact > 0 && episodeLevelExact < 1),
    ).toBe(true);
    expect(result.figure).toHaveLength(4);
    const svg = readFileSync(join(outDir, 'figures', '17.1-coverage-vs-episodes.svg'), 'utf8');
    expect(svg).toMatch(/^<svg/);
    expect(svg).toMatch(/episodes per task n/);
    expect(svg).toMatch(/nominal 0.95/);
    expect(existsSync(join(outDir, '17.3.md'))).toBe(true);
    const markdown = readFileSync(join(outDir, '17.3.md'), 'utf8');
    expect(markdown).toMatch(
      /"Wilson 0\.93-0\.97" does not hold at p = 0\.2, 0\.8: the exact coverage there is 0\.928, 0\.928/,
    );
    expect(markdown).toMatch(
      /\| episode-level \| population mean 0\.571 \| 0\.\d{3} ± 0\.\d{3} \| 0\.\d{3} \(exact\)/,
    );
  });
});
