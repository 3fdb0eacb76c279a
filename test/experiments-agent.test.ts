import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main as main171 } from '../experiments/17.1.ts';
import { main as main174 } from '../experiments/17.4.ts';
import { main as main175 } from '../experiments/17.5.ts';
import { main as main176 } from '../experiments/17.6.ts';
import { main as main177, searchSeedRuns } from '../experiments/17.7.ts';
import { report as report177 } from '../publish/sections/17.7.ts';
import { main as main178 } from '../experiments/17.8.ts';
import { main as main179 } from '../experiments/17.9.ts';
import { resultsDir, seedRun, stepOf, trainingSeedOf } from '../experiments/runs.ts';
import { smokeProblems } from '../experiments/repro.ts';

// One smoke training run (snapshots every step to step 8) serves every experiment here; the
// first experiment trains it, the others find it.
const root = mkdtempSync(join(tmpdir(), 'tinyagent-exp-'));
const run = join(root, 'runs', 'default-smoke');
const outDir = join(root, 'results');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * The smoke numbers must equal the committed expectations in results/smoke/ exactly (training and
 * evaluation are deterministic on one machine and backend): the CI-sized part of `npm run
 * test:repro`. After a change that moves them, `npm run test:repro -- --update-smoke` rewrites them.
 */
function expectSmoke(section: string): void {
  expect(smokeProblems(section, outDir, join(root, 'runs'))).toEqual([]);
}

