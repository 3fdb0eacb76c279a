import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../cli/main.ts';

let out = '';
let err = '';
beforeEach(() => {
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
});
afterEach(() => vi.restoreAllMocks());

describe('tinyagent statistics commands', () => {
  it('metrics --json on the blog example', async () => {
    expect(
      await main(['metrics', 'samples/blog-example.jsonl', '--k', '1,10', '--reps', '500', '--json']),
    ).toBe(0);
    const report = JSON.parse(out);
    expect(report.tasks).toBe(4);
    expect(report.meanAccuracy.estimate).toBeCloseTo(0.325, 12);
    expect(report.firstSampleAccuracy.estimate).toBe(0.5);
    expect(report.passAtK['10'].estimate).toBeCloseTo(0.75, 12);
    expect(report.prefixPassAtK['10'].estimate).toBe(0.75);
    expect(report.allCorrectAtK['10'].estimate).toBe(0.25);
    expect(report.plugInPassAtK['10']).toBeLessThan(0.75);
    expect(report.checks.length).toBeGreaterThan(0);
  });

  it('metrics at 5/5 and 0/30: the exact interval over the tasks and samples, marked, never zero width', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tinyagent-boundary-'));
    try {
      const rows = (tasks: number, samples: number, passed: boolean) =>
        Array.from({ length: tasks * samples }, (_, i) =>
          JSON.stringify({ task: `t${Math.floor(i / samples)}`, sample: i % samples, passed }),
        ).join('\n');
      writeFileSync(join(dir, 'all.jsonl'), rows(5, 1, true));
      writeFileSync(join(dir, 'none.jsonl'), rows(10, 3, false));
      expect(await main(['metrics', join(dir, 'all.jsonl'), '--json'])).toBe(0);
      const all = JSON.parse(out);
      // statsmodels 0.13.5 proportion_confint(5, 5, method="beta")
      expect(all.meanAccuracy).toMatchObject({ estimate: 1, high: 1, method: 'exact over tasks' });
      expect(all.meanAccuracy.low).toBeCloseTo(0.4781762498950185, 10);
      expect(all.pooledShare.episodeLevel.method).toBe('exact over episodes');
      out = '';
      expect(await main(['metrics', join(dir, 'none.jsonl'), '--k', '1,2'])).toBe(0);
      // statsmodels 0.13.5 proportion_confint(0, 10, method="beta"): [0, 0.3085]
      expect(out).toMatch(/task-level \[0\.0%, 30\.8%\]\*/);
      expect(out).toMatch(/^\* exact \(Clopper-Pearson\) over the 10 tasks/m);
      expect(out).not.toMatch(/\[0\.0%, 0\.0%\]/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('metrics names both estimators of rho', async () => {
    expect(await main(['metrics', 'samples/blog-example.jsonl', '--reps', '200'])).toBe(0);
    expect(out).toMatch(
      /the chapter's rho \(sigma_task\^2 \/ \(mu \(1 - mu\)\)\) -?\d\.\d{3}, one-way ANOVA rho -?\d\.\d{3}/,
    );
  });

  it('metrics: k > n is reported by the checks (exit 1); a malformed file names line and field (exit 1)', async () => {
    expect(await main(['metrics', 'samples/blog-example.csv', '--k', '1,20', '--reps', '200'])).toBe(1);
    expect(out).toMatch(/FAIL\] k=20 <= n/);
    expect(await main(['metrics', 'test/fixtures-does-not-exist.jsonl'])).toBe(1);
    expect(err).toMatch(/no such file/);
  });

  it('a duplicated row is an input error naming both lines', async () => {
    expect(await main(['metrics', 'samples/diagnose/duplicated.jsonl'])).toBe(1);
    expect(err).toMatch(/lines 37 and 39/);
    expect(err.trim().split('\n')).toHaveLength(1);
  });

  it('a bad flag is exit 2 with one line', async () => {
    expect(await main(['interval', '--successes', '3', '--trials', '10', '--method', 'bogus'])).toBe(2);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toMatch(/--method must be one of/);
    err = '';
    expect(await main(['metrics', 'samples/blog-example.jsonl', '--nope'])).toBe(2);
    expect(err.trim().split('\n')).toHaveLength(1);
  });

  it('interval --json', async () => {
    expect(
      await main(['interval', '--successes', '3', '--trials', '10', '--method', 'clopper-pearson', '--json']),
    ).toBe(0);
    // statsmodels proportion_confint(3, 10, method="beta")
    expect(JSON.parse(out)).toMatchObject({
      estimate: 0.3,
      low: expect.closeTo(0.0667395111777345, 9),
      high: expect.closeTo(0.6524528500599973, 9),
      method: 'clopper-pearson',
      level: 0.95,
    });
  });

  it('passk: JSON keyed by k; k > n is exit 2', async () => {
    expect(await main(['passk', '--n', '2000', '--c', '5', '--k', '1,1000', '--json'])).toBe(0);
    const values = JSON.parse(out);
    expect(values['1000']).toBeCloseTo(0.9689062107418256, 12);
    expect(await main(['passk', '--n', '10', '--c', '3', '--k', '1,100'])).toBe(2);
    expect(err).toMatch(/--k 100 exceeds --n 10/);
  });

  it('power', async () => {
    expect(await main(['power', '--sd', '0.2913', '--delta', '0.05', '--design', 'unpaired', '--json'])).toBe(
      0,
    );
    expect(JSON.parse(out)).toMatchObject({ units: 533, perGroup: true });
  });

  it('compare prints harness differences first, then the paired difference', async () => {
    expect(
      await main([
        'compare',
        'samples/diagnose/greedy-pass1.jsonl',
        'samples/diagnose/sampled-pass10.jsonl',
        '--reps',
        '500',
      ]),
    ).toBe(0);
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^harness: 3 field\(s\) differ/);
    expect(out).toMatch(/B - A = -0\.\d+, paired bootstrap 95% interval/);
    expect(out).toMatch(/paired SE .* unpaired SE .* per-task correlation/);
  });

  it('diagnose --reported is a check: exit 1 on a mismatch (text and --json), 0 when the numbers agree', async () => {
    // samples/diagnose/one-batch.jsonl recomputes to unbiased pass@1 49.5% and pass@10 85.0%.
    const file = 'samples/diagnose/one-batch.jsonl';
    expect(await main(['diagnose', file, '--reported', '1:0.495,10:0.85'])).toBe(0);
    expect(out).toMatch(/reported pass@10 = 85\.0% vs recomputed 85\.0% \(agrees\)/);
    out = '';
    expect(await main(['diagnose', file, '--reported', '1:0.62'])).toBe(1);
    expect(out).toMatch(/reported pass@1 = 62\.0% vs recomputed 49\.5%  <- MISMATCH/);
    expect(err).toBe('tinyagent diagnose: a reported number does not match the raw rows (MISMATCH above)\n');
    out = '';
    expect(await main(['diagnose', file, '--reported', '1:0.62', '--json'])).toBe(1);
    expect(JSON.parse(out).reportedMismatch).toBe(true);
    expect(await main(['diagnose', file])).toBe(0);
  });

  it('diagnose --json names the supported explanation', async () => {
    expect(
      await main([
        'diagnose',
        'samples/diagnose/greedy-pass1.jsonl',
        'samples/diagnose/sampled-pass10.jsonl',
        '--json',
      ]),
    ).toBe(0);
    const report = JSON.parse(out);
    expect(report.numbers.inverted).toBe(true);
    expect(report.conclusion).toMatch(/Different harness/);
  });
});
