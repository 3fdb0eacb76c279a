import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main as ex1 } from '../experiments/ex-1.ts';
import { main as ex2 } from '../experiments/ex-2.ts';
import { main as ex3 } from '../experiments/ex-3.ts';
import { main as ex4 } from '../experiments/ex-4.ts';
import { main as ex5 } from '../experiments/ex-5.ts';
import { main as ex6 } from '../experiments/ex-6.ts';
import { main as ex7 } from '../experiments/ex-7.ts';
import { smokeProblems, SMOKE_SEED } from '../experiments/repro.ts';
import { ROOT } from '../lib/paths.ts';

// One smoke training run serves every exercise on checkpoints here (ex-2 trains it, the others find it);
// ex-4 trains one type-split smoke run beside it.
const root = mkdtempSync(join(tmpdir(), 'tinyagent-ex-'));
const run = join(root, 'runs', 'default-smoke');
const outDir = join(root, 'results');
const options = { run, seed: SMOKE_SEED, smoke: true, outDir };
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The smoke numbers equal results/smoke/ex-N.json exactly (`npm run test:repro -- --update-smoke` rewrites them). */
function expectSmoke(section: string): void {
  expect(smokeProblems(section, outDir, join(root, 'runs'))).toEqual([]);
}
const figure = (name: string) => readFileSync(join(outDir, 'figures', name), 'utf8');

