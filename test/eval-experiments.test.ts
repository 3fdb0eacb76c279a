import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exactOverUnits, mean, sampleStandardDeviation } from '../eval/index.ts';
import { Rng } from '../lib/rng.ts';
import { passAtKCurve } from '../analysis/counts.ts';
import { ROOT } from '../lib/paths.ts';
import { main as main172 } from '../experiments/17.2.ts';
import { main as main173 } from '../experiments/17.3.ts';
import { loadWorlds } from '../analysis/index.ts';
import { improvementTruth, METHODS, mixtureIqm, narrowingRate } from '../analysis/coverageMethods.ts';
import { FLAG_BELOW } from '../experiments/coverage.ts';
import type { NumbersCoverage } from '../analysis/index.ts';
import { nodeChild } from './support/child.ts';

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
    // -0.0356 is -0.04 at the book's two decimals: inside as the book writes it, just outside exactly.
    expect(half?.bookRange).toMatchObject({ outside: false, outsideExact: true });
    expect(result.monteCarlo.filter(({ bookRange }) => bookRange.outside)).toEqual([]);
    expect(result.monteCarlo.filter(({ bookRange }) => bookRange.outsideExact).map(({ p }) => p)).toEqual([
      0.5,
    ]);
    for (const row of result.monteCarlo) expect(Math.abs(row.unbiasedBiasExact)).toBeLessThan(1e-14);
    expect(result.productForm[0]?.productForm).toBeCloseTo(1 - 21 / 252, 12);
    expect(result.productForm[1]?.productForm).toBeCloseTo(0.9689062107418256, 12);
    const json = JSON.parse(readFileSync(join(outDir, '17.2.json'), 'utf8'));
    expect(json).toMatchObject({ section: '17.2', seed: 1, smoke: true });
    expect(json.packages.seedrandom).toMatch(/^\d/);
    const markdown = readFileSync(join(outDir, '17.2.md'), 'utf8');
    expect(markdown).toMatch(/\| book \|/);
    expect(markdown).toMatch(
      /at the book's two decimals; read exactly, it is just outside at p = 0\.5 \(-0\.0356\)/,
    );
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
    // 0.928 is 0.93 at the book's two decimals.
    expect(result.verdicts.wilson.filter(({ outside }) => outside)).toEqual([]);
    expect(result.verdicts.wilson.filter(({ outsideExact }) => outsideExact).map(({ p }) => p)).toEqual([
      0.2, 0.8,
    ]);
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
      /at the book's two decimals; read exactly, it is just below at p = 0\.2, 0\.8 \(0\.928, 0\.928\)/,
    );
    expect(markdown).toMatch(
      /\| episode-level \| population mean 0\.571 \| 0\.\d{3} ± 0\.\d{3} \| 0\.\d{3} \(exact\)/,
    );
  });

  it('coverage: every reported interval method at its design in both worlds, with its MC SE and the misses on each side', async () => {
    // In a child process: a minute of computing in this worker would stall vitest's progress calls.
    const run = async (outDir: string): Promise<NumbersCoverage> => {
      const { status, stderr } = await nodeChild([
        'experiments/coverage.ts',
        '--smoke',
        '--seed',
        '1',
        '--out',
        outDir,
      ]);
      expect(status, stderr).toBe(0);
      return (JSON.parse(readFileSync(join(outDir, 'coverage.json'), 'utf8')) as { numbers: NumbersCoverage })
        .numbers;
    };
    const outDir = mkdtempSync(join(tmpdir(), 'exp-coverage-'));
    const result = await run(outDir);
    expect(result.rows.map((row) => row.id)).toEqual(METHODS.map((entry) => entry.id));
    for (const row of result.rows) {
      expect(row.worlds.map((world) => world.world)).toEqual(['observed', 'fitted']);
      for (const world of row.worlds) {
        expect(world.coverage + world.missedHigh + world.missedLow).toBeCloseTo(1, 12);
        expect(world.se).toBeCloseTo(
          Math.sqrt((world.coverage * (1 - world.coverage)) / result.simulations),
          12,
        );
        expect(world.meanWidth).toBeGreaterThan(0);
      }
      expect(row.flagged).toBe(row.worlds.some((world) => world.coverage < FLAG_BELOW));
    }
    const byId = (id: string) => result.rows.find((row) => row.id === id)!;
    expect(byId('episode-bootstrap').worlds[0]!.truth).toBeNull();
    // The observed world's truths are the committed studies': the entropy-0 recipe's difference,
    // as `study compare` measured it from the same job outputs (results/study-compare-entropy.json).
    const compared = JSON.parse(
      readFileSync(join(ROOT, 'results', 'study-compare-entropy.json'), 'utf8'),
    ) as {
      comparison: { difference: number };
    };
    expect(byId('welch').worlds[0]!.truth).toBeCloseTo(compared.comparison.difference, 10);
    // At 5 tasks of 1 sample a sample where every task passes falls back to the exact interval.
    expect(byId('task-bootstrap-boundary').worlds[0]!.exact).toBeGreaterThan(0);
    // Wilson's exact coverage dips below 0.95 somewhere at both sizes.
    for (const entry of result.wilson) expect(entry.lowest.coverage).toBeLessThan(0.95);
    const json = JSON.parse(readFileSync(join(outDir, 'coverage.json'), 'utf8'));
    expect(json).toMatchObject({ section: 'coverage', seed: 1, smoke: true });
    const markdown = readFileSync(join(outDir, 'coverage.md'), 'utf8');
    expect(markdown).toMatch(/\| method \| design \| observed world: coverage ± MC SE/);
    const again = await run(mkdtempSync(join(tmpdir(), 'exp-coverage-')));
    expect(again).toEqual(result);
  }, 300_000);

  it("the fitted world matches the study it is fitted to: its seed means spread as the study's, less evaluation noise", async () => {
    // loadWorlds verifies two studies' outputs and fits 4,000 draws: up to a minute of synchronous
    // work on a loaded machine, so it runs in a child, where it cannot stall this worker's replies
    // to vitest ("Timeout calling onTaskUpdate"). Its step-80 rows come back as JSON, exactly.
    const out = join(mkdtempSync(join(tmpdir(), 'worlds-')), 'step80.json');
    const program = `const { writeFileSync } = await import('node:fs');
      const { loadWorlds } = await import(${JSON.stringify(join(ROOT, 'analysis', 'index.ts'))});
      const [observed, fitted] = loadWorlds(${JSON.stringify(join(ROOT, 'studies/default-16'))}, ${JSON.stringify(join(ROOT, 'studies/entropy-0-8'))}, 1);
      writeFileSync(${JSON.stringify(out)}, JSON.stringify({ observed: observed.step80, fitted: fitted.step80 }));`;
    const { status, stderr } = await nodeChild(['--input-type=module', '-e', program]);
    expect(status, stderr).toBe(0);
    const { observed, fitted } = JSON.parse(readFileSync(out, 'utf8')) as Record<string, number[][]>;
    const spread = (rows: number[][]) => sampleStandardDeviation(rows.map((row) => mean(row)));
    expect(fitted!).toHaveLength(4000);
    // The study's seed-mean SD holds its evaluation noise (about 0.011 at 640 episodes); the fitted truth does not.
    expect(Math.abs(spread(fitted!) - spread(observed!))).toBeLessThan(0.02);
    // Each task's mean rate over the population is its observed mean (beta fitted by moments).
    const taskMean = (rows: number[][], t: number) => mean(rows.map((row) => row[t]!));
    for (let t = 0; t < 10; t++) expect(taskMean(fitted!, t)).toBeCloseTo(taskMean(observed!, t), 1);
  }, 300_000);

  it('refuses two studies that share no seed in one line naming both (no paired comparison to simulate)', () => {
    // The design's RL seeds come from one base agent, default-16's each from its own: none is shared.
    expect(() =>
      loadWorlds(join(ROOT, 'studies/default-16'), join(ROOT, 'studies/design-held-out/chapter-harness'), 1),
    ).toThrow(/^coverage: \S*studies\/default-16 and \S*chapter-harness share no seed/);
  });

  it("coverage's exact truths, by hand on tiny worlds", () => {
    // Seeds [0.5] and [1], 2 episodes: scores 0, 1/2, 1 with mass 1/8, 1/4, 5/8; the mean of the
    // quantile function over [0.25, 0.75] is (0.125 * 0.5 + 0.375 * 1) / 0.5.
    expect(mixtureIqm([[0.5], [1]], 2)).toBeCloseTo(0.875, 14);
    // X always 1, Y ~ Binomial(2, 1/2) / 2: P(X > Y) + P(X = Y) / 2 = 3/4 + 1/8.
    expect(improvementTruth([[1]], [[0.5]], 2)).toBeCloseTo(0.875, 14);
    // One task, step 0 always 2 of 2, step 80 Binomial(2, 1/2): it falls unless both pass.
    expect(narrowingRate([[0.5]], [[1]], 2)).toBeCloseTo(0.75, 14);
    expect(narrowingRate([[0.5, 1]], [[1, 0.5]], 1)).toBeCloseTo(0.5, 14);
  });
});

