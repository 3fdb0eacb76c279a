import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import AdmZip from 'adm-zip';
import { decompress } from 'fzstd';
import { describe, expect, it } from 'vitest';
import {
  DETAIL_MAX_CHARS,
  DETAIL_MAX_MESSAGES,
  groupOutcomes,
  readResults,
  readSampleDetail,
  ResultFileError,
} from '../eval/io/index.ts';
import { cli } from './support/cli.ts';

// Other tools' result files read as they are (samples/humaneval, samples/inspect, samples/lm-eval;
// each folder's README names the source and version). Every expected number comes from the file's
// own report (HumanEval's printed pass@k, Inspect's results.scores, lm-evaluation-harness's
// results_<date>.json), read here without the project's reader.

const folder = mkdtempSync(join(tmpdir(), 'eval-formats-'));
const HUMANEVAL = 'samples/humaneval/samples.jsonl_results.jsonl';
const INSPECT_A = 'samples/inspect/arith-model-a.eval';
const INSPECT_A_DEFLATE = 'samples/inspect/arith-model-a-deflate.eval';
const INSPECT_B = 'samples/inspect/arith-model-b.json';
const INSPECT_TWO = 'samples/inspect/arith-two-scorers.json';
const DATE1 = '2026-08-20T10-15-02.318204';
const DATE2 = '2026-08-20T11-40-57.902113';
const LM = (task: string, date: string) => `samples/lm-eval/samples_${task}_${date}.jsonl`;

/** JSON as Python writes it: the bare NaN token read as null. */
const pythonJson = (text: string) => JSON.parse(text.replace(/\bNaN\b/g, 'null')) as Record<string, any>;

/** Inspect's own accuracy for a scorer, from results.scores of a .json log or of an .eval archive's header.json. */
function inspectAccuracy(path: string, scorer: string): number {
  let log: Record<string, any>;
  if (path.endsWith('.eval')) {
    const entry = new AdmZip(path)
      .getEntries()
      .find(({ entryName }) => entryName === 'header.json') as AdmZip.IZipEntry;
    const bytes = entry.header.method === 93 ? decompress(entry.getCompressedData()) : entry.getData();
    log = pythonJson(Buffer.from(bytes).toString('utf8'));
  } else log = pythonJson(readFileSync(path, 'utf8'));
  return (log.results.scores as Array<Record<string, any>>).find(({ name }) => name === scorer)?.metrics
    .accuracy.value as number;
}

/** lm-evaluation-harness's reported value, from the run's results_<date>.json. */
const lmReported = (date: string, task: string, key: string) =>
  pythonJson(readFileSync(`samples/lm-eval/results_${date}.json`, 'utf8')).results[task][key] as number;

async function metricsJson(argv: string[]): Promise<Record<string, any>> {
  const { code, stdout, stderr } = await cli(['metrics', ...argv, '--reps', '200', '--json']);
  expect(stderr, argv.join(' ')).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as Record<string, any>;
}

/** A command that must fail with one line on stderr matching `pattern`. */
async function fails(argv: string[], code: number, pattern: RegExp): Promise<string> {
  const result = await cli(argv);
  expect(result.code, argv.join(' ')).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
  return result.stderr;
}

const patterns = async (path: string, options = {}) =>
  groupOutcomes((await readResults(path, options)).rows).tasks.map(
    ({ task, outcomes }) => `${task}:${outcomes.join('')}`,
  );

