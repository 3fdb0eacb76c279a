import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupOutcomes, readResults, ResultFileError, type ReadOptions } from '../eval/io/index.ts';
import { computeMetrics } from '../eval/report/metrics.ts';
import { diagnose } from '../eval/report/diagnose.ts';
import { Rng } from '../lib/rng.ts';

const folder = mkdtempSync(join(tmpdir(), 'eval-resultfile-'));
let written = 0;
/** `text` read as the result file `name`, in a folder of its own, as the commands read a file. */
function readText(text: string, name = 'rows', options: ReadOptions = {}) {
  const dir = join(folder, `text-${(written += 1)}`);
  mkdirSync(dir);
  writeFileSync(join(dir, name), text);
  return readResults(join(dir, name), options);
}

describe('result files', () => {
  it.each(['samples/blog-example.jsonl', 'samples/blog-example.csv'])(
    "%s gives the blog's numbers through the reader",
    async (path) => {
      const file = await readResults(path);
      expect(file.harness?.model).toBe('constructed');
      const { tasks, issues } = groupOutcomes(file.rows);
      expect(issues).toEqual([]);
      const report = computeMetrics(tasks, { ks: [1, 5, 10], rng: new Rng(0), reps: 500 });
      expect(report.prefixPassAtK[10]?.estimate).toBe(0.75);
      expect(report.meanAccuracy.estimate).toBeCloseTo(0.325, 15);
      expect(report.allCorrectAtK[10]?.estimate).toBe(0.25);
      expect(report.firstSampleAccuracy.estimate).toBe(0.5);
      expect(report.passAtK[1]?.estimate).toBeCloseTo(0.325, 15);
      expect(report.passAtK[10]?.estimate).toBeCloseTo(0.75, 15);
      expect(report.checks.every(({ ok }) => ok)).toBe(true);
    },
  );

  it("checks pass@k's order only where it is computed: a k some task cannot reach is the k <= n check's", () => {
    const tasks = [
      { task: 'a', outcomes: Uint8Array.from([1, 0, 1, 1, 0]) },
      { task: 'b', outcomes: Uint8Array.from([0]) },
    ];
    const names = (ks: number[]) =>
      computeMetrics(tasks, { ks, rng: new Rng(0), reps: 200 }).checks.map(({ name, ok, detail }) => [
        name,
        ok,
        detail,
      ]);
    expect(names([5])).toEqual([
      ['k=5 <= n', false, expect.stringMatching(/pass@5 is not computed: b \(1\)/)],
    ]);
    expect(names([1, 5])).toContainEqual(['prefix: pass^k <= pass@1 <= pass@k', true, 'holds at k = 1']);
    expect(names([1, 5])).toContainEqual(['unbiased: pass^k <= pass@1 <= pass@k', true, 'holds at k = 1']);
  });

  it('names the line and the field of a malformed row', async () => {
    const text = '{"task":"a","sample":0,"passed":true}\n{"task":"a","sample":1,"passed":"yes"}\n';
    await expect(readText(text, 'x.jsonl')).rejects.toThrow(/x\.jsonl:2: field 'passed'/);
    await expect(readText('task,sample,passed\na,0,1\na,-1,0\n', 'x.csv')).rejects.toThrow(
      /x\.csv:3: field 'sample'/,
    );
    await expect(readText('task,passed\na,1\n', 'x.csv')).rejects.toThrow(/x\.csv:1: field 'sample'/);
    await expect(readText('{"task":"a","sample":0,"passed":1}\n{oops\n')).rejects.toThrow(ResultFileError);
    await expect(readText('{"sample":0,"passed":1}\n', 'y.jsonl', { format: 'jsonl' })).rejects.toThrow(
      /y\.jsonl:1: field 'task': missing/,
    );
  });

  it('lists duplicates, gaps and short tasks instead of dropping them', async () => {
    const { rows } = await readText(
      ['a,0,1', 'a,1,0', 'a,1,1', 'b,0,0', 'b,2,1', 'c,0,1', 'c,1,1', 'c,2,0'].reduce(
        (text, line) => `${text}${line}\n`,
        'task,sample,passed\n',
      ),
    );
    const { tasks, issues } = groupOutcomes(rows);
    expect(issues.map(({ kind }) => kind)).toEqual(['duplicate', 'gap', 'uneven']);
    expect(issues[0]?.lines).toEqual([4]);
    expect(issues[1]?.message).toMatch(/task 'b' lacks sample index\(es\) 1/);
    expect(tasks.map(({ task, outcomes }) => [task, [...outcomes]])).toEqual([
      ['a', [1, 0]],
      ['b', [0, 1]],
      ['c', [1, 1, 0]],
    ]);
  });

  it('reads the harness from a header line or a sidecar, and refuses a disagreeing pair', async () => {
    const path = join(folder, 'run.jsonl');
    writeFileSync(path, '{"harness":{"temperature":0.7}}\n{"task":"a","sample":0,"passed":1}\n');
    expect(await readResults(path)).toMatchObject({ harness: { temperature: 0.7 }, harnessSource: 'header' });
    writeFileSync(`${path}.harness.json`, '{"temperature":1.0}');
    await expect(readResults(path)).rejects.toThrow(/differs from the harness header/);
    const csv = join(folder, 'run.csv');
    writeFileSync(csv, 'task,sample,passed,turn\na,0,true,0\n');
    writeFileSync(`${csv}.harness.json`, '{"harness":{"greedy":true}}');
    expect(await readResults(csv)).toMatchObject({ harness: { greedy: true }, harnessSource: 'sidecar' });
  });
});

