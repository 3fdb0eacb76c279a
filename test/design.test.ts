import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  nestedSplit,
  parseUntrainedWords,
  restartClaim,
  untrainedWordsClaim,
} from '../analysis/sections/design.ts';
import { main } from '../experiments/design.ts';
import { main as redrawWords } from '../experiments/design-words.ts';
import { InputError } from '../lib/errors.ts';
import { ROOT } from '../lib/paths.ts';
import { evaluationOf, loadResults, readPlan } from '../study/index.ts';

const numbers = () =>
  (JSON.parse(readFileSync(join(ROOT, 'results', 'design.json'), 'utf8')) as { numbers: any }).numbers;
const study = (dir: string) => loadResults(readPlan(join(ROOT, dir)));

describe('the training design on the held-out tasks (exp:design)', () => {
  it('pairs the Adam-restart claim only over RL seeds that start from one agent on one set of episodes', () => {
    // default-16's seeds have their own base agents: none is step 0 of the design's.
    expect(() =>
      restartClaim(study('studies/design-held-out/chapter-harness'), study('studies/default-16'), 80),
    ).toThrow(InputError);
    expect(() =>
      restartClaim(study('studies/design-held-out/chapter-harness'), study('studies/default-16'), 80),
    ).toThrow(/default-16: shares 0 RL seeds with .*chapter-harness/);
    // A study against itself: every seed pairs, the difference is 0 and lies inside the margin.
    const self = restartClaim(
      study('studies/design-held-out/chapter-harness'),
      study('studies/design-held-out/chapter-harness'),
      30,
    );
    expect(self.seeds).toHaveLength(16);
    expect([self.difference, self.low, self.high, self.standing]).toEqual([0, 0, 0, 'holds']);
    expect(self.power).toBeNull();
  });

  it('reads 17.4 as the chapter does, with the coverage of its intervals simulated at 4 seeds', () => {
    const { chapterSeeds, adopted } = numbers();
    expect(adopted).toBe(false);
    expect(chapterSeeds.seeds.map((row: { seed: number }) => row.seed)).toEqual([0, 1, 2, 3]);
    expect(chapterSeeds.episodesPerTask * chapterSeeds.tasks).toBe(320);
    expect(['holds', 'fails', 'open']).toContain(chapterSeeds.standing);
    for (const part of ['training', 'evaluation']) expect(chapterSeeds.coverage[part]).toBeGreaterThan(0);
  });

  it('splits training noise over the four base agents of the committed studies, as their job outputs give it', () => {
    const { nested } = numbers();
    const bases = ['chapter-harness', 'base-1', 'base-2', 'base-3'].map((name) =>
      study(`studies/design-held-out/${name}`),
    );
    expect(nested.map((at: { step: number }) => at.step)).toEqual([30, 80]);
    nested.forEach((at: any) => {
      expect(at.seeds).toEqual(Array.from({ length: 4 }, () => [0, 1, 2, 3]));
      // One-way random effects on 4 x 4 seed means: 12 degrees of freedom within, 16 pairs of evaluations.
      expect([at.components.rl.df, at.components.evaluation.df]).toEqual([12, 16]);
      for (const part of ['base', 'rl', 'evaluation']) {
        const { estimate, low, high } = at.components[part];
        expect(low).toBeLessThanOrEqual(estimate);
        expect(estimate).toBeLessThanOrEqual(high);
        expect(at.coverage.fitted[part]).toBeGreaterThan(0);
      }
      expect(at.components).toEqual(nestedSplit(bases, at.step, { perGroup: 4, seed: 0 }).components);
    });
  });

  it('reads the two training claims of section 4 from the committed studies by their rule, each interval with its coverage simulated', () => {
    const { restarts, untrainedWords, margin } = numbers();
    const segmented = study('studies/design-held-out/chapter-harness');
    const file = join(ROOT, 'studies/design-held-out/untrained-words.json');
    const record = parseUntrainedWords(JSON.parse(readFileSync(file, 'utf8')), file);
    expect(restarts).toEqual(
      JSON.parse(JSON.stringify(restartClaim(segmented, study('studies/design-held-out/uninterrupted'), 80))),
    );
    expect(untrainedWords).toEqual(JSON.parse(JSON.stringify(untrainedWordsClaim(segmented, record, file))));
    for (const claim of [restarts, untrainedWords]) {
      expect(claim.seeds).toHaveLength(16);
      const inside = claim.low >= -margin && claim.high <= margin;
      const excludesZero = claim.low > 0 || claim.high < 0;
      expect(claim.standing).toBe(inside ? 'holds' : excludesZero ? 'fails' : 'open');
      for (const world of ['normal', 'empirical']) expect(claim.coverage[world]).toBeGreaterThan(0.9);
    }
    expect(untrainedWords.words).toHaveLength(19);
    expect(readFileSync(join(ROOT, 'results', 'design.md'), 'utf8')).not.toContain('Not run yet');
  });

  it("reads the untrained-words record only against its study's step-80 agents and episodes, and refuses a damaged one in one line", async () => {
    const segmented = study('studies/design-held-out/chapter-harness');
    const rows = segmented.seeds.map((seed) => {
      const own = evaluationOf(segmented, seed, 80, 'a');
      return {
        seed,
        checkpointChecksum: own.checkpointChecksum,
        evalSeed: own.evalSeed,
        trained: own.passAt1,
        // Draws that lower every seed by exactly 0.2: the difference is -0.2 with no spread.
        redrawn: Array.from({ length: 5 }, (_, k) => own.passAt1 - 0.2 + (k - 2) * 0.01),
        moved: { redrawn: 0.5, others: 0.4 },
      };
    });
    const record = {
      format: 1,
      study: 'chapter-harness',
      step: 80,
      label: 'a',
      draws: 5,
      words: ['odd'],
      backend: 'wasm',
      seeds: rows,
    };
    const claim = untrainedWordsClaim(segmented, parseUntrainedWords(record, 'w.json'), 'w.json');
    expect(claim.seeds).toHaveLength(16);
    expect(claim.difference).toBeCloseTo(-0.2, 12);
    expect(claim.standing).toBe('fails');
    // Another checkpoint or other episodes do not pair with the study.
    const moved = { ...record, seeds: rows.map((row, i) => (i === 3 ? { ...row, evalSeed: 'other' } : row)) };
    expect(() => untrainedWordsClaim(segmented, parseUntrainedWords(moved, 'w.json'), 'w.json')).toThrow(
      /^w\.json: seed 3 is not the agent and episodes of .*chapter-harness's step-80 evaluation$/,
    );
    expect(() => parseUntrainedWords({ ...record, draws: 4 }, 'w.json')).toThrow(/^w\.json: .*draws/);
    expect(() =>
      parseUntrainedWords(
        { ...record, seeds: [{ ...rows[0]!, redrawn: [0.5, 0.5, 0.5, 0.5, 1.5] }] },
        'w.json',
      ),
    ).toThrow(/^w\.json: .*seeds\.0\.redrawn\.4/);
    const dir = mkdtempSync(join(tmpdir(), 'tinyagent-design-'));
    writeFileSync(join(dir, 'untrained-words.json'), '{"format": 1,');
    await expect(main({ studiesDir: dir, outDir: dir })).rejects.toThrow(
      new RegExp(`^${join(dir, 'untrained-words.json')}: not JSON`),
    );
  });

  it('exp:design-words refuses, in one line and before any evaluation, a study whose checkpoints have no weights (a study as committed)', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'tinyagent-design-words-')), 'chapter-harness');
    cpSync(join(ROOT, 'studies/design-held-out/chapter-harness'), dir, {
      recursive: true,
      filter: (path) => !path.endsWith('weights.bin'),
    });
    await expect(redrawWords({ studyDir: dir })).rejects.toThrow(
      new RegExp(
        `^${dir}: 32 checkpoints have no weights\\.bin \\(the first ${dir}/jobs/train-0-[0-9a-f]+/step-0/weights\\.bin\\); .*where the study ran$`,
      ),
    );
  });
});
