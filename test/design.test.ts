import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { restartClaim } from '../analysis/sections/design.ts';
import { InputError } from '../lib/errors.ts';
import { ROOT } from '../lib/paths.ts';
import { loadResults, readPlan } from '../study/index.ts';

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

  it('reads 17.4 as the chapter does, with the coverage of its intervals simulated at 4 seeds; the nested split waits for its study', () => {
    const { chapterSeeds, nested, adopted } = numbers();
    expect(adopted).toBe(false);
    expect(chapterSeeds.seeds.map((row: { seed: number }) => row.seed)).toEqual([0, 1, 2, 3]);
    expect(chapterSeeds.episodesPerTask * chapterSeeds.tasks).toBe(320);
    expect(['holds', 'fails', 'open']).toContain(chapterSeeds.standing);
    for (const part of ['training', 'evaluation']) expect(chapterSeeds.coverage[part]).toBeGreaterThan(0);
    // Study 3 (the nested base agents) has not run: the report says so and holds no number for it.
    expect(nested).toBeNull();
    expect(readFileSync(join(ROOT, 'results', 'design.md'), 'utf8')).toContain(
      'Not run yet: the nested study',
    );
  });
});