function write(name: string, text: string | Buffer): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}
const lines = (records: unknown[]) => `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;

describe('HumanEval: evaluate_functional_correctness results', () => {
  it('metrics with no options gives the unbiased pass@k HumanEval printed for the same file', async () => {
    const report = await metricsJson([HUMANEVAL, '--k', '1,3,5']);
    expect(report.format).toBe('humaneval');
    expect(report.tasks).toBe(5);
    expect(report.samplesPerTask).toEqual({ min: 5, max: 5 });
    // human-eval 6d43fb9 printed {'pass@1': 0.43999999999999995, 'pass@3': 0.74, 'pass@5': 0.8}
    expect(report.passAtK['1'].estimate).toBeCloseTo(0.44, 12);
    expect(report.passAtK['3'].estimate).toBeCloseTo(0.74, 12);
    expect(report.passAtK['5'].estimate).toBeCloseTo(0.8, 12);
  });

  it("a task's lines in file order are its samples 0, 1, 2, ...; result is kept", async () => {
    expect(await patterns(HUMANEVAL)).toEqual([
      'TinyEval/0:11111',
      'TinyEval/1:10100',
      'TinyEval/2:01010',
      'TinyEval/3:00000',
      'TinyEval/4:01001',
    ]);
    const timedOut = (await readResults(HUMANEVAL)).rows.find(({ extra }) => extra?.result === 'timed out');
    expect(timedOut).toMatchObject({ task: 'TinyEval/3', sample: 4, passed: false });
  });

  it('a gzipped results file reads the same; the samples file before evaluation is refused', async () => {
    const gz = write('he_results.jsonl.gz', gzipSync(readFileSync(HUMANEVAL)));
    expect(await patterns(gz)).toEqual(await patterns(HUMANEVAL));
    await fails(
      ['metrics', 'samples/humaneval/samples.jsonl'],
      1,
      /samples\.jsonl:1: field 'passed': missing: a HumanEval samples file, not its results; run evaluate_functional_correctness/,
    );
  });
});

describe('Inspect logs: .eval archives (zstd and deflate) and .json logs', () => {
  it('metrics with no options on one scorer: the mean accuracy is results.scores accuracy', async () => {
    for (const path of [INSPECT_A, INSPECT_A_DEFLATE, INSPECT_B]) {
      const report = await metricsJson([path]);
      expect(report.format).toBe(path.endsWith('.eval') ? 'inspect-eval' : 'inspect-json');
      expect(report.tasks).toBe(8);
      expect(report.samplesPerTask).toEqual({ min: 3, max: 3 });
      expect(report.meanAccuracy.estimate).toBeCloseTo(inspectAccuracy(path, 'match'), 12);
      expect(report.reported[0]).toMatchObject({ name: 'accuracy', value: inspectAccuracy(path, 'match') });
      expect(report.harness).toMatchObject({ tool: 'inspect_ai', task: 'arith', epochs: 3 });
    }
  });

  it('id gives the task and epoch the sample; zstd and deflate archives hold the same rows', async () => {
    expect(await patterns(INSPECT_A)).toEqual([
      '1:111',
      '2:101',
      '3:000',
      '4:111',
      '5:010',
      '6:110',
      '7:000',
      '8:111',
    ]);
    expect(await patterns(INSPECT_A_DEFLATE)).toEqual(await patterns(INSPECT_A));
    expect(await patterns(INSPECT_B)).toEqual([
      '1:111',
      '2:111',
      '3:010',
      '4:111',
      '5:110',
      '6:111',
      '7:001',
      '8:111',
    ]);
  });

  it('compare pairs two logs of the same task set by (sample id, epoch), integer ids against string ids', async () => {
    const { code, stdout } = await cli(['compare', INSPECT_A, INSPECT_B, '--reps', '200']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/pairing: by Inspect sample id and epoch \(24 paired samples/);
    expect(stdout).toMatch(/model: A "mockllm\/model-a"  B "mockllm\/model-b"/);
    expect(stdout).toMatch(/8 common tasks, paired by id: pass@1 A 0\.583, B 0\.792/);
    expect(stdout).not.toMatch(/only in/);
    const json = JSON.parse(
      (await cli(['compare', INSPECT_A, INSPECT_B, '--reps', '200', '--json'])).stdout,
    ) as Record<string, any>;
    expect(json.a).toBeCloseTo(inspectAccuracy(INSPECT_A, 'match'), 12);
    expect(json.b).toBeCloseTo(inspectAccuracy(INSPECT_B, 'match'), 12);
    expect(json.pairing).toMatchObject({ kind: 'index-only', total: 24 });
  });

  it('several scorers need --scorer, said in one line', async () => {
    await fails(
      ['metrics', INSPECT_TWO],
      1,
      /2 scorers \('match', 'model_graded_fact'\); pass --scorer NAME/,
    );
    await fails(
      ['metrics', INSPECT_TWO, '--scorer', 'includes'],
      1,
      /--scorer 'includes': no sample has this scorer \(the log's: 'match', 'model_graded_fact'\)/,
    );
    await fails(
      ['metrics', INSPECT_TWO, '--scorer', 'match', '--partial-as', 'half'],
      2,
      /--partial-as must be one of pass, fail/,
    );
  });

  it('an errored sample and an unscored (NaN) grade are left out, as in Inspect: epochs become unequal', async () => {
    const match = await metricsJson([INSPECT_TWO, '--scorer', 'match']);
    expect(match.meanAccuracy.estimate).toBeCloseTo(inspectAccuracy(INSPECT_TWO, 'match'), 12);
    expect(match.samplesPerTask).toEqual({ min: 1, max: 2 });
    expect(match.notes.join('\n')).toMatch(
      /1 sample\(s\) errored and have no score, left out as in Inspect's metrics: id 3 epoch 2/,
    );
    expect(await patterns(INSPECT_TWO, { scorer: 'match' })).toEqual([
      '1:11',
      '2:01',
      '3:0',
      '4:10',
      '5:11',
      '6:00',
    ]);
    // Inspect counts P as 0.5: its accuracy lies halfway between reading P as pass and as fail
    const pass = await metricsJson([INSPECT_TWO, '--scorer', 'model_graded_fact', '--partial-as', 'pass']);
    const fail = await metricsJson([INSPECT_TWO, '--scorer', 'model_graded_fact', '--partial-as', 'fail']);
    expect(pass.meanAccuracy.estimate).toBeCloseTo(4 / 6, 12);
    expect(fail.meanAccuracy.estimate).toBeCloseTo(3 / 6, 12);
    expect((pass.meanAccuracy.estimate + fail.meanAccuracy.estimate) / 2).toBeCloseTo(
      inspectAccuracy(INSPECT_TWO, 'model_graded_fact'),
      12,
    );
    expect(pass.notes.join('\n')).toMatch(
      /no value from scorer 'model_graded_fact' \(unscored\), left out as in Inspect's metrics: id 5 epoch 1/,
    );
    expect(await patterns(INSPECT_TWO, { scorer: 'model_graded_fact', partialAs: 'pass' })).toEqual([
      '1:11',
      '2:11',
      '3:0',
      '4:11',
      '5:1',
      '6:00',
    ]);
  });

  it('ids 1 and "1" in one log are refused (one task here); other values and shapes say what is wrong', async () => {
    const log = (samples: unknown[], extra: Record<string, unknown> = {}) =>
      JSON.stringify({ version: 2, status: 'success', eval: { task: 't', model: 'm' }, samples, ...extra });
    const sample = (id: unknown, epoch: unknown, value: unknown) => ({
      id,
      epoch,
      input: 'q',
      target: 'a',
      scores: { match: { value } },
    });
    const cases: Array<[string, RegExp]> = [
      [
        log([sample(1, 1, 'C'), sample('1', 1, 'I')]),
        /sample ids 1 and "1" are one task here \(task ids are compared as strings\); rename one/,
      ],
      [
        log([sample(1, 1, 'C'), sample(1, 1, 'I')]),
        /sample 1 epoch 1 appears twice \(samples\[0\] and samples\[1\]\)/,
      ],
      [
        log([sample(1, 1, 'maybe')]),
        /samples\[0\]: scorer 'match' of sample id 1 epoch 1: "maybe" is not a score Inspect's value_to_float reads \(C, P, I, N, a number, yes\/no, true\/false\)/,
      ],
      [log([sample(1, 0, 'C')]), /field 'epoch': samples\[0\]: expected an integer from 1, got 0/],
      [log([sample(1, 1, { a: 1 })]), /\{"a":1\} is not a score Inspect's value_to_float reads/],
      [log([sample(1, 1, [1, 0])]), /\[1,0\] is not a score Inspect's value_to_float reads/],
      [log([]), /field 'samples': none in this log/],
      [log([{ id: 1, epoch: 1, scores: {} }]), /no sample carries a score/],
    ];
    for (const [text, pattern] of cases) {
      const path = write('inspect-case.json', text);
      await expect(readResults(path)).rejects.toThrow(ResultFileError);
      await expect(readResults(path)).rejects.toThrow(pattern);
    }
    // booleans, 0/1 and N (no answer) are outcomes; a legacy single `score` belongs to the first scorer of the results
    const legacy = write(
      'legacy.json',
      log(
        [
          { id: 'a', epoch: 1, score: { value: true } },
          { id: 'b', epoch: 1, score: { value: 0 } },
          { id: 'c', epoch: 1, score: { value: 'N' } },
        ],
        { results: { scores: [{ name: 'includes', scorer: 'includes', metrics: {} }] } },
      ),
    );
    expect(await patterns(legacy)).toEqual(['a:1', 'b:0', 'c:0']);
    expect((await readResults(legacy)).notes?.[0]).toMatch(/outcome: scorer 'includes'/);
  });

  it('an .eval archive still being written (no header.json) is read from its journal; a broken archive is one line', async () => {
    const zip = new AdmZip();
    zip.addFile(
      '_journal/start.json',
      Buffer.from(JSON.stringify({ version: 2, eval: { task: 't', model: 'm' }, plan: {} })),
    );
    zip.addFile(
      'samples/1_epoch_1.json',
      Buffer.from(JSON.stringify({ id: 1, epoch: 1, scores: { match: { value: 'C' } } })),
    );
    zip.addFile(
      'samples/2_epoch_1.json',
      Buffer.from(JSON.stringify({ id: 2, epoch: 1, scores: { match: { value: 'I' } } })),
    );
    const path = write('running.eval', zip.toBuffer());
    expect(await patterns(path)).toEqual(['1:1', '2:0']);
    expect((await readResults(path)).notes?.join('\n')).toMatch(
      /no header\.json: the evaluation had not finished/,
    );
    const cut = readFileSync(INSPECT_A).subarray(0, 4000);
    await fails(['metrics', write('cut.eval', cut)], 1, /cut\.eval: not a readable zip archive/);
    const other = new AdmZip();
    other.addFile('readme.txt', Buffer.from('hello'));
    await fails(
      ['metrics', write('other.zip', other.toBuffer())],
      1,
      /a zip archive without header\.json or _journal\/start\.json: not an Inspect \.eval log/,
    );
  });

  it('diagnose reads an Inspect log and prints what the reader chose', async () => {
    const { code, stdout } = await cli(['diagnose', INSPECT_A]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^note: samples\/inspect\/arith-model-a\.eval: outcome: scorer 'match'/);
    expect(stdout).toMatch(/pass@1 58\.3% .* vs pass@3 75\.0%/);
  });
});

describe('lm-evaluation-harness samples_*.jsonl', () => {
  it('one metric and one filter: read with no options; the run results beside it give the harness and the reported value', async () => {
    const report = await metricsJson([LM('boolq', DATE1)]);
    expect(report.format).toBe('lm-eval');
    expect(report.tasks).toBe(10);
    expect(report.meanAccuracy.estimate).toBeCloseTo(lmReported(DATE1, 'boolq', 'acc,none'), 12);
    expect(report.notes.join('\n')).toMatch(
      /only one sample per task: lm-evaluation-harness scores each document once/,
    );
    expect(report.harness).toMatchObject({
      tool: 'lm-evaluation-harness',
      version: '0.4.12',
      model: 'hf',
      num_fewshot: 0,
      metric: 'acc',
      filter: 'none',
    });
    expect(report.reported[0]).toMatchObject({ name: 'acc', value: lmReported(DATE1, 'boolq', 'acc,none') });
  });

  it('several metrics need --metric, several filters --filter', async () => {
    await fails(
      ['metrics', LM('arc_easy', DATE1)],
      1,
      /several metrics \('acc', 'acc_norm'\); pass --metric NAME, one whose values are 0 or 1/,
    );
    await fails(
      ['metrics', LM('gsm8k', DATE1)],
      1,
      /each document is scored under 2 filters \('strict-match', 'flexible-extract'\); pass --filter NAME/,
    );
    await fails(
      ['metrics', LM('gsm8k', DATE1), '--filter', 'strict'],
      1,
      /--filter 'strict': no line has this filter \(the file's: 'strict-match', 'flexible-extract'\)/,
    );
    await fails(
      ['metrics', LM('boolq', DATE1), '--metric', 'exact_match'],
      1,
      /--metric 'exact_match': no line has this metric \(the file's: 'acc'\)/,
    );
    for (const [argv, date, task, key] of [
      [[LM('arc_easy', DATE1), '--metric', 'acc'], DATE1, 'arc_easy', 'acc,none'],
      [[LM('arc_easy', DATE1), '--metric', 'acc_norm'], DATE1, 'arc_easy', 'acc_norm,none'],
      [[LM('gsm8k', DATE1), '--filter', 'strict-match'], DATE1, 'gsm8k', 'exact_match,strict-match'],
      [[LM('gsm8k', DATE1), '--filter', 'flexible-extract'], DATE1, 'gsm8k', 'exact_match,flexible-extract'],
      [[LM('drop', DATE2), '--metric', 'em'], DATE2, 'drop', 'em,none'],
    ] as Array<[string[], string, string, string]>) {
      const report = await metricsJson(argv);
      expect(report.meanAccuracy.estimate, argv.join(' ')).toBeCloseTo(lmReported(date, task, key), 12);
    }
  });

  it('under repeats, one outcome per document is one sample per task, said plainly; a list of outcomes is refused', async () => {
    const report = await metricsJson([LM('gsm8k_cot_self_consistency', DATE2), '--filter', 'maj@4']);
    expect(report.samplesPerTask).toEqual({ min: 1, max: 1 });
    expect(report.meanAccuracy.estimate).toBeCloseTo(
      lmReported(DATE2, 'gsm8k_cot_self_consistency', 'exact_match,maj@4'),
      12,
    );
    expect(report.notes.join('\n')).toMatch(
      /only one sample per task: the file holds up to 4 responses per document \(repeats\) but lm-evaluation-harness records one 'exact_match' per document/,
    );
    expect(report.harness).toMatchObject({
      repeats: 4,
      generation_kwargs: { do_sample: true, temperature: 0.2 },
    });
    const listed = write(
      'samples_listed_2026-01-01T00-00-00.000000.jsonl',
      lines([
        { doc_id: 0, resps: [['a', 'b', 'c']], filter: 'none', metrics: ['pass'], pass: [1, 0, 1] },
        { doc_id: 1, resps: [['a', 'b', 'c']], filter: 'none', metrics: ['pass'], pass: [0, 0, 1] },
      ]),
    );
    // a list is not repeated attempts: how the harness aggregates it is the task's own function
    await fails(
      ['metrics', listed],
      1,
      /:1: field 'pass': a list \(\[1,0,1\]\), not one value per document: lm-evaluation-harness aggregates such a list with the task's own function/,
    );
  });
});

describe('graded scores: Inspect partial credit and numeric scores, lm-evaluation-harness metrics that are not 0/1', () => {
  // Inspect's value_to_float (UKGovernmentBEIS/inspect_ai, inspect_ai/scorer/_metric.py): C 1,
  // P 0.5, I and N 0, numbers and booleans as numbers, yes/true 1, no/false 0, numeric strings.
  it("P is 0.5 without --partial-as: the mean score is Inspect's accuracy and its stderr, and pass@k is not defined", async () => {
    const graded = await metricsJson([INSPECT_TWO, '--scorer', 'model_graded_fact']);
    expect(graded.graded).toBe(true);
    expect(graded.passAtK).toBeNull();
    expect(graded.passAtKNote).toMatch(/^not defined: the scores are graded/);
    // samples/inspect/README.md: Inspect's accuracy 0.5833 and stderr 0.1900 for this scorer
    const log = pythonJson(readFileSync(INSPECT_TWO, 'utf8'));
    const metrics = log.results.scores.find(
      ({ name }: { name: string }) => name === 'model_graded_fact',
    ).metrics;
    expect(graded.meanScore.estimate).toBeCloseTo(metrics.accuracy.value, 12);
    expect(graded.meanScore.standardError).toBeCloseTo(metrics.stderr.value, 12);
    expect(graded.meanScore.low).toBeLessThan(graded.meanScore.estimate);
    expect(graded.meanScore.high).toBeGreaterThan(graded.meanScore.estimate);
    expect(graded.reported.map((value: any) => [value.name, value.statistic ?? 'mean'])).toEqual([
      ['accuracy', 'mean'],
      ['stderr', 'stderr'],
    ]);
    for (const value of graded.reported) expect(value.recomputed).toBeCloseTo(value.value, 12);
    const rows = (await readResults(INSPECT_TWO, { scorer: 'model_graded_fact' })).rows;
    expect(rows.map((row) => row.score)).toEqual(
      rows.map((row) => (row.passed ? 1 : row.score === 0.5 ? 0.5 : 0)),
    );
    expect(rows.filter((row) => row.score === 0.5)).toHaveLength(2);
    const text = await cli(['metrics', INSPECT_TWO, '--scorer', 'model_graded_fact', '--reps', '200']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /\nmean score \(task mean\) +0\.5833 {2}task-level \[0\.\d{4}, 0\.\d{4}\], SE 0\.1900\n/,
    );
    expect(text.stdout).toMatch(
      /\ncheck: reported stderr 0\.1900 .*recomputed from the rows: 0\.1900, the same\n/,
    );
    expect(text.stdout).toMatch(/\npass@k +not defined: the scores are graded \(not all 0 or 1\)/);
    await fails(
      ['metrics', INSPECT_TWO, '--scorer', 'model_graded_fact', '--k', '1'],
      1,
      /--k: pass@k is not defined on graded scores \(not all 0 or 1\); metrics reports the mean score \(--partial-as pass\|fail reads P as 0\/1\)/,
    );
  });

  it('numbers, numeric strings, yes/no and booleans are read as value_to_float reads them', async () => {
    const samples = [
      ['a', 1, 'C'],
      ['a', 2, 'P'],
      ['b', 1, 0.25],
      ['b', 2, '0.75'],
      ['c', 1, 'Yes'],
      ['c', 2, 'false'],
      ['d', 1, true],
      ['d', 2, 'N'],
    ].map(([id, epoch, value]) => ({ id, epoch, scores: { s: { value } } }));
    const path = join(folder, 'graded.json');
    writeFileSync(
      path,
      JSON.stringify({ version: 2, status: 'success', eval: { task: 'g', model: 'm' }, samples }),
    );
    const file = await readResults(path);
    expect(file.rows.map((row) => [row.task, row.score, row.passed])).toEqual([
      ['a', 1, true],
      ['a', 0.5, false],
      ['b', 0.25, false],
      ['b', 0.75, false],
      ['c', 1, true],
      ['c', 0, false],
      ['d', 1, true],
      ['d', 0, false],
    ]);
    // the task means 0.75, 0.5, 0.5, 0.5; their mean 0.5625
    expect((await metricsJson([path])).meanScore.estimate).toBeCloseTo(0.5625, 12);
    // every task's mean the same (0.5): no spread to resample, so the interval is n/a, not [0.5, 0.5]
    const alike = join(folder, 'graded-alike.json');
    writeFileSync(
      alike,
      JSON.stringify({
        version: 2,
        eval: { task: 'g' },
        samples: ['a', 'b', 'c'].map((id) => ({ id, epoch: 1, scores: { s: { value: 'P' } } })),
      }),
    );
    expect((await metricsJson([alike])).meanScore).toMatchObject({
      estimate: 0.5,
      low: null,
      high: null,
      standardError: 0,
    });
    expect((await cli(['metrics', alike, '--reps', '200'])).stdout).toMatch(
      /\nmean score \(task mean\) +0\.5000 {2}task-level n\/a: no spread, every task's mean score is 0\.5000, SE 0\.0000\n/,
    );
    // all 0/1 after conversion: pass/fail rows as before, no score
    const binary = join(folder, 'binary.json');
    writeFileSync(
      binary,
      JSON.stringify({ version: 2, eval: { task: 'g' }, samples: samples.filter((_, i) => i >= 4) }),
    );
    expect((await readResults(binary)).rows.every((row) => row.score === undefined)).toBe(true);
  });

  it("lm-evaluation-harness's f1 is a graded score: the mean is the reported f1; acc_stderr and f1_stderr are checked", async () => {
    const f1 = await metricsJson([LM('drop', DATE2), '--metric', 'f1']);
    const results = JSON.parse(readFileSync(`samples/lm-eval/results_${DATE2}.json`, 'utf8')).results.drop;
    expect(f1.graded).toBe(true);
    expect(f1.meanScore.estimate).toBeCloseTo(results['f1,none'], 12);
    expect(f1.meanScore.standardError).toBeCloseTo(results['f1_stderr,none'], 12);
    expect(f1.notes.join('\n')).toMatch(/graded scores: 'f1' is not 0 or 1 on 2 of 5 documents/);
    // acc_stderr (lm_eval/api/metrics.py mean_stderr) beside acc: ours is the task-level SE
    const boolq = await metricsJson([LM('boolq', DATE1)]);
    const reported = JSON.parse(readFileSync(`samples/lm-eval/results_${DATE1}.json`, 'utf8')).results.boolq;
    expect(boolq.reported.map((value: any) => [value.name, value.value])).toEqual([
      ['acc', reported['acc,none']],
      ['acc_stderr', reported['acc_stderr,none']],
    ]);
    expect(boolq.reported[1].recomputed).toBeCloseTo(reported['acc_stderr,none'], 12);
    const text = await cli(['metrics', LM('gsm8k', DATE1), '--filter', 'strict-match', '--reps', '200']);
    expect(text.stdout).toMatch(
      /\ncheck: reported exact_match_stderr 0\.1667 \(results_[^)]*\['exact_match_stderr,strict-match'\]\); recomputed from the rows: 0\.1667, the same\n/,
    );
    // statistics of 0/1 outcomes refuse graded scores in one line
    await fails(
      ['compare', LM('drop', DATE2), LM('drop', DATE2), '--metric', 'f1'],
      1,
      /graded scores \(not all 0 or 1\): the paired comparison of pass rates counts 0\/1 outcomes; tinyagent metrics reports the mean score/,
    );
    await fails(
      ['diagnose', INSPECT_TWO, '--scorer', 'model_graded_fact'],
      1,
      /graded scores \(not all 0 or 1\): the pass@k diagnosis counts 0\/1 outcomes; .*\(--partial-as pass\|fail reads P as 0\/1\)/,
    );
    // a value that is not a number is still refused, naming the line
    const bad = join(folder, `samples_drop_${DATE2}.jsonl`);
    writeFileSync(bad, readFileSync(LM('drop', DATE2), 'utf8').replace(/"f1": [0-9.]+/, '"f1": "high"'));
    await fails(['metrics', bad, '--metric', 'f1'], 1, /:1: field 'f1': "high" is not a number/);
  });
});

describe("one sample's detail, re-read from the file for the viewer", () => {
  it('is capped: at most DETAIL_MAX_MESSAGES messages and DETAIL_MAX_CHARS characters a text, the rest counted', async () => {
    const log = pythonJson(readFileSync(INSPECT_B, 'utf8'));
    log.samples = [log.samples[0]];
    const long = 'x'.repeat(DETAIL_MAX_CHARS + 5);
    log.samples[0].input = long;
    log.samples[0].messages = Array.from({ length: DETAIL_MAX_MESSAGES + 7 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: [
        { type: 'text', text: `turn ${i}` },
        { type: 'image', image: 'data:image/png;base64,AAAA' },
      ],
    }));
    const path = join(folder, 'capped.json');
    writeFileSync(path, JSON.stringify(log));
    const file = await readResults(path);
    const detail = (await readSampleDetail(file, file.rows[0]!))!;
    const input = detail.parts.find((part) => part.label === 'input')!;
    expect(input).toEqual({
      kind: 'text',
      label: 'input',
      text: `${'x'.repeat(DETAIL_MAX_CHARS)}... (${DETAIL_MAX_CHARS + 5} characters; the first ${DETAIL_MAX_CHARS} shown)`,
    });
    const messages = detail.parts.find((part) => part.label === 'messages')!;
    expect(messages.kind === 'messages' && messages.messages.length).toBe(DETAIL_MAX_MESSAGES);
    expect(messages.kind === 'messages' && messages.messages[1]).toEqual({
      role: 'assistant',
      text: 'turn 1\n[image]',
    });
    expect(detail.parts.find((part) => part.label === 'messages not shown')).toEqual({
      kind: 'text',
      label: 'messages not shown',
      text: `7 more (the first ${DETAIL_MAX_MESSAGES} of ${DETAIL_MAX_MESSAGES + 7} are shown)`,
    });
    // The reader itself keeps no messages: metrics and compare hold the outcomes only.
    expect(JSON.stringify(file.rows)).not.toContain('turn 1');
  });

  it("reads gzipped files too; the project's rows have none; a file changed since it was read is one line", async () => {
    const gz = join(folder, `samples_gsm8k_${DATE1}.jsonl.gz`);
    writeFileSync(gz, gzipSync(readFileSync(LM('gsm8k', DATE1))));
    const file = await readResults(gz, { filter: 'strict-match' });
    const detail = (await readSampleDetail(file, file.rows[3]!))!;
    const line = readFileSync(LM('gsm8k', DATE1), 'utf8').split('\n')[file.rows[3]!.line - 1]!;
    expect(detail.parts.find((part) => part.label === 'filtered_resps')).toEqual({
      kind: 'text',
      label: 'filtered_resps',
      text: JSON.stringify(JSON.parse(line).filtered_resps, null, 2),
    });
    const rows = await readResults('samples/blog-example.jsonl');
    expect(await readSampleDetail(rows, rows.rows[0]!)).toBeNull();
    const changing = join(folder, 'changing_results.jsonl');
    writeFileSync(changing, readFileSync(HUMANEVAL));
    const humaneval = await readResults(changing);
    writeFileSync(changing, '\n');
    await expect(readSampleDetail(humaneval, humaneval.rows[4]!)).rejects.toThrow(
      /changing_results\.jsonl:5: no longer the line it was when read: the file changed/,
    );
  });
});

describe('detection, --format and files that are none of the formats', () => {
  it('the project formats are detected as before; --format overrides the detection', async () => {
    expect((await readResults('samples/blog-example.jsonl')).format).toBe('jsonl');
    expect((await readResults('samples/blog-example.csv')).format).toBe('csv');
    expect((await readResults(INSPECT_B, { format: 'inspect' })).format).toBe('inspect-json');
    expect((await readResults(INSPECT_A, { format: 'inspect' })).format).toBe('inspect-eval');
    await fails(
      ['metrics', HUMANEVAL, '--format', 'lm-eval'],
      1,
      /:1: a HumanEval results line \(task_id, passed\), not lm-evaluation-harness samples; check --format/,
    );
    await fails(
      ['metrics', 'samples/blog-example.jsonl', '--format', 'humaneval'],
      1,
      /blog-example\.jsonl:1: a result row \(task, sample, passed\), not HumanEval results lines; check --format/,
    );
    await fails(
      ['metrics', HUMANEVAL, '--format', 'yaml'],
      2,
      /--format must be one of auto, jsonl, csv, humaneval, inspect, lm-eval/,
    );
  });

  it('lines of two formats in one file are refused, naming the line', async () => {
    const rowsThenHumanEval = write(
      'mixed1.jsonl',
      lines([
        { task: 'a', sample: 0, passed: true },
        { task_id: 'a', completion: 'x', result: 'passed', passed: true },
      ]),
    );
    await fails(
      ['metrics', rowsThenHumanEval],
      1,
      /mixed1\.jsonl:2: a HumanEval results line \(task_id, passed\), not result rows \(task, sample, passed\) like line 1; one file holds one format/,
    );
    const humanEvalThenLm = write(
      'mixed2.jsonl',
      lines([
        { task_id: 'a', completion: 'x', result: 'passed', passed: true },
        { doc_id: 0, filter: 'none', metrics: ['acc'], acc: 1 },
      ]),
    );
    await fails(
      ['metrics', humanEvalThenLm],
      1,
      /mixed2\.jsonl:2: an lm-evaluation-harness sample \(doc_id and its metrics\), not HumanEval results lines like line 1/,
    );
    const lmThenRows = write(
      'mixed3.jsonl',
      lines([
        { doc_id: 0, filter: 'none', metrics: ['acc'], acc: 1 },
        { task: 'a', sample: 0, passed: true },
      ]),
    );
    await fails(
      ['compare', lmThenRows, 'samples/blog-example.jsonl'],
      1,
      /mixed3\.jsonl:2: a result row \(task, sample, passed\), not lm-evaluation-harness samples like line 1/,
    );
  });

  it('anything else is one line naming what was expected', async () => {
    const expected =
      /expected result rows \(JSONL or CSV with task, sample, passed\), a HumanEval \*_results\.jsonl \(task_id, passed\), an Inspect log \(\.json or \.eval\), or lm-evaluation-harness samples_\*\.jsonl \(doc_id and a metric\); --format names one/;
    await fails(
      ['metrics', write('other.jsonl', lines([{ id: 1, answer: 'x' }]))],
      1,
      new RegExp(
        `other\\.jsonl:1: a JSON object with keys id, answer: not a result file this reader knows; ${expected.source}`,
      ),
    );
    await fails(
      ['metrics', write('notes.txt', 'just some text\nmore\n')],
      1,
      /notes\.txt:1: text without the columns task, sample, passed: not a result file this reader knows/,
    );
    await fails(
      ['diagnose', write('array.json', '[1, 2]')],
      1,
      /array\.json:1: a JSON array: not a result file this reader knows/,
    );
    await fails(
      ['metrics', write('doc.json', '{\n  "results": {}\n}\n')],
      1,
      /doc\.json: a JSON document with keys results: not a result file this reader knows/,
    );
    await fails(
      ['metrics', write('broken.json', '{\n  "version": 2,\n  "eval": {\n')],
      1,
      /broken\.json: not valid JSON/,
    );
  });

  it("an option no file's format uses is a usage error, not ignored", async () => {
    await fails(
      ['metrics', HUMANEVAL, '--scorer', 'match'],
      2,
      /--scorer applies to Inspect logs, and the file is not one \(humaneval\)/,
    );
    await fails(
      ['compare', HUMANEVAL, 'samples/blog-example.jsonl', '--metric', 'acc'],
      2,
      /--metric applies to lm-evaluation-harness samples, and none of the files is one \(humaneval, jsonl\)/,
    );
    await fails(['metrics', INSPECT_A, '--scorer', ' '], 2, /--scorer is empty/);
  });
});

describe('damaged files of every format: a ResultFile or one ResultFileError line, never another error', () => {
  it('cuts and flipped bytes (fixed seed)', async () => {
    const sources = [
      HUMANEVAL,
      INSPECT_A,
      INSPECT_A_DEFLATE,
      INSPECT_B,
      INSPECT_TWO,
      LM('boolq', DATE1),
      LM('gsm8k', DATE1),
    ].map((path) => readFileSync(path));
    // a small linear congruential generator keeps the damage reproducible without a random source
    let state = 12345;
    let refused = 0;
    const next = (bound: number) => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state % bound;
    };
    for (let trial = 0; trial < 120; trial++) {
      const source = sources[trial % sources.length] as Buffer;
      const damaged = Buffer.from(source.subarray(0, trial % 3 === 0 ? next(source.length) : source.length));
      for (let flips = trial % 3 === 0 ? 0 : 1 + next(4); flips > 0; flips--)
        damaged[next(damaged.length)] = next(256);
      const path = write(
        `damaged-${trial}.${source === sources[1] || source === sources[2] ? 'eval' : 'jsonl'}`,
        damaged,
      );
      try {
        await readResults(path, { scorer: 'match' });
      } catch (error) {
        expect(error, `trial ${trial}`).toBeInstanceOf(ResultFileError);
        expect((error as Error).message.split('\n'), `trial ${trial}`).toHaveLength(1);
        refused++;
      }
    }
    // most damage is caught; a flipped byte inside a string can leave a file readable
    expect(refused).toBeGreaterThan(60);
    expect(refused).toBeLessThan(120);
  });
});