describe('the chapter exercises (smoke)', () => {
  it('ex-1: the simulated variance of both estimators agrees with the exact sum within Monte Carlo error', async () => {
    const result = await ex1(options);
    for (const row of result.rows)
      for (const estimator of row.estimators) expect(Math.abs(estimator.varianceZ)).toBeLessThan(4);
    // Unbiased: exact mean is the truth; the plug-in is below it.
    expect(result.rows[0]!.estimators[0]!.exact.mean).toBeCloseTo(result.rows[0]!.truth, 12);
    expect(result.rows[0]!.estimators[1]!.exact.mean).toBeLessThan(result.rows[0]!.truth);
    expect(figure('ex-1-variance-by-k.svg')).toMatch(/^<svg/);
    expectSmoke('ex-1');
  });

  it('ex-2: pass@k at steps 0, 20, 40, 80, counts at every checkpoint, onsets within their intervals', async () => {
    const result = await ex2(options);
    expect(existsSync(join(run, 'step-8', 'manifest.json'))).toBe(true);
    const [own] = result.runs;
    expect(own!.curves.map((c) => c.step)).toEqual([0, 20, 40, 80]);
    expect(own!.checkpoints).toHaveLength(9);
    for (const task of own!.narrowing) {
      expect(task.rates[8]!).toBeLessThan(task.rates[0]!);
      if (task.fallsAt !== null && task.low !== null && task.high !== null) {
        expect(task.low).toBeLessThanOrEqual(task.high);
      }
    }
    // Every fall is a drop between two checkpoints, its Holm p at or above its own.
    for (const fall of own!.falls) {
      expect(fall.to.successes / fall.to.episodes).toBeLessThan(fall.from.successes / fall.from.episodes);
      expect(fall.to.step).toBeGreaterThan(fall.from.step);
      expect(fall.holmP).toBeGreaterThanOrEqual(fall.p);
    }
    expect(figure('ex-2-passk.svg')).toMatch(/^<svg/);
    expectSmoke('ex-2');
  });

  it('ex-3: the credible interval and the task bootstrap on the 17.1 counts, and their coverage', async () => {
    const result = await ex3(options);
    for (const agent of result.agents) {
      expect(agent.bayes.low).toBeLessThanOrEqual(agent.bayes.mean);
      expect(agent.bayes.high).toBeGreaterThanOrEqual(agent.bayes.mean);
    }
    expect(result.calibration.evals).toBe(20);
    expectSmoke('ex-3');
  });

  it("ex-4: a type-split run per held-out type, its pass@1 against the base agent and the entropy of the first edit, the policy's and the pooled sample's", async () => {
    const result = await ex4(options);
    expect(existsSync(join(root, 'runs', 'type-compare-smoke', 'step-3', 'manifest.json'))).toBe(true);
    for (const row of result.rows) {
      expect(row.difference.low).toBeLessThanOrEqual(row.difference.estimate);
      // First edit right bounds success: one edit per episode.
      expect(row.trained.passAt1).toBeLessThanOrEqual(row.trained.firstEditRight + 1e-12);
      for (const checkpoint of [row.base, row.trained]) {
        const { decision } = checkpoint;
        // The policy's own entropy over six ops: between 0 and log2 6; each task's, a mean over the episodes that edited.
        expect(decision.perTask).toHaveLength(6);
        for (const task of decision.perTask) {
          expect(task.episodes).toBeLessThanOrEqual(result.episodes);
          if (task.episodes === 0) expect(task.entropy).toBeNull();
          else expect(task.entropy!).toBeLessThanOrEqual(Math.log2(6) + 1e-9);
        }
        const known = decision.perTask.flatMap((task) => (task.entropy === null ? [] : [task.entropy]));
        if (known.length > 0)
          expect(decision.entropy).toBeCloseTo(known.reduce((a, b) => a + b, 0) / known.length, 12);
      }
    }
    expectSmoke('ex-4');
  });

  it('ex-5: the scripted canaries catch the mechanics (turns, edits, reward) and miss what only a model reads', async () => {
    const result = await ex5(options);
    const caught = (field: string) => result.rows.find((row) => row.field === field)!.caughtByCanaries;
    expect(caught('reward')).toBe(true);
    expect(caught('maxEdits')).toBe(true);
    expect(caught('temperature')).toBe(false);
    expect(caught('promptVersion')).toBeNull();
    expectSmoke('ex-5');
  });

  it('ex-6: one generator against separate generators, the SE from Var A + Var B - 2 Cov', async () => {
    const result = await ex6(options);
    for (const design of [result.shared, result.separate])
      expect(design.formulaSE).toBeCloseTo(design.se, 12);
    expect(result.ratio).toBeCloseTo(result.separate.se / result.shared.se, 12);
    // The formula's check from each repetition's own episodes, the ratio's test, and the seeds' independence.
    for (const design of [result.shared, result.separate]) {
      expect(design.predictedSE).toBeGreaterThan(0);
      expect(design.correlationP).toBeGreaterThanOrEqual(0);
      expect(design.correlationP).toBeLessThanOrEqual(1);
    }
    expect(result.varianceRatioTest.ratio).toBeCloseTo(result.ratio ** 2, 12);
    expect(result.independence).toMatchObject({ policy: 'blind', repetitions: 10 });
    expect(readFileSync(join(outDir, 'ex-6.md'), 'utf8')).toMatch(/Pitman-Morgan test .* gives p = /);
    expectSmoke('ex-6');
  });

  it("ex-7: the design review of the chapter's claim", async () => {
    const result = await ex7(options);
    expect(result.review.unpaired.se).toBeCloseTo(0.0312, 4);
    // Independent evaluations bound the best-of-5 inflation; 17.4's correlation shrinks it by sqrt(1 - r).
    const { correlation, inflation } = result.correlatedSelection;
    expect(correlation).toBeGreaterThan(0);
    expect(inflation).toBeCloseTo(result.review.selection.inflation * Math.sqrt(1 - correlation), 12);
    expect(readFileSync(join(outDir, 'ex-7.md'), 'utf8')).toMatch(
      /independent evaluations \(an upper bound\)/,
    );
    expect(figure('ex-7-se-by-correlation.svg')).toMatch(/^<svg/);
    expectSmoke('ex-7');
  });
});

describe('the exercise scripts refuse what they do not know', () => {
  it('an unknown flag or a bad seed is one line and exit 2', () => {
    for (const [script, args, expected] of [
      ['ex-1', ['--run', 'runs/default'], /^ex:1: .*--run/],
      ['ex-5', ['--seed', 'x'], /^ex:5: --seed must be a decimal integer/],
    ] as const) {
      const result = spawnSync(process.execPath, ['--import', 'tsx', `experiments/${script}.ts`, ...args], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(result.status, result.stderr).toBe(2);
      expect(result.stderr.trim()).toMatch(expected);
    }
  });
});
