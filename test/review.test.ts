import { describe, expect, it } from 'vitest';
import { cli, expectCliError } from './support/cli.ts';

const claim = (samples: number): string[] => [
  'review',
  '--a',
  '0.410',
  '--b',
  '0.434',
  '--tasks',
  '500',
  '--samples',
  String(samples),
  '--seeds',
  '1',
];
const CLAIM = claim(1);

describe('tinyagent review', () => {
  it("works the chapter's SWE-bench arithmetic: SE about 0.022 per arm and 0.031 for the difference", async () => {
    const { code, stdout } = await cli([...CLAIM, '--selection', 'best-of-5', '--json']);
    expect(code).toBe(0);
    const review = JSON.parse(stdout);
    // sqrt(0.41 * 0.59 / 500) and sqrt((0.41 * 0.59 + 0.434 * 0.566) / 500)
    expect(review.seA).toBeCloseTo(Math.sqrt((0.41 * 0.59) / 500), 12);
    expect(review.unpaired.se).toBeCloseTo(0.0312, 4);
    // Selection: sigma E[max of 5], E[max of 5] = 1.16296 (scipy quad, test/exercises-stats.test.ts).
    expect(review.selection.inflation).toBeCloseTo(Math.sqrt((0.434 * 0.566) / 500) * 1.16296, 5);
    // No correlation given: a table over correlations, pairing lowering the SE as it rises.
    expect(review.paired.length).toBeGreaterThan(3);
    for (let i = 1; i < review.paired.length; i++)
      expect(review.paired[i].pairedSE).toBeLessThan(review.paired[i - 1].pairedSE);
    expect(review.ask.some((item: string) => /best of 5/.test(item))).toBe(true);
  });

  it('with --correlation gives one paired row, and its samples needed reach the target SE', async () => {
    const { stdout } = await cli([...CLAIM, '--correlation', '0.95', '--json']);
    const review = JSON.parse(stdout);
    expect(review.paired).toHaveLength(1);
    const [row] = review.paired;
    expect(row.samplesNeeded).toBeGreaterThan(1);
    expect(row.floorSE).toBeLessThan(review.targetSE);
    const at = JSON.parse(
      (await cli([...claim(row.samplesNeeded), '--correlation', '0.95', '--json'])).stdout,
    );
    const below = JSON.parse(
      (await cli([...claim(row.samplesNeeded - 1), '--correlation', '0.95', '--json'])).stdout,
    );
    expect(at.paired[0].pairedSE).toBeLessThanOrEqual(review.targetSE);
    expect(below.paired[0].pairedSE).toBeGreaterThan(review.targetSE);
  });

  it('prints the table and the list to ask for', async () => {
    const { stdout } = await cli([...CLAIM, '--selection', 'best-of-5']);
    expect(stdout).toMatch(/SE of the difference, unpaired: 0\.0312/);
    expect(stdout).toMatch(/ask for:/);
  });

  it('best-of-1 is no selection: E[max of 1] is 0 exactly, printed 0.000, never -0.000', async () => {
    const { code, stdout } = await cli([...CLAIM, '--selection', 'best-of-1']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/E\[max of 1\] = 0\.0222 x 0\.000 = 0\.0000 above them/);
    expect(stdout).not.toMatch(/-0\.0+\b/);
    const review = JSON.parse((await cli([...CLAIM, '--selection', 'best-of-1', '--json'])).stdout);
    expect(Object.is(review.selection.expectedMax, 0)).toBe(true);
    expect(review.selection.inflation).toBe(0);
  });

  it('refuses flags outside their ranges', async () => {
    await expectCliError([...CLAIM, '--correlation', '1.5'], 2, /--correlation must be in \[-1, 1\]/);
    await expectCliError(
      ['review', '--a', '1.2', '--b', '0.4', '--tasks', '10'],
      2,
      /--a must be in \[0, 1\]/,
    );
    await expectCliError([...CLAIM, '--selection', 'best-of-0'], 2, /--selection/);
    await expectCliError(['review', '--a', '0.4', '--b', '0.5'], 2, /--tasks are required/);
    await expectCliError([...CLAIM.slice(0, 5), '--tasks', '0'], 2, /--tasks must be in/);
  });
});
