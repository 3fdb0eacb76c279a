import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './support/cli.ts';

const folder = mkdtempSync(join(tmpdir(), 'tinyagent-selected-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** samples/blog-selected.jsonl with its lines changed by `edit` (line 0 is the harness header). */
function edited(name: string, edit: (rows: Array<Record<string, unknown>>) => void): string {
  const [header, ...lines] = readFileSync('samples/blog-selected.jsonl', 'utf8').trim().split('\n');
  const rows = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  edit(rows);
  const path = join(folder, name);
  writeFileSync(path, [header, ...rows.map((row) => JSON.stringify(row))].join('\n') + '\n');
  return path;
}

describe('selected accuracy', () => {
  it("on the pass@k note's four tasks with a selector: 0.5 selected against pass@10 0.75, one task lost", async () => {
    const { code, stdout } = await cli(['metrics', 'samples/blog-selected.jsonl', '--k', '1,10', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    // The note's own figure: pass@10 of these four tasks is 75%. The selector picks A's wrong 2nd
    // candidate, B's right 2nd, C's right 1st and D's (wrong) 1st: 2 of 4 tasks right, by hand.
    expect(report.passAtK['10'].estimate).toBe(0.75);
    expect(report.selectedAccuracy).toMatchObject({
      estimate: 0.5,
      coverage: 0.75,
      gap: 0.25,
      lost: ['A'],
      lostCount: 1,
    });
    expect(report.selectedAccuracy.low).toBeLessThanOrEqual(0.5);
    expect(report.selectedAccuracy.high).toBeGreaterThanOrEqual(0.5);
    const text = await cli(['metrics', 'samples/blog-selected.jsonl', '--k', '1,10']);
    expect(text.stdout).toMatch(
      /selected accuracy \(the picked answer\) 50\.0% .*75\.0% of tasks have a correct candidate \(pass@n\), 25\.0 points apart: the selector missed a correct candidate in 1 of 4 tasks \(A\)/,
    );
  });

  it('where every pick is right, its interval is the exact one over the tasks, marked, never of no width', async () => {
    const allRight = edited('all-right.jsonl', (rows) => {
      for (const row of rows) if (row.selected === true) row.passed = true;
    });
    const { code, stdout } = await cli(['metrics', allRight, '--json']);
    expect(code).toBe(0);
    // Clopper-Pearson over 4 tasks all right: the lower end is 0.025^(1/4).
    expect(JSON.parse(stdout).selectedAccuracy).toMatchObject({
      estimate: 1,
      high: 1,
      method: 'exact over tasks',
    });
    expect(JSON.parse(stdout).selectedAccuracy.low).toBeCloseTo(0.025 ** (1 / 4), 12);
    const text = await cli(['metrics', allRight]);
    expect(text.stdout).toMatch(
      /selected accuracy \(the picked answer\) 100\.0% {2}task-level \[39\.8%, 100\.0%\]\*;/,
    );
    expect(text.stdout).toMatch(/^\* exact \(Clopper-Pearson\) over the 4 tasks/m);
  });

  it('is absent for a file without a selected field', async () => {
    const { code, stdout } = await cli(['metrics', 'samples/blog-example.jsonl', '--json']);
    expect(code).toBe(0);
    expect(Object.keys(JSON.parse(stdout))).not.toContain('selectedAccuracy');
    expect(stdout).not.toMatch(/selected accuracy/);
  });

  it('refuses a task with two selected samples, or none, and a selected that is not a boolean', async () => {
    const two = edited('two.jsonl', (rows) => {
      rows[0]!.selected = true; // A's 1st as well as its 2nd
    });
    const none = edited('none.jsonl', (rows) => {
      for (const row of rows) if (row.task === 'D') row.selected = false;
    });
    const bad = edited('bad.jsonl', (rows) => {
      rows[3]!.selected = 'maybe';
    });
    // One at a time: cli() captures the process's stdout and stderr while it runs.
    const results = [];
    for (const path of [two, none, bad]) results.push(await cli(['metrics', path]));
    expect(results.map(({ code }) => code)).toEqual([1, 1, 1]);
    expect(results[0]!.stderr).toMatch(
      /field 'selected': task 'A' has 2 selected samples \(lines \d+, \d+\); a selector picks one answer per task/,
    );
    expect(results[1]!.stderr).toMatch(/task 'D' has 0 selected samples/);
    expect(results[2]!.stderr).toMatch(/bad\.jsonl:5: field 'selected': expected true or false, got "maybe"/);
    for (const { stderr } of results) expect(stderr.trim().split('\n')).toHaveLength(1);
  });
});
