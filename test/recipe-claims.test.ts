import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, RECIPE_STUDIES } from '../experiments/recipe-claims.ts';
import { InputError } from '../lib/errors.ts';

const ROOT = join(import.meta.dirname, '..');
const read = (name: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'results', name), 'utf8')) as { numbers: any }).numbers;

describe("the chapter's claims across recipes (exp:recipe-claims)", () => {
  it("the default's column is results/seeds.json's claims: one function computes both", () => {
    const across = read('recipe-claims.json');
    const seeds = read('seeds.json');
    expect(across.studies.map((row: { name: string }) => row.name)).toEqual(
      RECIPE_STUDIES.map((entry) => entry.name),
    );
    for (const row of across.rates) {
      const cell = row.recipes.find((entry: { recipe: string }) => entry.recipe === 'default');
      const { holds, seeds: count, wilson, twoStage } = seeds.claims[row.claim];
      expect({ holds: cell.holds, seeds: count, wilson: cell.wilson, twoStage: cell.twoStage }).toEqual({
        holds,
        seeds: count,
        wilson,
        twoStage,
      });
    }
    const noise = across.values.find((row: { claim: string }) => row.claim === 'trainingNoise30').recipes[0];
    expect([noise.estimate, noise.low, noise.high]).toEqual([
      seeds.noise.step30.training.estimate,
      seeds.noise.step30.training.low,
      seeds.noise.step30.training.high,
    ]);
    const curse = across.values.find((row: { claim: string }) => row.claim === 'winnersCurse').recipes[0];
    expect([curse.estimate, curse.low, curse.high]).toEqual([
      seeds.selection.winnersCurse.estimate,
      seeds.selection.winnersCurse.low,
      seeds.selection.winnersCurse.high,
    ]);
    // Every recipe compared has at least 8 seeds; the summary lists every claim once.
    for (const study of across.studies) expect(study.seeds.length).toBeGreaterThanOrEqual(8);
    const listed = Object.values(across.summary as Record<string, string[]>).flat();
    expect(listed.sort()).toEqual(
      [...across.rates, ...across.values].map((row: { claim: string }) => row.claim).sort(),
    );
  });

  it('a tree with no finished recipe study is a one-line input error naming each study', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tinyagent-recipe-claims-'));
    try {
      const run = main({ root, outDir: join(root, 'results') });
      await expect(run).rejects.toBeInstanceOf(InputError);
      await expect(main({ root, outDir: join(root, 'results') })).rejects.toThrow(
        /no recipe study is finished \(studies\/default-16: no study; .*kl-0\.1: no study; .*our-harness: no study\)/,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
