import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probabilityOfImprovement, rliableAggregates } from '../eval/index.ts';
import { main as reportMain, parseReportOptions } from '../experiments/report-page.ts';
import { Rng } from '../lib/rng.ts';
import { cli, expectCliError } from './support/cli.ts';

// samples/aggregate/scores.csv: baseline (5 runs) and tuned (4 runs) over 4 tasks. Reference
// values from Python 3.11.7, numpy 2.4.6, scipy 1.17.1, following rliable/metrics.py:
//   np.mean(np.mean(x, axis=0))                        (aggregate_mean)
//   np.median(np.mean(x, axis=0))                      (aggregate_median)
//   scipy.stats.trim_mean(x, 0.25, axis=None)          (aggregate_iqm)
//   gamma - np.mean(np.minimum(x, gamma))              (aggregate_optimality_gap), gamma 1 and 0.5
//   (x.flatten() > tau).mean()                         (score distributions)
//   mean over tasks of mannwhitneyu(x[:, m], y[:, m], alternative='greater').statistic / (n_x n_y)
//                                                      (probability_of_improvement)
const SAMPLES = 'samples/aggregate';
const BASELINE = [
  [0.3, 0.64, 0.76, 0],
  [0.23, 0.45, 0.81, 0.3],
  [0.23, 0.51, 0.87, 0.15],
  [0.32, 0.46, 0.8, 0.2],
  [0.1, 0.53, 0.51, 0],
];
const TUNED = [
  [0.17, 0.61, 0.61, 0.34],
  [0.47, 0.62, 0.42, 0.22],
  [0.44, 0.67, 0.57, 0.23],
  [0.3, 0.53, 0.96, 0.18],
];
const REFERENCE = {
  baseline: { mean: 0.4085, median: 0.377, iqm: 0.384, gap1: 0.5915, gapHalf: 0.16300000000000003 },
  tuned: {
    mean: 0.45874999999999994,
    median: 0.47624999999999995,
    iqm: 0.45999999999999996,
    gap1: 0.54125,
    gapHalf: 0.10812500000000003,
  },
};
const PROFILE = { baseline: [0.9, 0.65, 0.4, 0.2], tuned: [1.0, 0.75, 0.4375, 0.0625] };

describe("rliable's aggregates against numpy and scipy", () => {
  for (const [name, scores] of [
    ['baseline', BASELINE],
    ['tuned', TUNED],
  ] as const) {
    it(`${name}: mean, median, IQM, optimality gap and profile`, () => {
      const all = ['mean', 'median', 'iqm', 'optimalityGap'] as const;
      const { metrics, profile } = rliableAggregates(scores, {
        metrics: all,
        taus: [0, 0.25, 0.5, 0.75],
        reps: 200,
        rng: new Rng(1),
      });
      const reference = REFERENCE[name];
      expect(metrics.mean!.estimate).toBeCloseTo(reference.mean, 12);
      expect(metrics.median!.estimate).toBeCloseTo(reference.median, 12);
      expect(metrics.iqm!.estimate).toBeCloseTo(reference.iqm, 12);
      expect(metrics.optimalityGap!.estimate).toBeCloseTo(reference.gap1, 12);
      expect(profile.map(({ estimate }) => estimate)).toEqual(PROFILE[name]);
      const half = rliableAggregates(scores, {
        metrics: ['optimalityGap'],
        gamma: 0.5,
        reps: 200,
        rng: new Rng(1),
      });
      expect(half.metrics.optimalityGap!.estimate).toBeCloseTo(reference.gapHalf, 12);
      for (const metric of all) {
        expect(metrics[metric]!.low).toBeLessThanOrEqual(metrics[metric]!.estimate);
        expect(metrics[metric]!.high).toBeGreaterThanOrEqual(metrics[metric]!.estimate);
      }
    });
  }

  it('probability of improvement, ties counted 1/2', () => {
    expect(probabilityOfImprovement(TUNED, BASELINE)).toBeCloseTo(0.675, 12);
    expect(probabilityOfImprovement(BASELINE, TUNED)).toBeCloseTo(0.325, 12);
  });

  it('the intervals redraw runs within each task: runs alike within every task give no width', () => {
    const alike = Array.from({ length: 4 }, () => [0.2, 0.4, 0.6, 0.9]);
    const { metrics } = rliableAggregates(alike, { metrics: ['iqm', 'median'], reps: 300, rng: new Rng(2) });
    expect(metrics.iqm).toEqual({ estimate: 0.5, low: 0.5, high: 0.5 });
    expect(metrics.median).toEqual({ estimate: 0.5, low: 0.5, high: 0.5 });
  });

  it('refuses taus out of order and a gamma that is not a number', () => {
    expect(() =>
      rliableAggregates(BASELINE, { metrics: ['iqm'], taus: [0.5, 0.2], rng: new Rng(1) }),
    ).toThrow(/ascending/);
    expect(() => rliableAggregates(BASELINE, { metrics: ['iqm'], gamma: NaN, rng: new Rng(1) })).toThrow(
      /gamma/,
    );
  });
});