describe('experiments on trained checkpoints (smoke)', () => {
  it('17.1 trains the missing run, then counts per task for step 0 and step 80 with first edits and the 17.3 cluster numbers', async () => {
    const result = await main171({ run, seed: 1, smoke: true, outDir });
    expect(existsSync(join(run, 'step-8', 'manifest.json'))).toBe(true);
    expect(result.agents.map((agent) => agent.step)).toEqual([0, 80]);
    for (const agent of result.agents) {
      expect(agent.perTask).toHaveLength(10);
      expect(agent.perTask.every((count) => count.episodes === 4)).toBe(true);
      expect(
        Object.values(agent.firstEditByTask).every(
          (counts) => Object.values(counts).reduce((a, b) => a + b, 0) === 4,
        ),
      ).toBe(true);
      expect(agent.clusters.taskLevel.low).toBeLessThanOrEqual(agent.passAt1);
      expect(agent.clusters.taskLevel.high).toBeGreaterThanOrEqual(agent.passAt1);
    }
    const markdown = readFileSync(join(outDir, '17.1.md'), 'utf8');
    expect(markdown).toMatch(/\| book \|/);
    expect(markdown).toMatch(/smoke run/);
    expect(JSON.parse(readFileSync(join(outDir, '17.1.json'), 'utf8')).numbers[1].checkpoint.step).toBe(8);
    expectSmoke('17.1');
  });

  it('17.4 trains two seeds beside the run, evaluates each checkpoint twice, and pairs step 60 with step 80', async () => {
    const result = await main174({ run, seed: 1, smoke: true, outDir });
    expect(existsSync(join(root, 'runs', 'seed-1-smoke', 'step-8'))).toBe(true);
    expect(result.repeats).toHaveLength(4);
    // Independent evaluations of one checkpoint: different episodes, so usually different counts; the noise rows summarise them.
    expect(result.noise.map((row) => row.step)).toEqual([30, 80]);
    // Training noise by the method of moments: what the seed means' variance holds beyond half an evaluation's.
    for (const row of result.noise)
      expect(row.trainingSD ** 2).toBeCloseTo(Math.max(0, row.seedMeanSD ** 2 - row.evalSD ** 2 / 2), 12);
    expect(result.paired.low).toBeLessThanOrEqual(result.paired.difference);
    expect(result.paired.high).toBeGreaterThanOrEqual(result.paired.difference);
    expectSmoke('17.4');
  });

  it('17.5 evaluates both agents under nine harnesses on the same episodes and draws Figure 17.2', async () => {
    const result = await main175({ run, seed: 1, smoke: true, outDir });
    expect(result.rows).toHaveLength(18);
    // Nine harnesses, each the same for both agents.
    expect(new Set(result.rows.map((row) => row.harnessHash)).size).toBe(9);
    // Renaming off is one field, the function name's; the parameters' renaming is a row of its own.
    expect(result.rows.find((row) => row.harness === 'renaming off')!.change).toEqual({
      randomizeNames: false,
    });
    expect(result.rows.find((row) => row.harness === 'parameter renaming off')!.change).toEqual({
      renameParams: false,
    });
    // An episode's outcome can move under 10 turns only if it used its budget's limit under the training harness.
    for (const use of result.budgetUse)
      if (use.ranOutOfTurns === 0) expect(use.outcomeChangedByTenTurns).toBe(0);
    for (const row of result.rows) expect(row.low).toBeLessThanOrEqual(row.high);
    expect(
      result.rows.filter((row) => row.harness === 'training harness').every((row) => row.move === 0),
    ).toBe(true);
    expect(readFileSync(join(outDir, 'figures', '17.2-pass-by-harness.svg'), 'utf8')).toMatch(/^<svg/);
    expectSmoke('17.5');
  });

  it("17.6: a type-split run measured on the unseen type and the seen types' held-out variants; the leakage channels measured", async () => {
    const result = await main176({ run, seed: 1, smoke: true, outDir });
    expect(existsSync(join(root, 'runs', 'type-zero-smoke', 'step-3'))).toBe(true);
    expect(result.typeSplit.map((row) => row.step)).toEqual([0, 0, 30, 30]);
    // One edit per episode and one site per task: an episode succeeds only if its first edit was the repair.
    for (const row of result.typeSplit) expect(row.passAt1).toBeLessThanOrEqual(row.firstEditRight);
    // 10 of the 29 other names are held-out names: the share of training resets showing one is near 10/29.
    expect(Math.abs(result.leakage.share - 10 / 29)).toBeLessThan(0.07);
    expect(result.leakage.pools.map((row) => row.pool)).toEqual(['train', 'heldout']);
    // Two independent evaluations, their unpaired difference held-out minus training names.
    const [train, heldOut] = result.leakage.pools;
    const { difference, low, high } = result.leakage.poolDifference;
    expect(difference).toBeCloseTo(heldOut!.passAt1 - train!.passAt1, 12);
    expect(low).toBeLessThanOrEqual(difference);
    expect(high).toBeGreaterThanOrEqual(difference);
    expectSmoke('17.6');
  });

  it('17.7: unbiased pass@k curves with task-level bands for steps 0, 20 and 80, narrowing found from the data, Figure 17.3', async () => {
    const result = await main177({ run, seed: 1, smoke: true, outDir });
    expect(result.agents.map((agent) => agent.step)).toEqual([0, 20, 80]);
    for (const agent of result.agents) {
      expect(agent.curve).toHaveLength(8);
      // pass@k never falls as k grows, and pass@n is 1 exactly for a task solved at least once.
      for (let i = 1; i < agent.curve.length; i += 1)
        expect(agent.curve[i]!.mean).toBeGreaterThanOrEqual(agent.curve[i - 1]!.mean - 1e-12);
      expect(agent.curve[7]!.mean).toBeCloseTo(
        agent.perTask.filter((count) => count.successes > 0).length / agent.perTask.length,
        12,
      );
    }
    // The per-k comparison and the summary agree: step 20 is at or above both only if it is below neither at any k.
    expect(result.step20AtOrAbove).toBe(
      result.step20Below.base.length === 0 && result.step20Below.step80.length === 0,
    );
    // Smoke runs have 8 episodes per task: no k >= 16 to compare the band at.
    expect(result.step80BandAtLargeK).toEqual([]);
    for (const row of result.narrowing) {
      expect(row.trajectory).toHaveLength(9);
      expect(row.trajectory[8]!.successes).toBeLessThan(row.trajectory[0]!.successes);
    }
    expect(readFileSync(join(outDir, 'figures', '17.3-passk.svg'), 'utf8')).toMatch(/^<svg/);
    expectSmoke('17.7');
  });

  it("17.7 on a run that narrows no task: the four seeds' runs are searched, those missing trained first; the report draws the mean curves alone", async () => {
    const seedDir = (seed: number) => join(root, 'runs', `seed-${seed}-smoke`);
    // 17.4 trained seed 1 beside the run; seeds 2 and 3 are not there yet.
    expect(existsSync(seedDir(3))).toBe(false);
    const found = await searchSeedRuns(run, { smoke: true, episodes: 8, seed: 1 });
    // Seed 0's run is the run itself (the default recipe), so it is not searched again.
    expect(found.searched).toEqual([1, 2, 3].map(seedDir));
    for (const seed of [1, 2, 3])
      expect(existsSync(join(seedDir(seed), 'step-8', 'manifest.json'))).toBe(true);
    for (const row of found.narrowing) expect(found.searched).toContain(row.runDir);

    const numbers = await main177({ run, seed: 1, smoke: true, outDir: join(root, 'results-177') });
    const none = { ...numbers, narrowing: [], searched: found.searched };
    const { markdown, figures } = await report177(none, { run, episodes: 8, agents: [0, 20, 80] });
    expect(markdown).toContain(`No held-out task narrows`);
    expect(markdown).toContain(seedDir(3));
    const svg = figures!['17.3-passk.svg']!.svg;
    const [, width, height] = /^<svg[^>]*?width="([^"]+)"[^>]*?height="([^"]+)"/.exec(svg)!;
    expect(Number(width)).toBeGreaterThan(100);
    expect(Number(width)).toBeLessThan(1000);
    expect(Number(height)).toBeLessThan(1000);
  }, 300_000); // two smoke trainings and four runs' evaluations: a hang, not slowness, at this bound

  it("17.8: validation and test by checkpoint, selection by each, the winner's curse measured and simulated, Figure 17.4", async () => {
    const result = await main178({ run, seed: 1, smoke: true, outDir });
    expect(result.split.test).toContain('speed');
    expect(result.split.validation).toHaveLength(5);
    expect(result.table.map((row) => row.step)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80]);
    // Selecting by test reports the highest test score there is.
    expect(result.byTest.test).toBe(Math.max(...result.table.map((row) => row.test)));
    // Measured twice: an evaluation's 8 candidates sharing its seed, and each with its own.
    for (const measured of [result.curse.sharedSeed, result.curse.independentSeeds]) {
      expect(measured.picks).toHaveLength(10);
      expect(measured.optimism).toBeCloseTo(measured.onPicking - measured.onRest, 12);
      expect(measured.evaluationSD).toBeGreaterThanOrEqual(0);
    }
    // Each test task's successes at each step, which the test score averages.
    for (const row of result.table)
      expect(row.testCounts.reduce((a, b) => a + b, 0) / (row.testCounts.length * 4)).toBeCloseTo(
        row.test,
        12,
      );
    expect(result.curse.independentSeeds.picks).not.toEqual(result.curse.sharedSeed.picks);
    // The simulated optimism of the best of 8 equally good checkpoints is never negative, and its prediction is sigma x E[max of 8 normals].
    const p = result.byValidation.test;
    expect(result.simulated.bias).toBeGreaterThanOrEqual(0);
    expect(result.simulated.predictedBias).toBeCloseTo(
      Math.sqrt((p * (1 - p)) / 160) * result.simulated.e8,
      10,
    );
    expect(result.simulated.e8).toBeCloseTo(1.4236, 3);
    for (const name of ['17.4-selection.svg', '17.4-seeds-step30.svg'])
      expect(readFileSync(join(outDir, 'figures', name), 'utf8')).toMatch(/^<svg/);
    expectSmoke('17.8');
  });

  it('17.9: eight small evaluations, the stacker at 0.2 and 0.6, the gamer rewarded 1.0 yet never successful', async () => {
    const result = await main179({ run, seed: 1, smoke: true, outDir });
    expect(result.noise.evaluations).toHaveLength(8);
    expect([result.stacker.train.success, result.stacker.plain.success]).toEqual([0.2, 0.6]);
    expect([
      result.gamer.public.meanReward,
      result.gamer.public.success,
      result.gamer.hidden.meanReward,
    ]).toEqual([1, 0, 0]);
    expectSmoke('17.9');
  });

  it('names results and seeds by run: the default run writes results/, another run results/<name>/', () => {
    expect(resultsDir('runs/default')).toMatch(/results$/);
    expect(resultsDir('runs/seed7')).toMatch(/results\/seed7$/);
    expect([
      trainingSeedOf('runs/seed7'),
      trainingSeedOf('runs/seed-3'),
      trainingSeedOf('runs/seed-3-smoke'),
      trainingSeedOf('runs/default'),
    ]).toEqual([7, 3, 3, 0]);
    expect([stepOf(80, false), stepOf(80, true), stepOf(30, true)]).toEqual([80, 8, 3]);
  });

  it("uses the run itself as its own seed's run when it holds that recipe, else <runs>/seed-N (seed-N-smoke for smoke runs)", () => {
    expect(seedRun(run, 0, true)).toBe(run); // the smoke run above is seed 0's smoke recipe
    expect(seedRun(run, 1, true)).toBe(join(root, 'runs', 'seed-1-smoke'));
    expect(seedRun(run, 0, false)).toBe(join(root, 'runs', 'seed-0')); // the full recipe is another config
    expect(seedRun(join(root, 'runs', 'never-trained'), 0, false)).toBe(join(root, 'runs', 'never-trained'));
  });
});
