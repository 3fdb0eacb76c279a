import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    expect(await main(['interval', '--successes', '3', '--samples', '10', '--method', 'bogus'])).toBe(2);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toMatch(/--method must be one of/);
    err = '';
    expect(await main(['metrics', 'samples/blog-example.jsonl', '--nope'])).toBe(2);
    expect(err.trim().split('\n')).toHaveLength(1);
  });

  it('interval --json', async () => {
    expect(
      await main([
        'interval',
        '--successes',
        '3',
        '--samples',
        '10',
        '--method',
        'clopper-pearson',
        '--json',
      ]),
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
    expect(await main(['passk', '--samples', '2000', '--successes', '5', '--k', '1,1000', '--json'])).toBe(0);
    const values = JSON.parse(out);
    expect(values['1000']).toBeCloseTo(0.9689062107418256, 12);
    expect(await main(['passk', '--samples', '10', '--successes', '3', '--k', '1,100'])).toBe(2);
    expect(err).toMatch(/--k 100 exceeds --samples 10/);
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
    expect(lines[0]).toMatch(/^harness: 3 fields differ/);
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

/** A result file of tasks given as strings of 0/1 outcomes, after a header line when given. */
function resultFile(name: string, tasks: Record<string, string>, header?: object): string {
  const lines = [
    ...(header === undefined ? [] : [header]),
    ...Object.entries(tasks).flatMap(([task, outcomes]) =>
      Array.from(outcomes, (outcome, sample) => ({ task, sample, passed: outcome === '1' })),
    ),
  ];
  const path = join(folder, name);
  writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return path;
}
const folder = mkdtempSync(join(tmpdir(), 'eval-cli-'));
// per-task rates A .5 .25 1 0 .5, B .75 .5 1 .25 .5: differences .25 .25 0 .25 0
const before = resultFile('before.jsonl', { a: '1100', b: '1000', c: '1111', d: '0000', e: '0110' });
const after = resultFile('after.jsonl', { a: '1110', b: '1100', c: '1111', d: '1000', e: '0110' });

describe('from data to a design', () => {
  it('compare says how many tasks like these would detect the difference it measured', async () => {
    expect(await main(['compare', before, after, '--reps', '200', '--json'])).toBe(0);
    const report = JSON.parse(out);
    // Python 3 statistics: stdev([.25, .25, 0, .25, 0]) = 0.13693063937629152, mean 0.15;
    // ((NormalDist().inv_cdf(0.975) + NormalDist().inv_cdf(0.8)) * sd / 0.15) ** 2 = 6.5407 -> 7
    expect(report.tasksNeeded).toEqual({
      tasks: 7,
      why: null,
      sd: expect.closeTo(0.13693063937629152, 12),
      delta: expect.closeTo(0.15, 12),
      alpha: 0.05,
      power: 0.8,
    });
    out = '';
    expect(await main(['compare', before, after, '--reps', '200'])).toBe(0);
    expect(out).toMatch(
      /^tasks to detect a difference of 0\.150 \(paired, two-sided alpha 0\.05, power 0\.8\): 7 like these, from the 5 compared here \(SD of the per-task differences 0\.137; tinyagent power --sd 0\.137 --delta D/m,
    );
    // no difference, or one task: no number, and the reason
    out = '';
    expect(await main(['compare', before, before, '--reps', '200', '--json'])).toBe(0);
    expect(JSON.parse(out).tasksNeeded).toMatchObject({
      tasks: null,
      why: expect.stringMatching(/B - A is 0/),
    });
    const one = resultFile('one.jsonl', { a: '10' });
    const other = resultFile('other.jsonl', { a: '11' });
    out = '';
    expect(await main(['compare', one, other, '--reps', '200'])).toBe(0);
    expect(out).toMatch(
      /tasks to detect a difference of 0\.500 .*: n\/a \(1 task: the SD of the per-task differences needs 2\)/,
    );
  });

  it('compare notices two evaluations of one checkpoint, and says what B - A then is', async () => {
    const provenance = (checksum: string) => ({
      harness: { temperature: 1 },
      provenance: { checkpoint: { path: 'runs/default/step-80', step: 80, checksum } },
    });
    const first = resultFile('first.jsonl', { a: '1100', b: '1000' }, provenance('f'.repeat(64)));
    const second = resultFile('second.jsonl', { a: '1110', b: '1000' }, provenance('f'.repeat(64)));
    const other = resultFile('other-checkpoint.jsonl', { a: '1110', b: '1000' }, provenance('e'.repeat(64)));
    expect(await main(['compare', first, second, '--reps', '200'])).toBe(0);
    expect(out).toMatch(
      /warning: A and B are two evaluations of one checkpoint \(step 80, checksum ffffffffffff\) under one harness: B - A is evaluation noise/,
    );
    out = '';
    expect(await main(['compare', first, second, '--reps', '200', '--json'])).toBe(0);
    expect(JSON.parse(out).sameCheckpoint).toEqual({
      checksum: 'f'.repeat(64),
      step: 80,
      path: 'runs/default/step-80',
    });
    out = '';
    expect(await main(['compare', first, other, '--reps', '200', '--json'])).toBe(0);
    expect(JSON.parse(out).sameCheckpoint).toBeNull();
    expect(JSON.parse(out).warnings.join()).not.toMatch(/one checkpoint/);
  });

  it('power --from takes the SD from a compare result, a study compare file or a study folder', async () => {
    const comparison = join(folder, 'comparison.json');
    expect(await main(['compare', before, after, '--reps', '200', '--json'])).toBe(0);
    writeFileSync(comparison, out);
    out = '';
    expect(await main(['power', '--from', comparison, '--delta', '0.15', '--json'])).toBe(0);
    // the same number compare printed: 7 tasks (paired)
    expect(JSON.parse(out)).toMatchObject({
      units: 7,
      design: 'paired',
      sigma: expect.closeTo(0.13693063937629152, 12),
    });

    // results/study-compare-entropy.json: SDs 0.08526727281026407 (16 seeds), 0.09016876383195094 (8);
    // Python 3: pooled sqrt((15 a^2 + 7 b^2) / 22) = 0.0868568464314532, 2 (z sd / 0.05)^2 = 47.370 -> 48
    out = '';
    expect(
      await main(['power', '--from', 'results/study-compare-entropy.json', '--delta', '0.05', '--json']),
    ).toBe(0);
    expect(JSON.parse(out)).toMatchObject({
      units: 48,
      design: 'seeds',
      sigma: expect.closeTo(0.0868568464314532, 12),
    });
    // study compare's own "normal approximation" for its difference is the same calculation
    const committed = JSON.parse(readFileSync('results/study-compare-entropy.json', 'utf8')).comparison;
    out = '';
    expect(
      await main([
        'power',
        '--from',
        'results/study-compare-entropy.json',
        '--delta',
        String(Math.abs(committed.difference)),
        '--json',
      ]),
    ).toBe(0);
    expect(JSON.parse(out).units).toBe(committed.seedsNeeded.normal);

    // a study folder: the SD of its seeds' step-80 pass@1, the A side of that comparison
    out = '';
    expect(await main(['power', '--from', 'studies/default-16', '--delta', '0.05'])).toBe(0);
    // Python 3: 2 ((z 0.08526727281026407) / 0.05)^2 = 45.65 -> 46
    expect(out).toBe(
      '46 seeds per group to detect 0.05 at two-sided alpha 0.05 with power 0.8 (sigma 0.0853, sqrt(2) sigma for the difference; exact N 45.65)\n' +
        'sigma: step-80 held-out pass@1 over 16 seeds of studies/default-16\n',
    );
  });

  it('power --from refuses what it cannot read, and a design its SD is not of', async () => {
    expect(await main(['power', '--from', 'samples/blog-example.jsonl', '--delta', '0.1'])).toBe(1);
    expect(err).toMatch(/blog-example\.jsonl: not valid JSON/);
    const notOne = join(folder, 'not-one.json');
    writeFileSync(notOne, '{"units": 3}');
    err = '';
    expect(await main(['power', '--from', notOne, '--delta', '0.1'])).toBe(1);
    expect(err).toMatch(
      /not-one\.json: not a study folder, a tinyagent study compare --out file or a tinyagent compare --json output/,
    );
    err = '';
    expect(
      await main(['power', '--from', 'studies/default-16', '--delta', '0.1', '--design', 'paired']),
    ).toBe(2);
    expect(err).toMatch(/--design paired: the SD of studies\/default-16 is of design seeds/);
    err = '';
    expect(await main(['power', '--from', 'studies/default-16', '--sd', '0.1', '--delta', '0.1'])).toBe(2);
    expect(err).toMatch(/give --sd or --from, not both/);
  });
});

describe('no plug-in pass@k beyond the samples per task', () => {
  it('metrics prints n/a (null in JSON) for the plug-in where k exceeds the samples, and says 1 sample', async () => {
    expect(
      await main(['metrics', 'samples/blog-example.csv', '--k', '1,20', '--reps', '200', '--json']),
    ).toBe(1);
    const report = JSON.parse(out);
    expect(report.plugInPassAtK['20']).toBeNull();
    expect(report.pooledPlugInPassAtK['20']).toBeNull();
    expect(report.plugInPassAtK['1']).toBeCloseTo(0.325, 12);
    out = '';
    expect(await main(['metrics', 'samples/blog-example.csv', '--k', '1,20', '--reps', '200'])).toBe(1);
    expect(out).toMatch(/^ {2}20 {2}n\/a {2}.* n\/a$/m);
    expect(out).toMatch(/every task has at least 1 sample$/m);
    expect(out).toMatch(/4 tasks have fewer than 20 samples/);
    const single = resultFile('single.jsonl', { a: '1' });
    out = '';
    await main(['metrics', single, '--reps', '200']);
    expect(out).toMatch(/single\.jsonl: 1 task, 1 sample per task;/);
  });
});