interface AggregateJson {
  reps: number;
  algorithms: Array<{
    algorithm: string;
    path: string;
    runs: number;
    tasks: number;
    iqm: { estimate: number; low: number; high: number };
    mean: { estimate: number };
    median: { estimate: number };
    optimalityGap: { estimate: number };
    profile: Array<{ tau: number; estimate: number }>;
  }>;
  improvements: Array<{ x: string; y: string; estimate: number; low: number; high: number }>;
  coverage: string;
}

async function aggregateJson(argv: string[]): Promise<AggregateJson> {
  const result = await cli(['aggregate', ...argv, '--json']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as AggregateJson;
}

describe('tinyagent aggregate', () => {
  it('reads one file with an algorithm column and gives the reference values', async () => {
    const numbers = await aggregateJson([`${SAMPLES}/scores.csv`, '--reps', '500']);
    expect(numbers.reps).toBe(500);
    expect(numbers.algorithms.map(({ algorithm, runs, tasks }) => [algorithm, runs, tasks])).toEqual([
      ['baseline', 5, 4],
      ['tuned', 4, 4],
    ]);
    const [baseline, tuned] = numbers.algorithms;
    expect(baseline!.iqm.estimate).toBeCloseTo(REFERENCE.baseline.iqm, 12);
    expect(tuned!.median.estimate).toBeCloseTo(REFERENCE.tuned.median, 12);
    expect(tuned!.optimalityGap.estimate).toBeCloseTo(REFERENCE.tuned.gap1, 12);
    expect(baseline!.profile.map(({ tau }) => tau)).toEqual(Array.from({ length: 21 }, (_, i) => i / 20));
    expect(numbers.improvements).toHaveLength(1);
    expect(numbers.improvements[0]).toMatchObject({ x: 'tuned', y: 'baseline' });
    expect(numbers.improvements[0]!.estimate).toBeCloseTo(0.675, 12);
    expect(numbers.coverage).toMatch(/only for the IQM and P\(X > Y\) at the seed study's design/);
  });

  it('one file per algorithm, named by the file, gives the same numbers as one file with a column', async () => {
    const together = await aggregateJson([`${SAMPLES}/scores.csv`, '--reps', '500', '--seed', '3']);
    const apart = await aggregateJson([
      `${SAMPLES}/baseline.csv`,
      `${SAMPLES}/tuned.jsonl`,
      '--reps',
      '500',
      '--seed',
      '3',
    ]);
    expect(apart.algorithms.map(({ algorithm }) => algorithm)).toEqual(['baseline', 'tuned']);
    const withoutPath = ({ path: _path, ...row }: AggregateJson['algorithms'][number]) => row;
    expect(apart.algorithms.map(withoutPath)).toEqual(together.algorithms.map(withoutPath));
    expect(apart.improvements).toEqual(together.improvements);
  });

  it('prints the table with the coverage note', async () => {
    const result = await cli(['aggregate', `${SAMPLES}/scores.csv`, '--reps', '300']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\| baseline \| 5 \| 0\.384 \[/);
    expect(result.stdout).toMatch(/\| P\(tuned > baseline\) \| 0\.675 \[/);
    expect(result.stdout).toMatch(
      /no other design, and not the mean, median, optimality gap or profile bands, is simulated/,
    );
  });

  const write = (name: string, text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'aggregate-'));
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('bad files: one line naming the file, the line and the problem', async () => {
    const ragged = write('a.csv', 'run,task,score\n0,x,0.5\n0,y\n');
    await expectCliError(['aggregate', ragged], 1, new RegExp(`${ragged}:3: expected 3 fields`));
    const word = write('a.csv', 'run,task,score\n0,x,high\n');
    await expectCliError(
      ['aggregate', word],
      1,
      new RegExp(`${word}:2: field 'score': 'high' is not a finite decimal number`),
    );
    const missing = write('a.csv', 'algorithm,run,task,score\nA,0,x,0.5\nA,0,y,0.4\nA,1,x,0.3\n');
    await expectCliError(
      ['aggregate', missing],
      1,
      new RegExp(`${missing}:4: algorithm 'A': run '1' has no score for task 'y'`),
    );
    const twice = write('a.csv', 'run,task,score\n0,x,0.5\n0,x,0.6\n');
    await expectCliError(
      ['aggregate', twice],
      1,
      new RegExp(`${twice}:3: .*scores task 'x' twice \\(also at line 2\\)`),
    );
    const header = write('a.csv', 'run,score\n0,0.5\n');
    await expectCliError(
      ['aggregate', header],
      1,
      new RegExp(`${header}:1: field 'task': missing from the CSV header`),
    );
    const json = write(
      'a.jsonl',
      '{"run": 0, "task": "x", "score": 0.5}\n{"run": 0, "task": "y", "score": "0.5"}\n',
    );
    await expectCliError(
      ['aggregate', json],
      1,
      new RegExp(`${json}:2: field 'score': "0.5" is not a finite number`),
    );
    const other = write('b.csv', 'run,task,score\n0,x,0.5\n0,z,0.5\n');
    const one = write('a.csv', 'run,task,score\n0,x,0.5\n0,y,0.5\n');
    await expectCliError(
      ['aggregate', one, other],
      1,
      new RegExp(`${other}: algorithm 'b' has no scores for task 'y'`),
    );
    await expectCliError(['aggregate', one, one], 1, /algorithm 'a' is also in/);
  });

  it('reads a large file (200,000 rows) without running out of stack', async () => {
    const rows = ['run,task,score'];
    for (let run = 0; run < 20; run += 1)
      for (let task = 0; task < 10_000; task += 1)
        rows.push(`${run},t${task},${((run * 7 + task) % 11) / 10}`);
    const numbers = await aggregateJson([write('big.csv', `${rows.join('\n')}\n`), '--reps', '100']);
    expect(numbers.algorithms[0]).toMatchObject({ algorithm: 'big', runs: 20, tasks: 10_000 });
    expect(numbers.algorithms[0]!.profile.at(-1)!.tau).toBe(1);
  }, 60_000);

  it('--out writes figures that the report page shows, and nothing when the input is bad', async () => {
    const out = mkdtempSync(join(tmpdir(), 'aggregate-out-'));
    const bad = write('a.csv', 'run,task,score\n0,x,?\n');
    await expectCliError(['aggregate', bad, '--out', join(out, 'bad')], 1, /not a finite decimal number/);
    expect(existsSync(join(out, 'bad'))).toBe(false);
    const result = await cli([
      'aggregate',
      `${SAMPLES}/scores.csv`,
      '--reps',
      '300',
      '--out',
      join(out, 'good'),
    ]);
    expect(result.code).toBe(0);
    const written = JSON.parse(readFileSync(join(out, 'good', 'aggregate.json'), 'utf8')) as {
      figures: string[];
    };
    expect(written.figures).toEqual([
      'figures/aggregate-metrics.svg',
      'figures/aggregate-profiles.svg',
      'figures/aggregate-improvement.svg',
    ]);
    const options = parseReportOptions(['--aggregate', join(out, 'good'), '--out', join(out, 'page.html')]);
    await reportMain(options);
    const page = readFileSync(join(out, 'page.html'), 'utf8');
    // The page is a megabyte of inlined vega: check for each figure's spec and the section, not the whole text.
    expect(page.includes('id="sec-aggregate-1"')).toBe(true);
    for (const name of written.figures)
      expect(page.includes(`<figcaption>${name}</figcaption>`), name).toBe(true);
    expect(page.includes('P(tuned &#62; baseline)')).toBe(true);
    expect(() => parseReportOptions(['--aggregate', join(out, 'bad')])).toThrow(/no aggregate.json/);
  });
});
