import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tauFlag } from '../cli/commands/aggregate.ts';
import {
  aggregateNumbers,
  defaultReps,
  linspace,
  profileTaus,
  replicateWork,
} from '../eval/report/aggregate.ts';
import { readScoreFiles, type AlgorithmScores } from '../eval/io/formats/scores.ts';
import {
  probabilityOfImprovement,
  probabilityOfImprovementInterval,
  rliableAggregates,
  stratifiedBootstrap,
} from '../eval/index.ts';
import { main as reportMain, parseReportOptions } from '../publish/page/reportPage.ts';
import { progressBar } from '../lib/progress.ts';
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
    iqm: { estimate: number; low: number | null; high: number | null };
    mean: { estimate: number; low: number | null; high: number | null };
    median: { estimate: number; low: number | null; high: number | null };
    optimalityGap: { estimate: number; low: number | null; high: number | null };
    profile: Array<{ tau: number; estimate: number; low: number | null; high: number | null }>;
  }>;
  improvements: Array<{ x: string; y: string; estimate: number; low: number | null; high: number | null }>;
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

describe('the bootstrap: sorted replicates, whole runs', () => {
  it("the sorted replicate it hands the statistic is Float64Array's sort of the replicate, ties and -0 included", () => {
    const scores = [
      [0, -0, 0.5, 1],
      [-0, 0.5, 0.5, 0],
      [1, 0, -0, 0.25],
    ];
    let checked = 0;
    for (const options of [{}, { taskBootstrap: true }, { wholeRuns: true }])
      stratifiedBootstrap(
        scores,
        (sample, sorted) => {
          const expected = sample.slice().sort();
          const got = sorted();
          expect(Array.from(got).map((v) => Object.is(v, -0))).toEqual(
            Array.from(expected).map((v) => Object.is(v, -0)),
          );
          expect(got).toEqual(expected);
          checked += 1;
          return [0];
        },
        { reps: 200, rng: new Rng(5), ...options },
      );
    expect(checked).toBe(3 * 201);
  });

  // Runs that are each one policy over three tasks: run effects make the tasks correlated.
  // Reference variances of the bootstrap mean from Python 3.11.7, numpy 2.4.6:
  //   np.var(x.mean(axis=1)) / N                  (whole runs redrawn)      0.014774305555555558
  //   np.sum(np.var(x, axis=0)) / N / M**2        (runs redrawn per task)   0.005260416666666667
  const POLICIES = [
    [0.2, 0.3, 0.1],
    [0.6, 0.7, 0.5],
    [0.4, 0.6, 0.3],
    [0.9, 0.8, 0.9],
  ];
  const replicateVariance = (wholeRuns: boolean) => {
    const means: number[] = [];
    stratifiedBootstrap(
      POLICIES,
      (sample) => {
        means.push(sample.reduce((a, b) => a + b, 0) / sample.length);
        return [0];
      },
      { reps: 40_000, wholeRuns, rng: new Rng(11) },
    );
    means.shift(); // the data's own
    const mean = means.reduce((a, b) => a + b, 0) / means.length;
    return means.reduce((a, b) => a + (b - mean) ** 2, 0) / means.length;
  };

  it('whole runs: the variance of the mean is that of the run means over N; within tasks, the sum of task variances over N M^2', () => {
    // 40,000 replicates: the relative SE of a variance estimate is about sqrt(2 / 40,000) = 0.7%
    expect(replicateVariance(true) / 0.014774305555555558).toBeCloseTo(1, 1);
    expect(replicateVariance(false) / 0.005260416666666667).toBeCloseTo(1, 1);
  });

  it('whole runs widen the intervals of correlated tasks, for the aggregates and for P(X > Y)', () => {
    const shifted = POLICIES.map((row) => row.map((score) => score + 0.1));
    const width = ({ low, high }: { low: number; high: number }) => high - low;
    const within = rliableAggregates(POLICIES, { metrics: ['mean'], reps: 4000, rng: new Rng(3) });
    const whole = rliableAggregates(POLICIES, {
      metrics: ['mean'],
      reps: 4000,
      wholeRuns: true,
      rng: new Rng(3),
    });
    expect(whole.metrics.mean!.estimate).toBe(within.metrics.mean!.estimate);
    expect(width(whole.metrics.mean!)).toBeGreaterThan(1.4 * width(within.metrics.mean!));
    const pairWithin = probabilityOfImprovementInterval(shifted, POLICIES, { reps: 4000, rng: new Rng(4) });
    const pairWhole = probabilityOfImprovementInterval(shifted, POLICIES, {
      reps: 4000,
      wholeRuns: true,
      rng: new Rng(4),
    });
    expect(pairWhole.estimate).toBe(pairWithin.estimate);
    expect(width(pairWhole)).toBeGreaterThan(width(pairWithin));
  });
});

