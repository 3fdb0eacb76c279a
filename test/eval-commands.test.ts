import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './support/cli.ts';

const folder = mkdtempSync(join(tmpdir(), 'eval-commands-'));
function write(name: string, records: unknown[]): string {
  const path = join(folder, name);
  writeFileSync(path, `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
  return path;
}
/** Rows of tasks given as strings of 0/1 outcomes, optionally with env seeds. */
function rows(tasks: Record<string, string>, envSeed?: (task: string, sample: number) => number): unknown[] {
  return Object.entries(tasks).flatMap(([task, outcomes]) =>
    Array.from(outcomes, (outcome, sample) => ({
      task,
      sample,
      passed: outcome === '1',
      ...(envSeed === undefined ? {} : { envSeed: envSeed(task, sample) }),
    })),
  );
}

const good = write('good.jsonl', rows({ a: '1100', b: '1000', c: '1111', d: '0000', e: '0110' }));
const malformed = write('malformed.jsonl', [{ task: 'a', sample: 0, passed: 'yes' }]);
const missing = join(folder, 'missing.jsonl');

describe('exit codes: 2 for a bad flag, 1 for a bad file, one line on stderr, for every statistics command', () => {
  const USAGE: Array<[string, string[]]> = [
    ['metrics', ['metrics', good, '--level', '2']],
    ['metrics', ['metrics', good, '--k', '1,x']],
    ['metrics', ['metrics']],
    ['compare', ['compare', good, good, '--reps', '5']],
    ['compare', ['compare', good]],
    ['diagnose', ['diagnose', good, '--reported', '1:1.5']],
    ['diagnose', ['diagnose', good, '--k', '0']],
    ['diagnose', ['diagnose', good, '--reported', '0x10:0.5']],
    ['passk', ['passk', '--samples', '10']],
    ['passk', ['passk', '--samples', '1e21', '--successes', '3', '--k', '2']],
    ['passk', ['passk', '--samples', '10', '--successes', '11']],
    ['interval', ['interval', '--successes', '3', '--samples', '1e21']],
    ['interval', ['interval', '--successes', '3', '--samples', '10', '--level', '1']],
    ['power', ['power', '--sd', '1', '--delta', '0.1', '--power', '0.025']],
    ['power', ['power', '--sd', '-1', '--delta', '0.1']],
  ];
  it.each(USAGE)('%s: usage error %j exits 2', async (_name, argv) => {
    const { code, stderr, stdout } = await cli(argv);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stdout).toBe('');
  });

  const DATA: Array<[string, string[], RegExp]> = [
    ['metrics', ['metrics', folder], /is a folder/],
    ['metrics', ['metrics', missing], /missing\.jsonl: no such file/],
    ['metrics', ['metrics', malformed], /malformed\.jsonl:1: field 'passed'/],
    ['compare', ['compare', good, folder], /is a folder/],
    ['compare', ['compare', missing, good], /no such file/],
    ['compare', ['compare', malformed, good], /field 'passed'/],
    ['diagnose', ['diagnose', folder], /is a folder/],
    ['diagnose', ['diagnose', good, missing], /no such file/],
    ['diagnose', ['diagnose', malformed], /field 'passed'/],
  ];
  it.each(DATA)('%s: bad file %j exits 1 naming the path', async (_name, argv, pattern) => {
    const { code, stderr } = await cli(argv);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(pattern);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("power: flags each in range whose N exceeds 2^53 - 1 are a statistic's refusal, exit 1, as diagnose --k above the samples is", async () => {
    const { code, stderr, stdout } = await cli(['power', '--sd', '1e300', '--delta', '1e-300']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^tinyagent power: .*exceeds 2\^53 - 1/);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stdout).toBe('');
  });
});

describe('numbers that do not exist are n/a, not 0', () => {
  const one = write('one-task.jsonl', rows({ a: '1101' }));
  const oneOther = write('one-task-b.jsonl', rows({ a: '1111', z: '0000' }));

  it('metrics on one task: no task-level interval, no clustered SE (null in JSON, n/a in text)', async () => {
    const json = await cli(['metrics', one, '--json', '--reps', '200']);
    const report = JSON.parse(json.stdout);
    expect(report.meanAccuracy).toMatchObject({ estimate: 0.75, low: null, high: null, clusteredSE: null });
    expect(report.pooledShare.episodeLevel.low).toBeLessThan(0.75);
    expect(report.warnings[0]).toMatch(/^1 task/);
    const text = await cli(['metrics', one, '--reps', '200']);
    expect(text.stdout).toMatch(/task-level n\/a: 1 task/);
    expect(text.stdout).toMatch(/clustered SE of the task mean n\/a: 1 task/);
  });

  it('compare with one common task: paired SE and interval n/a, with a warning', async () => {
    const text = await cli(['compare', one, oneOther, '--reps', '200']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/interval n\/a: 1 task/);
    expect(text.stdout).toMatch(/paired SE n\/a: 1 task, unpaired SE n\/a: 1 task/);
    expect(text.stdout).toMatch(/warning: 1 common task/);
    expect(text.stdout).not.toMatch(/\[\+0\.250, \+0\.250\]/);
    const report = JSON.parse((await cli(['compare', one, oneOther, '--json', '--reps', '200'])).stdout);
    expect(report).toMatchObject({
      pairedSE: null,
      unpairedSE: null,
      correlation: null,
      difference: { estimate: 0.25, low: null, high: null },
    });
  });

  it('compare where every task has the same difference: the interval is n/a (no spread), not zero-width', async () => {
    // A against itself (every difference 0), and B one sample better on each task (every difference +0.25)
    const better = write('better.jsonl', rows({ a: '1110', b: '1100', c: '1111', d: '1000', e: '1110' }));
    const aFile = write('a-file.jsonl', rows({ a: '1100', b: '1000', c: '1110', d: '0000', e: '0110' }));
    for (const [x, y, difference] of [
      [good, good, '+0.000'],
      [aFile, better, '+0.250'],
    ] as const) {
      const text = await cli(['compare', x, y, '--reps', '200']);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(
        new RegExp(`B - A = \\${difference}, paired bootstrap 95% interval n/a: no spread\n`),
      );
      expect(text.stdout).toMatch(
        new RegExp(
          `warning: every common task has the same difference, B - A = \\${difference}: resampled tasks have no spread`,
        ),
      );
      const report = JSON.parse((await cli(['compare', x, y, '--json', '--reps', '200'])).stdout);
      expect(report.difference).toMatchObject({ estimate: Number(difference), low: null, high: null });
      expect(report.pairedSE).toBe(0);
    }
    // one task's difference apart from the rest: the bootstrap has spread, and the interval is there
    const oneApart = write(
      'one-apart.jsonl',
      rows({ a: '1110', b: '1100', c: '1111', d: '1000', e: '0110' }),
    );
    const spread = JSON.parse((await cli(['compare', aFile, oneApart, '--json', '--reps', '200'])).stdout);
    expect(spread.difference.low).toBeLessThan(spread.difference.high);
    expect(spread.warnings.join('\n')).not.toMatch(/same difference/);
  });

  it('fewer than 5 tasks: intervals are shown with a warning that they are unreliable', async () => {
    const three = write('three.jsonl', rows({ a: '1100', b: '1000', c: '1111' }));
    const report = JSON.parse((await cli(['metrics', three, '--json', '--reps', '200'])).stdout);
    expect(report.meanAccuracy.low).not.toBeNull();
    expect(report.warnings.join('\n')).toMatch(
      /only 3 tasks: task-level intervals from fewer than 5 tasks are unreliable/,
    );
    const five = JSON.parse((await cli(['metrics', good, '--json', '--reps', '200'])).stdout);
    expect(five.warnings).toEqual([]);
  });
});

describe('each interval beside the estimate it belongs to', () => {
  it('unequal samples per task: the task mean (50%) and the pooled share (99%) each with their own intervals', async () => {
    const uneven = write('uneven.jsonl', rows({ a: '1'.repeat(100), b: '0' }));
    const { stdout, code } = await cli(['metrics', uneven, '--json', '--reps', '500', '--k', '1']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.meanAccuracy.estimate).toBe(0.5);
    expect(report.pooledShare).toMatchObject({
      estimate: 100 / 101,
      successes: 100,
      episodes: 101,
      equalsMeanAccuracy: false,
    });
    const { low, high } = report.pooledShare.episodeLevel;
    expect(low <= 100 / 101 && 100 / 101 <= high).toBe(true);
    expect(low).toBeGreaterThan(0.5); // it is the pooled share's interval, not the task mean's
    expect(report.meanAccuracy.low <= 0.5 && 0.5 <= report.meanAccuracy.high).toBe(true);
    expect(report.warnings.join('\n')).toMatch(/tasks have 1 to 100 samples/);
    const text = (await cli(['metrics', uneven, '--reps', '500', '--k', '1'])).stdout;
    expect(text).toMatch(/mean accuracy \(task mean, pass@1\)\s+50\.0%\s+task-level \[/);
    expect(text).toMatch(
      /pooled share \(100\/101 samples\)\s+99\.0%\s+task-level \[[^\]]+\], episode-level \[9\d\.\d%, 100\.0%\]/,
    );
  });
});

describe('compare reports how episodes were paired', () => {
  const tasks = { a: '1100', b: '1000', c: '1111', d: '0000', e: '0110' };
  const after = { a: '1110', b: '1100', c: '1111', d: '0001', e: '0111' };
  const seed = (task: string, sample: number) => 1000 * task.charCodeAt(0) + sample;

  it('common random numbers when every paired episode carries the same env seed', async () => {
    const a = write('crn-a.jsonl', [
      { harness: { temperature: 1 }, provenance: { run: 'a' } },
      ...rows(tasks, seed),
    ]);
    const b = write('crn-b.jsonl', [
      { harness: { temperature: 1 }, provenance: { run: 'b' } },
      ...rows(after, seed),
    ]);
    const text = await cli(['compare', a, b, '--reps', '200']);
    expect(text.stdout).toMatch(
      /^pairing: common random numbers \(env seeds match on all 20 paired episodes\)$/m,
    );
    const report = JSON.parse((await cli(['compare', a, b, '--json', '--reps', '200'])).stdout);
    expect(report.pairing).toMatchObject({ kind: 'common-random-numbers', matched: 20, total: 20 });
  });

  it('a warning naming how many differ when seeds are recorded but some differ', async () => {
    const a = write('seeds-a.jsonl', rows(tasks, seed));
    const b = write(
      'seeds-b.jsonl',
      rows(after, (task, sample) => seed(task, sample) + (task === 'c' ? 1 : 0)),
    );
    const text = await cli(['compare', a, b, '--reps', '200']);
    expect(text.stdout).toMatch(/warning: env seeds differ on 4 of 20 paired episodes/);
    expect(text.stdout).toMatch(/pairing: by task and sample index; env seeds differ on 4 of 20/);
    const report = JSON.parse((await cli(['compare', a, b, '--json', '--reps', '200'])).stdout);
    expect(report.pairing).toMatchObject({ kind: 'seeds-differ', matched: 16, total: 20 });
  });

  it('index only when the rows carry no seeds (minimal task, sample, passed files still work)', async () => {
    const a = write('plain-a.jsonl', rows(tasks));
    const b = write('plain-b.jsonl', rows(after));
    const text = await cli(['compare', a, b, '--reps', '200']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/pairing: by task and sample index only \(no env seeds recorded\)/);
    const report = JSON.parse((await cli(['compare', a, b, '--json', '--reps', '200'])).stdout);
    expect(report.pairing).toMatchObject({ kind: 'index-only', matched: 0, total: 20 });
  });
});

describe('large and edge counts', () => {
  // That the work does not grow with n (2 factors for k = 2, none for k = 10^6) is counted in
  // test/eval-passk.test.ts; npm run bench times it.
  it('passk --samples 10^12 --successes 5 10^11 --k 2 answers 1 - (n-c)(n-c-1)/(n(n-1)) = 0.75000000000025', async () => {
    const { stdout, code } = await cli([
      'passk',
      '--samples',
      '1000000000000',
      '--successes',
      '500000000000',
      '--k',
      '2,1000000',
      '--json',
    ]);
    expect(code).toBe(0);
    const values = JSON.parse(stdout);
    expect(values['2']).toBeCloseTo(0.75000000000025, 14);
    expect(values['1000000']).toBe(1);
  });

  it('passk and interval refuse --samples above 2^53 - 1 at once with a message naming the limit', async () => {
    const { stderr, code } = await cli(['passk', '--samples', '1e21', '--successes', '3', '--k', '2']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--samples 1e21 is above 2\^53 - 1/);
    const interval = await cli(['interval', '--successes', '3', '--samples', '9007199254740992']);
    expect(interval.code).toBe(2);
    expect(interval.stderr).toMatch(/--samples 9007199254740992 is above 2\^53 - 1/);
  });

  it('power: the required N rises with the power over [0.5, 1); lower powers are refused', async () => {
    let previous = 0;
    for (const power of [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99]) {
      const { stdout } = await cli([
        'power',
        '--sd',
        '1',
        '--delta',
        '0.1',
        '--power',
        String(power),
        '--json',
      ]);
      const { units } = JSON.parse(stdout);
      expect(units).toBeGreaterThanOrEqual(previous);
      previous = units;
    }
    for (const power of ['0.01', '0.025', '0.05', '0.49']) {
      const { code, stderr } = await cli(['power', '--sd', '1', '--delta', '0.1', '--power', power]);
      expect(code).toBe(2);
      expect(stderr).toMatch(/--power must be in \[0\.5, /);
    }
  });

  it('diagnose --k above the samples per task is refused, naming the tasks and their count', async () => {
    const two = write('two-samples.jsonl', rows({ a: '10', b: '01' }));
    const { code, stderr } = await cli(['diagnose', two, '--k', '50']);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /k = 50 exceeds the samples per task of .*two-samples\.jsonl: tasks a, b have only 2/,
    );
    expect((await cli(['diagnose', two, '--k', '2'])).code).toBe(0);
  });
});
