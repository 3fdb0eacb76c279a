import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { devTasks, makeTasks } from '../gym/index.ts';
import { SMOKE_CONFIG } from '../train/index.ts';
import { measuredSplit, readPlan } from '../study/index.ts';
import { writePlan } from '../study/plan.ts';
import { jobDir } from '../study/output.ts';
import { cliChild } from './support/child.ts';
import { main as recipesMain } from '../experiments/recipes.ts';

const root = mkdtempSync(join(tmpdir(), 'study-dev-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// docs/RECIPES.md: a recipe is chosen on the development split, and no held-out task is played while choosing.
describe('a study of a devSplit recipe', () => {
  it('trains outside the development split and evaluates its five tasks, never a held-out one; its report and status say so', async () => {
    const recipe = join(root, 'dev-smoke.json');
    writeFileSync(recipe, JSON.stringify({ ...SMOKE_CONFIG, devSplit: true }));
    const studies = join(root, 'recipes-dev');
    const dir = join(studies, 'default');
    const plan = writePlan(dir, { recipe, seeds: [0, 1], evalSeed: 1, steps: [0, 30, 80], episodes: 2 });
    expect(measuredSplit(plan)).toBe('dev');
    const held = makeTasks('heldout').map((task) => task.name);
    const dev = devTasks().map((task) => task.name);
    expect(dev).toHaveLength(5);
    expect(dev.some((name) => held.includes(name))).toBe(false);

    const ran = await cliChild(['study', 'run', dir, '--jobs', '1']);
    expect(ran.status, ran.stderr).toBe(0);
    const evaluations = readPlan(dir).jobs.filter((job) => job.kind === 'eval');
    for (const job of evaluations) {
      const output = JSON.parse(readFileSync(join(jobDir(plan, job), 'result.json'), 'utf8'));
      expect(output.perTask.map((count: { name: string }) => count.name)).toEqual(dev);
    }
    // Every job verifies against the split it measures: a rerun finds them all done.
    const status = await cliChild(['study', 'status', dir]);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/: 16 done, 0 running, 0 failed, 0 pending of 16$/m);

    const report = await cliChild(['study', 'report', dir]);
    expect(report.status, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/^step-80 development-split pass@1 over 2 seeds: mean /);
    expect(readFileSync(join(dir, 'results', 'study.md'), 'utf8')).toMatch(
      /episodes per development-split task/,
    );

    // exp:recipes over the candidates that ran: a second candidate that leaves behaviour cloning
    // alone is paired with the default on both seeds; the choice waits for the other four.
    const entropyRecipe = join(root, 'dev-entropy-0.json');
    writeFileSync(entropyRecipe, JSON.stringify({ ...SMOKE_CONFIG, devSplit: true, entropyCoef: 0 }));
    const entropy = join(studies, 'entropy-0');
    writePlan(entropy, {
      recipe: entropyRecipe,
      seeds: [0, 1],
      evalSeed: 1,
      steps: [0, 30, 80],
      episodes: 2,
    });
    expect((await cliChild(['study', 'run', entropy, '--jobs', '1'])).status).toBe(0);
    // The training design's check reads its own candidates: the entropy study stands in as design-1.
    const designs = join(root, 'design-dev');
    cpSync(entropy, join(designs, 'design-1'), { recursive: true });
    const recipes = await recipesMain({
      seed: 0,
      outDir: join(root, 'results'),
      studiesDir: studies,
      designsDir: designs,
    });
    expect(recipes.tasks).toEqual(dev);
    expect(recipes.candidates.map((c) => c.name)).toEqual(['default', 'entropy-0']);
    expect(recipes.candidates[0]!.steps.map((s) => s.step)).toEqual([0, 30, 80]);
    expect(recipes.rule).toHaveLength(1);
    expect(recipes.rule[0]!.difference.design).toBe('paired t');
    expect(recipes.rule[0]!.difference.seeds).toEqual([0, 1]);
    expect(recipes.rule[0]!.qualifies).toBe(recipes.rule[0]!.above && recipes.rule[0]!.steadier);
    expect(recipes.choice.status).toBe('pending');
    expect(recipes.missing).toEqual(['lr-0.0005', 'epochs-2', 'kl-0.1', 'bc-160']);
    expect(readFileSync(join(root, 'results', 'recipes.md'), 'utf8')).toMatch(
      /\*\*Choice:\*\* pending: 4 of 6/,
    );
    // The design check (docs/TRAINING-DESIGN.md, section 2): its rule applied to the one that ran, against the default's noise.
    const check = recipes.designCheck!;
    expect(check.baselineNoise).toBe(recipes.candidates[0]!.noise30.training.estimate);
    const [design] = check.rows;
    expect(check.rows.map((row) => row.name)).toEqual(['design-1']);
    const mean = (step: number) => design!.steps.find((row) => row.step === step)!.mean;
    expect(design!.learns).toBe(mean(80).estimate >= 0.7 && mean(80).low! > mean(0).high!);
    expect(design!.stable).toBe(design!.noise30.training.estimate <= check.baselineNoise);
    expect(check.status).toBe(design!.passes ? 'passed' : 'pending');
    expect(check.notRun).toEqual(['design-2', 'design-3', 'design-4', 'design-5', 'design-6']);

    expect(readFileSync(join(root, 'results', 'recipes.md'), 'utf8')).toMatch(
      /## The training design on the development split[\s\S]*\| design-1 \|/,
    );

    // A development-split study and a held-out one measure different tasks: compare refuses them in one line.
    const heldOut = join(root, 'held');
    writePlan(heldOut, { recipe: 'smoke', seeds: [0, 1], evalSeed: 1, steps: [0], episodes: 2 });
    expect((await cliChild(['study', 'run', heldOut, '--jobs', '1'])).status).toBe(0);
    const compared = await cliChild(['study', 'compare', dir, heldOut]);
    expect(compared.status).toBe(1);
    expect(compared.stderr.trim().split('\n')).toHaveLength(1);
    expect(compared.stderr).toMatch(/evaluate different tasks \(development-split and held-out\)/);
  }, 900_000);
});