describe('taus', () => {
  // numpy 2.4.6: np.linspace(0.0, 8.0, 81) (rliable's Atari thresholds) and np.linspace(-1, 60, 7)
  it('START:STOP:COUNT is np.linspace to the bit', () => {
    const atari = tauFlag('0:8:81');
    expect(atari).toHaveLength(81);
    expect([3, 7, 29, 41, 57, 79].map((i) => atari[i])).toEqual([
      0.30000000000000004, 0.7000000000000001, 2.9000000000000004, 4.1000000000000005, 5.7, 7.9,
    ]);
    expect(linspace(-1, 60, 7)).toEqual([
      -1.0, 9.166666666666666, 19.333333333333332, 29.5, 39.666666666666664, 49.83333333333333, 60.0,
    ]);
    expect(tauFlag('0, 0.5,1,2')).toEqual([0, 0.5, 1, 2]);
    expect(() => tauFlag('0,1,0.5')).toThrow(/must ascend: 0.5 follows 1/);
    expect(() => tauFlag('0,x')).toThrow(/'x' is not a finite number/);
    expect(() => tauFlag('0:1:1')).toThrow(/COUNT must be an integer/);
  });

  it('log: 21 taus evenly spaced in sign(x) log(1 + |x|) from the lowest score to the highest', () => {
    // numpy 2.4.6: f = sign(x) log1p(|x|), g = sign(y) expm1(|y|); g(f(-1) + (f(60) - f(-1)) * arange(21) / 20)
    const reference = [
      -1.0, -0.5729394473462713, -0.2370692525089968, 0.02783636479730949, 0.3068988339397133,
      0.6617280927687345, 1.1128951855994957, 1.6865562932688756, 2.415969124305964, 3.3434210135286446,
      4.522680508593631, 6.022114573972983, 7.928652130659054, 10.35282371577967, 13.4351694338052,
      17.354386697032712, 22.33769011642331, 28.67398415215114, 36.7306122015244, 46.97465314406128, 60.0,
    ];
    const atari = [
      {
        scores: [
          [-1, 3],
          [0.5, 60],
        ],
      },
    ] as unknown as AlgorithmScores[];
    const taus = profileTaus(atari, 'log');
    taus.forEach((tau, i) => expect(tau).toBeCloseTo(reference[i]!, 12));
    expect(profileTaus(atari)).toEqual(Array.from({ length: 21 }, (_, i) => -1 + (61 * i) / 20));
  });
});