describe('the pass@k curve of 17.7 and exercise 2', () => {
  it('never gives a band of no width: where every task is solved, the exact interval over the tasks stands in', () => {
    const counts = [256, 256, 250, 256, 200];
    const curve = passAtKCurve(counts, 256, { maxK: 128, rng: new Rng('curve') });
    // Every task's pass@k is exactly 1 once k exceeds its failures (at most 56).
    const atOne = curve.filter((point) => point.k > 56);
    expect(atOne.map((point) => point.mean)).toEqual(atOne.map(() => 1));
    const exact = exactOverUnits(1, counts.length);
    for (const point of atOne) expect([point.low, point.high]).toEqual([exact.low, exact.high]);
    for (const point of curve) expect(point.low!).toBeLessThan(point.high!);
  });

  it('bands only the k it is asked to, each from its own stream', () => {
    const counts = [3, 10, 0, 64];
    const all = passAtKCurve(counts, 64, { rng: new Rng(7) });
    const some = passAtKCurve(counts, 64, { banded: (k) => k % 8 === 0, rng: new Rng(7) });
    expect(some.map((point) => point.mean)).toEqual(all.map((point) => point.mean));
    expect(some.filter((point) => point.low !== null).map((point) => point.k)).toEqual([
      8, 16, 24, 32, 40, 48, 56, 64,
    ]);
    for (const point of some) if (point.low !== null) expect(point).toEqual(all[point.k - 1]);
  });
});