describe('diagnosis', () => {
  it('greedy pass@1 vs sampled pass@10: different harness, fields listed', async () => {
    const report = diagnose(
      await readResults('samples/diagnose/greedy-pass1.jsonl'),
      await readResults('samples/diagnose/sampled-pass10.jsonl'),
    );
    expect(report.numbers.inverted).toBe(true);
    const harness = report.findings.find(({ explanation }) => explanation === 'different-harness');
    expect(harness?.supported).toBe(true);
    expect(harness?.evidence.join('\n')).toMatch(/temperature: 0 vs 1.2/);
    expect(report.findings.find(({ explanation }) => explanation === 'same-batch')?.supported).toBe(false);
  });

  it('one batch: reported numbers that the rows cannot produce are an aggregation bug', async () => {
    const report = diagnose(await readResults('samples/diagnose/one-batch.jsonl'), undefined, {
      reported: { 1: 0.55, 10: 0.48 },
    });
    const batch = report.findings.find(({ explanation }) => explanation === 'same-batch');
    expect(batch?.supported).toBe(true);
    expect(batch?.evidence.join('\n')).toMatch(/reported pass@10 = 48.0% vs recomputed 85.0%.*MISMATCH/);
  });

  it('tasks aligned by position and missing tasks are shown', async () => {
    const a = await readText('task,sample,passed\nx,0,1\ny,0,0\nz,0,1\n', 'a.csv');
    const b = await readText('task,sample,passed,x\ny,0,0,\ny,1,0,\nx,0,1,\nx,1,0,\n', 'b.csv');
    const report = diagnose(a, b);
    const evidence = report.findings
      .find(({ explanation }) => explanation === 'same-batch')
      ?.evidence.join('\n');
    expect(evidence).toMatch(/tasks only in \S*\/a\.csv: z/);
    expect(evidence).toMatch(/task order differs at 2 of 2 positions/);
  });

  it('multi-turn: per-turn accuracy with its denominator, by-turn success monotone, final answer not', async () => {
    const report = diagnose(await readResults('samples/diagnose/multi-turn.jsonl'), undefined);
    const view = report.multiTurn?.['samples/diagnose/multi-turn.jsonl'];
    expect(view?.conversations).toBe(40);
    expect(view?.perTurn[0]?.stillGoing).toBe(40);
    const byTurn = view?.succeededByTurn ?? [];
    for (let k = 1; k < byTurn.length; k++) expect(byTurn[k]).toBeGreaterThanOrEqual(byTurn[k - 1] as number);
    expect(view?.brokenLater).toBeGreaterThan(0);
    expect(report.findings.find(({ explanation }) => explanation === 'multi-turn')?.supported).toBe(true);
  });
});