describe('replicates fit the size of the data', () => {
  const shape = (runs: number, tasks: number) =>
    ({
      runs: Array.from({ length: runs }, String),
      tasks: Array.from({ length: tasks }, String),
    }) as AlgorithmScores;

  it("rliable's 50,000 for small data, fewer (whole thousands, at least 2,000) for large", () => {
    expect(defaultReps([shape(5, 4), shape(4, 4)])).toBe(50_000);
    // two algorithms of 10 runs x 560 tasks: 5,600 + 5,600 scores, drawn again for the pair
    expect(replicateWork([shape(10, 560), shape(10, 560)])).toBe(22_400);
    expect(defaultReps([shape(10, 560), shape(10, 560)])).toBe(22_000);
    // three algorithms: each in two pairs
    expect(replicateWork([shape(2, 3), shape(4, 3), shape(5, 3)])).toBe(3 * (6 + 12 + 15));
    expect(defaultReps([shape(10, 8300), shape(10, 8300)])).toBe(2000);
  });

  it('says when the default was lowered, and shows progress on a terminal', async () => {
    let drawn = '';
    const algorithms = readScoreFiles([`${SAMPLES}/scores.csv`]);
    const numbers = aggregateNumbers(algorithms, {
      reps: 300,
      seed: 0,
      gamma: 1,
      progress: (total) =>
        progressBar('aggregate', total, { terminal: true, write: (text) => (drawn += text) }),
    });
    expect(numbers.reps).toBe(300);
    // two algorithms and one pair, 300 replicates each
    expect(drawn).toMatch(/\raggregate \[#{24}\] 900\/900 \d+s/);
    expect(drawn.endsWith('\n')).toBe(true);
  });
});

describe("rliable's layouts beside the long one", () => {
  const dir = mkdtempSync(join(tmpdir(), 'aggregate-layouts-'));
  const file = (name: string, text: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const csvLines = (scores: number[][], prefix: (run: number) => string[]) =>
    scores.map((row, run) => [...prefix(run), ...row].join(','));
  const TASKS = ['sort', 'parse', 'merge', 'count'];
  const numbersOf = (json: AggregateJson) =>
    json.algorithms.map(({ algorithm, runs, iqm, mean, median, optimalityGap, profile }) => ({
      algorithm,
      runs,
      iqm,
      mean,
      median,
      optimalityGap,
      profile,
    }));

  it('a wide CSV (a line per run, a column per task), a headerless matrix and a score dict give the long file its numbers', async () => {
    const long = await aggregateJson([`${SAMPLES}/scores.csv`, '--reps', '400', '--seed', '2']);
    const wide = file(
      'wide.csv',
      [
        `algorithm,run,${TASKS.join(',')}`,
        ...csvLines(BASELINE, (run) => ['baseline', String(run)]),
        ...csvLines(TUNED, (run) => ['tuned', String(run)]),
      ].join('\n'),
    );
    const fromWide = await aggregateJson([wide, '--reps', '400', '--seed', '2']);
    expect(numbersOf(fromWide)).toEqual(numbersOf(long));
    expect(fromWide.improvements).toEqual(long.improvements);
    // rliable's own: {algorithm: runs x tasks} (tasks named 0, 1, ...), and np.savetxt(FILE, scores, delimiter=',')
    const dict = await aggregateJson([`${SAMPLES}/rliable.json`, '--reps', '400', '--seed', '2']);
    expect(numbersOf(dict)).toEqual(numbersOf(long));
    expect(dict.improvements).toEqual(long.improvements);
    const baseline = file('baseline.csv', csvLines(BASELINE, () => []).join('\n'));
    const tuned = file('tuned.json', JSON.stringify(TUNED));
    const apart = await aggregateJson([baseline, tuned, '--reps', '400', '--seed', '2']);
    expect(numbersOf(apart)).toEqual(numbersOf(long));
    // pandas' to_csv: the index, an unnamed first column, names the runs (the file names the
    // algorithm, and the algorithm its random stream)
    mkdirSync(join(dir, 'pandas'));
    const pandas = file(
      'pandas/baseline.csv',
      [`,${TASKS.join(',')}`, ...csvLines(BASELINE, (run) => [`r${run}`])].join('\n'),
    );
    expect(numbersOf(await aggregateJson([pandas, '--reps', '400', '--seed', '2']))).toEqual(
      numbersOf(long).slice(0, 1),
    );
    // and without its index (to_csv(index=False)), a numpy array's columns named 0, 1, 2, ...: a header
    mkdirSync(join(dir, 'unindexed'));
    const unindexed = file('unindexed/baseline.csv', ['0,1,2,3', ...csvLines(BASELINE, () => [])].join('\n'));
    const read = await aggregateJson([unindexed, '--reps', '400', '--seed', '2']);
    expect(read.algorithms[0]!.runs).toBe(5);
    expect(numbersOf(read)).toEqual(numbersOf(long).slice(0, 1));
  });

  it('refuses a ragged matrix, a runs x tasks x frames array and a NaN, naming the algorithm and the run', async () => {
    await expectCliError(
      ['aggregate', file('ragged.json', JSON.stringify({ dqn: [[0.1, 0.2], [0.3]] }))],
      1,
      /ragged\.json: algorithm 'dqn': run 1 has 1 scores, run 0 has 2/,
    );
    await expectCliError(
      ['aggregate', file('frames.json', JSON.stringify({ dqn: [[[0.1, 0.2]]] }))],
      1,
      /frames\.json: algorithm 'dqn': run 0, task 0: a list, not a score/,
    );
    await expectCliError(
      ['aggregate', file('nan.json', '{"dqn": [[0.1, NaN]]}')],
      1,
      /nan\.json: algorithm 'dqn': run 0, task 1: null \(NaN or infinity in Python\) is not a finite number/,
    );
    await expectCliError(
      ['aggregate', file('wide-bad.csv', 'run,pong\n0,0.5\n1,high\n')],
      1,
      /wide-bad\.csv:3: field 'pong': 'high' is not a finite decimal number/,
    );
  });

  it("another tool's file: what it is and what aggregate reads, not a missing CSV header", async () => {
    for (const [path, what] of [
      ['samples/inspect/arith-model-a.eval', /an Inspect log \(\.eval\), not a score file/],
      ['samples/inspect/arith-model-b.json', /an Inspect log \(\.json\), not a score file/],
      ['samples/humaneval/samples.jsonl_results.jsonl', /HumanEval results/],
      ['samples/blog-example.csv', /result rows \(task, sample, passed\)/],
    ] as const) {
      const line = await expectCliError(['aggregate', path], 1, what);
      expect(line).toMatch(/aggregate reads scores by run and task, in CSV or JSON/);
      expect(line).toMatch(/tinyagent metrics reads/);
    }
    // what rliable's users hold: a pickle (the Atari and Procgen scores), NumPy arrays
    const pickle = file('atari.pkl', Buffer.from([0x80, 0x04, 0x95]));
    await expectCliError(['aggregate', pickle], 1, /a Python pickle, not a score file.*json\.dump/);
    const npy = file('scores.npy', Buffer.from('\x93NUMPY\x01\x00', 'latin1'));
    await expectCliError(['aggregate', npy], 1, /a NumPy \.npy array.*np\.savetxt/);
  });

  it('--resample whole-runs, --tau and --tau-scale log: said in the output and in the JSON', async () => {
    const json = (await aggregateJson([
      `${SAMPLES}/scores.csv`,
      '--reps',
      '300',
      '--resample',
      'whole-runs',
      '--tau',
      '0:1:5',
      '--tau-scale',
      'log',
    ])) as AggregateJson & { resample: string; tauScale: string; taus: number[]; notes: string[] };
    expect(json).toMatchObject({ resample: 'whole-runs', tauScale: 'log', taus: [0, 0.25, 0.5, 0.75, 1] });
    expect(json.algorithms[0]!.profile.map(({ estimate }) => estimate)).toEqual([0.9, 0.65, 0.4, 0.2, 0]);
    expect(json.notes.join(' ')).toMatch(/Whole runs redrawn/);
    expect(json.coverage).toMatch(/whole runs redrawn, as here/);
    const text = await cli(['aggregate', `${SAMPLES}/scores.csv`, '--reps', '300']);
    expect(text.stdout).toMatch(/300 bootstrap replicates \(--reps\)/);
    expect(text.stdout).toMatch(
      /Runs redrawn within each task apart \(rliable's stratified bootstrap\).*--resample whole-runs/,
    );
    await expectCliError(
      ['aggregate', `${SAMPLES}/scores.csv`, '--resample', 'seeds'],
      2,
      /--resample must be one of/,
    );
    await expectCliError(['aggregate', `${SAMPLES}/scores.csv`, '--tau', '1,0'], 2, /--tau must ascend/);
    await expectCliError(['aggregate', `${SAMPLES}/scores.csv`, '--tau-scale', 'ln'], 2, /--tau-scale/);
  });

  it('--out DIR twice: the second run writes over the first; a file at DIR is refused', async () => {
    const out = join(dir, 'out');
    for (const scale of ['linear', 'log'])
      expect(
        (
          await cli([
            'aggregate',
            `${SAMPLES}/scores.csv`,
            '--reps',
            '200',
            '--tau-scale',
            scale,
            '--out',
            out,
          ])
        ).code,
      ).toBe(0);
    const spec = (name: string) => JSON.parse(readFileSync(join(out, 'figures', name), 'utf8'));
    // one panel per metric, each on its own scale (rliable's plot_interval_estimates); the profile on a symlog axis
    const metrics = spec('aggregate-metrics.vl.json');
    expect(metrics.hconcat.map((panel: { title: string }) => panel.title)).toEqual([
      'IQM',
      'mean',
      'median',
      'optimality gap (gamma 1)',
    ]);
    expect(metrics.resolve).toEqual({ scale: { y: 'independent' } });
    const x = spec('aggregate-profiles.vl.json').hconcat[0].layer[0].encoding.x;
    expect(x.scale.type).toBe('symlog');
    expect(x.axis.values).toEqual([0, 0.5, 1]);
    await expectCliError(
      ['aggregate', `${SAMPLES}/scores.csv`, '--out', `${SAMPLES}/scores.csv`],
      1,
      /--out: '.*scores\.csv' is a regular file; give a folder/,
    );
  });
});

describe('no Infinity, NaN or zero-width interval', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aggregate-finite-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const none = { low: null, high: null };

  it('scores too large to sum are refused naming the file, with or without --tau, and --out writes nothing', async () => {
    const huge = file('huge.json', '{"x": [[1e308, 1e308], [1e308, 1e308], [1e308, 1e308]]}');
    const tooLarge = new RegExp(
      `${huge}: algorithm 'x': run '0' scores 1e\\+308 on task '0', too large to sum`,
    );
    await expectCliError(['aggregate', huge, '--tau', '0,1', '--reps', '200'], 1, tooLarge);
    await expectCliError(['aggregate', huge, '--reps', '200'], 1, tooLarge);
    const out = join(dir, 'out');
    await expectCliError(['aggregate', huge, '--reps', '200', '--out', out], 1, tooLarge);
    expect(existsSync(out)).toBe(false);
    const opposite = file('opposite.csv', 'run,task,score\n0,a,1e308\n0,b,-1e308\n');
    await expectCliError(['aggregate', opposite], 1, new RegExp(`${opposite}: .*task 'a', too large to sum`));
    // the largest score an algorithm of 4 scores takes (largestScore(4)) gives finite numbers
    const largest = String(Number.MAX_VALUE / 160);
    const argv = [
      file(
        'largest.csv',
        `run,task,score\n0,a,${largest}\n0,b,-${largest}\n1,a,${largest}\n1,b,${largest}\n`,
      ),
      '--gamma',
      '1e100',
      '--reps',
      '200',
    ];
    const text = await cli(['aggregate', ...argv]);
    expect(text.code).toBe(0);
    expect(text.stdout).not.toMatch(/Infinity|NaN/);
    const [row] = (await aggregateJson(argv)).algorithms;
    for (const { estimate, low, high } of [row!.mean, row!.iqm, row!.median, row!.optimalityGap])
      expect([estimate, low, high].every(Number.isFinite), JSON.stringify(row)).toBe(true);
  });

  it('--gamma has a range in --help and beyond it is a usage error', async () => {
    const help = await cli(['aggregate', '--help']);
    expect(help.stdout).toMatch(/--gamma VALUE .*\[-1e\+100\.\.1e\+100\]/);
    await expectCliError(['aggregate', `${SAMPLES}/scores.csv`, '--gamma', '1e308'], 2, /--gamma must be in/);
  });

  it('one run: the estimate with no interval (null in JSON, n/a in the table), for P(X > Y) too', async () => {
    const oneRun = file('onerun.csv', 'run,task,score\n0,a,0.3\n0,b,0.7\n');
    const [alone] = (await aggregateJson([oneRun, '--reps', '200'])).algorithms;
    expect(alone!.mean).toEqual({ estimate: 0.5, ...none });
    expect(alone!.iqm).toEqual({ estimate: 0.5, ...none });
    expect(alone!.profile.every(({ low, high }) => low === null && high === null)).toBe(true);
    const text = await cli(['aggregate', oneRun, '--reps', '200']);
    expect(text.stdout).toMatch(/\| onerun \| 1 \| 0\.500 \(n\/a: 1 run\) \|/);
    const pair = file('pair.csv', 'algorithm,run,task,score\nA,0,a,0.3\nA,0,b,0.7\nB,0,a,0.5\nB,0,b,0.9\n');
    const paired = await aggregateJson([pair, '--resample', 'whole-runs', '--reps', '200']);
    expect(paired.improvements[0]).toEqual({ x: 'B', y: 'A', estimate: 1, ...none });
    // one run on one side only: the other side's spread alone is not the pair's
    const uneven = file(
      'uneven.csv',
      'algorithm,run,task,score\nA,0,a,0.3\nA,0,b,0.7\nB,0,a,0.5\nB,0,b,0.2\nB,1,a,0.1\nB,1,b,0.9\n',
    );
    expect((await aggregateJson([uneven, '--reps', '200'])).improvements[0]).toMatchObject(none);
  });

  it('no spread: every score equal, and a profile share of 0 or 1 in every replicate', async () => {
    const equal = file('equal.csv', 'run,task,score\n0,a,0.5\n0,b,0.5\n1,a,0.5\n1,b,0.5\n');
    const [alike] = (await aggregateJson([equal, '--reps', '200'])).algorithms;
    expect(alike!.mean).toEqual({ estimate: 0.5, ...none });
    expect(alike!.iqm).toEqual({ estimate: 0.5, ...none });
    expect(alike!.profile.every(({ low }) => low === null)).toBe(true);
    const text = await cli(['aggregate', equal, '--reps', '200']);
    expect(text.stdout).toMatch(/0\.500 \(n\/a: no spread\)/);
    expect(text.stdout).toMatch(/^n\/a: no interval where one would have zero width/m);
    // above the highest score (the last default tau) no replicate has a score; below the lowest, all do
    const { algorithms } = await aggregateJson([`${SAMPLES}/scores.csv`, '--reps', '500']);
    const [baseline, tuned] = algorithms;
    expect(baseline!.profile.at(-1)).toEqual({ tau: 1, estimate: 0, ...none });
    expect(tuned!.profile[0]).toEqual({ tau: 0, estimate: 1, ...none });
    expect(baseline!.profile[0]!.low).toBeLessThan(baseline!.profile[0]!.high!);
    expect(baseline!.iqm.low).toBeLessThan(baseline!.iqm.high!);
  });
});
