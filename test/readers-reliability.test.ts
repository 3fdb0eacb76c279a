import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import AdmZip from 'adm-zip';
import { describe, expect, it } from 'vitest';
import { readInspectArchive } from '../eval/io/formats/inspect.ts';
import { readResults } from '../eval/io/index.ts';
import { FileAccess, LineSplitter, type LineReader } from '../eval/io/source.ts';
import { Rng } from '../lib/rng.ts';
import { cli, expectCliError } from './support/cli.ts';

// Real logs from the tools' own repositories that the readers got wrong (issue 18), each
// reproduced by a small file made here.

const folder = mkdtempSync(join(tmpdir(), 'readers-reliability-'));
function write(name: string, text: string | Buffer): string {
  const path = join(folder, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}
const lines = (records: unknown[]) => `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;

/** A command that must fail with one line on stderr matching `pattern`, and print nothing else. */
async function fails(argv: string[], code: number, pattern: RegExp): Promise<string> {
  const result = await cli(argv);
  expect(result.code, argv.join(' ')).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
  return result.stderr;
}

/** An Inspect .json log of `task` with samples (id, epoch, C/I) and what its results count. */
function inspectLog(
  task: string,
  samples: Array<[number | string, number, 'C' | 'I']>,
  results: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    version: 2,
    status: 'success',
    eval: { task, model: 'mockllm/model' },
    results: { total_samples: samples.length, completed_samples: samples.length, scores: [], ...results },
    samples: samples.map(([id, epoch, value]) => ({ id, epoch, scores: { match: { value } } })),
  });
}

const idsOneTo = (count: number, pattern: (id: number) => 'C' | 'I') =>
  Array.from({ length: count }, (_, i): [number, number, 'C' | 'I'] => [i + 1, 1, pattern(i + 1)]);

/** lm-evaluation-harness sample lines: one per document with one 0/1 metric. */
const lmLines = (metric: string, outcomes: number[]) =>
  lines(outcomes.map((value, doc) => ({ doc_id: doc, filter: 'none', metrics: [metric], [metric]: value })));

describe('10. compare refuses two different benchmarks paired by id', () => {
  const popularity = write(
    'popularity.json',
    inspectLog(
      'popularity',
      idsOneTo(10, (id) => (id % 2 ? 'C' : 'I')),
    ),
  );
  const theory = write(
    'theory.json',
    inspectLog(
      'inspect_evals/theory_of_mind',
      idsOneTo(10, (id) => (id % 3 ? 'C' : 'I')),
    ),
  );
  const copa = write(
    'lm/samples_copa_2026-01-01T00-00-00.000000.jsonl',
    lmLines('acc', [1, 0, 1, 1, 0, 1, 1, 1, 0, 1]),
  );
  const math = write(
    'lm/samples_math_perturbed_full_2026-01-02T00-00-00.000000.jsonl',
    lmLines('acc', [0, 0, 1, 0, 0, 1, 0, 0, 0, 1]),
  );

  it('two Inspect tasks, two lm-eval tasks, an lm-eval file against an Inspect log: exit 1 naming both', async () => {
    await fails(
      ['compare', popularity, theory],
      1,
      /different benchmarks: A .*popularity\.json is Inspect task 'popularity' \(eval\.task\), B .*theory\.json is Inspect task 'inspect_evals\/theory_of_mind' \(eval\.task\); .*pass --allow-different-tasks/,
    );
    await fails(
      ['compare', copa, math, '--metric', 'acc'],
      1,
      /different benchmarks: A .* is lm-evaluation-harness task 'copa' \(the file name samples_<task>_<date>\), B .* is lm-evaluation-harness task 'math_perturbed_full'/,
    );
    await fails(
      ['compare', copa, popularity],
      1,
      /A .* is lm-evaluation-harness task 'copa' .*, B .* is Inspect task 'popularity'/,
    );
    // a renamed samples file names no task, but its doc_ids are still lm-evaluation-harness's
    const renamed = write('lm/copa.jsonl', readFileSync(copa));
    await fails(
      ['compare', renamed, popularity],
      1,
      /A .* is lm-evaluation-harness \(no task name recorded\), B .* is Inspect task 'popularity'/,
    );
    await fails(
      ['diagnose', popularity, theory],
      1,
      /different benchmarks: .*'popularity'.*'inspect_evals\/theory_of_mind'/,
    );
  });

  it('--allow-different-tasks pairs them anyway, with a warning; one benchmark is named once', async () => {
    const allowed = await cli(['compare', popularity, theory, '--allow-different-tasks', '--reps', '200']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(
      /warning: different benchmarks paired by id, as --allow-different-tasks asks/,
    );
    const again = write(
      'popularity-b.json',
      inspectLog(
        'inspect_evals/popularity',
        idsOneTo(10, () => 'C'),
      ),
    );
    const same = await cli(['compare', popularity, again, '--reps', '200', '--json']);
    expect(same.code).toBe(0);
    const json = JSON.parse(same.stdout) as Record<string, any>;
    expect(json.benchmarks).toMatchObject({
      a: { tool: 'Inspect', name: 'popularity', source: 'eval.task' },
      b: { tool: 'Inspect', name: 'inspect_evals/popularity' },
      allowDifferentTasks: false,
    });
    const text = await cli([
      'compare',
      'samples/inspect/arith-model-a.eval',
      'samples/inspect/arith-model-b.json',
    ]);
    expect(text.stdout).toMatch(/^benchmark: Inspect task 'arith' \(eval\.task\), both$/m);
  });

  it("HumanEval's task_id prefix and the project's own header are identities too", async () => {
    const humaneval = (prefix: string) =>
      lines(
        [0, 1, 2].map((i) => ({
          task_id: `${prefix}/${i}`,
          completion: '',
          result: 'passed',
          passed: i !== 1,
        })),
      );
    const he = write('he_results.jsonl', humaneval('HumanEval'));
    const mbpp = write('mbpp_results.jsonl', humaneval('Mbpp'));
    await fails(['compare', he, mbpp], 1, /HumanEval benchmark 'HumanEval' .* HumanEval benchmark 'Mbpp'/);
    const rows = (benchmark: string) =>
      `${JSON.stringify({ harness: { benchmark } })}\n${lines(
        ['HumanEval/0', 'HumanEval/1', 'HumanEval/2'].map((task) => ({ task, sample: 0, passed: true })),
      )}`;
    const converted = write('converted.jsonl', rows('HumanEval'));
    expect((await cli(['compare', he, converted, '--reps', '200'])).code).toBe(0);
    await fails(['compare', write('other.jsonl', rows('MBPP')), he], 1, /'MBPP' \(harness\.benchmark\)/);
    const gym = (name: string) =>
      write(
        name,
        `${JSON.stringify({ harness: { split: 'variant' }, provenance: { harnessHash: 'abc', player: 'agent' } })}\n${lines(
          [0, 1, 2].map((i) => ({ task: `HumanEval/${i}`, sample: 0, passed: true })),
        )}`,
      );
    await fails(
      ['compare', gym('gym.jsonl'), he],
      1,
      /TinyAgent benchmark 'gym' .*HumanEval benchmark 'HumanEval'/,
    );
    // files that record no benchmark are paired as before
    expect(
      (await cli(['compare', 'samples/blog-example.jsonl', 'samples/blog-example.csv', '--reps', '200']))
        .code,
    ).toBe(0);
  });
});

describe('12. a log that holds part of its run says so beside the reported value', () => {
  it('an Inspect log with 1 of the 79 samples its results count', async () => {
    const path = write(
      'part.json',
      inspectLog('popularity', [[1, 1, 'I']], {
        total_samples: 79,
        completed_samples: 79,
        scores: [
          { name: 'match', scorer: 'match', metrics: { accuracy: { name: 'accuracy', value: 0.3544 } } },
        ],
      }),
    );
    const { code, stdout } = await cli(['metrics', path, '--reps', '200']);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /check: reported accuracy 0\.3544 .*recomputed from the rows: 0\.0000, differs by -0\.3544: the log holds 1 of the 79 samples its results count \(results\.total_samples\)/,
    );
    const json = JSON.parse((await cli(['metrics', path, '--reps', '200', '--json'])).stdout) as Record<
      string,
      any
    >;
    expect(json.reported[0].coverage).toEqual({
      held: 1,
      counted: 79,
      unit: 'samples',
      where: 'results.total_samples',
    });
    // a whole log (errored samples included) is not partial
    const whole = await cli([
      'metrics',
      'samples/inspect/arith-two-scorers.json',
      '--scorer',
      'match',
      '--reps',
      '200',
    ]);
    expect(whole.stdout).toMatch(/check: reported accuracy 0\.5000 .* the same\n/);
  });

  it('an lm-eval samples file with fewer documents than its results file counts', async () => {
    const date = '2026-02-01T00-00-00.000000';
    const path = write(`part-lm/samples_boolq_${date}.jsonl`, lmLines('acc', [1, 1, 0]));
    write(
      `part-lm/results_${date}.json`,
      JSON.stringify({
        results: { boolq: { 'acc,none': 0.7 } },
        'n-samples': { boolq: { original: 3270, effective: 10 } },
      }),
    );
    const { stdout } = await cli(['metrics', path, '--reps', '200']);
    expect(stdout).toMatch(
      /differs by -0\.0333: the file holds 3 of the 10 documents its results count \(results_[^)]*: n-samples\.boolq\.effective\)/,
    );
  });
});

describe("13. IFEval's per-instruction lists are read as lm-eval aggregates them", () => {
  it('inst_level_*: the mean over all instructions pooled across documents; prompt_level_*: one per document', async () => {
    const date = '2026-03-01T00-00-00.000000';
    const docs = [[true, true, false], [false], [true, true, true, true]];
    const path = write(
      `ifeval/samples_ifeval_${date}.jsonl`,
      lines(
        docs.map((instructions, doc) => ({
          doc_id: doc,
          filter: 'none',
          metrics: ['prompt_level_strict_acc', 'inst_level_strict_acc'],
          prompt_level_strict_acc: instructions.every(Boolean),
          inst_level_strict_acc: instructions,
        })),
      ),
    );
    // lm_eval/tasks/ifeval/utils.py agg_inst_level_acc: sum of the flattened lists / their length
    const pooled = docs.flat().filter(Boolean).length / docs.flat().length;
    write(
      `ifeval/results_${date}.json`,
      JSON.stringify({
        results: { ifeval: { 'inst_level_strict_acc,none': pooled, 'prompt_level_strict_acc,none': 1 / 3 } },
      }),
    );
    const inst = JSON.parse(
      (await cli(['metrics', path, '--metric', 'inst_level_strict_acc', '--reps', '200', '--json'])).stdout,
    ) as Record<string, any>;
    expect(inst.tasks).toBe(8);
    expect(inst.samplesPerTask).toEqual({ min: 1, max: 1 });
    expect(inst.meanAccuracy.estimate).toBeCloseTo(pooled, 12);
    expect(inst.reported[0].value).toBeCloseTo(inst.meanAccuracy.estimate, 12);
    expect(inst.notes.join('\n')).toMatch(/each instruction is one task here \(doc_id:index\)/);
    const prompt = JSON.parse(
      (await cli(['metrics', path, '--metric', 'prompt_level_strict_acc', '--reps', '200', '--json'])).stdout,
    ) as Record<string, any>;
    expect(prompt.tasks).toBe(3);
    expect(prompt.meanAccuracy.estimate).toBeCloseTo(1 / 3, 12);
  });
});

describe('14. a Git LFS pointer is named, whatever the format and whichever file it is', () => {
  const pointer =
    'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n';
  it('the result file, a sidecar harness, and the lm-eval results file beside the samples', async () => {
    for (const name of [
      'samples_gsm8k_2026-04-01T00-00-00.000000.jsonl',
      'log.eval',
      'rows.csv',
      'log.json',
    ]) {
      await fails(
        ['metrics', write(`lfs/${name}`, pointer)],
        1,
        new RegExp(`${name.replace(/\./g, '\\.')}: a Git LFS pointer, not the file: run git lfs pull`),
      );
    }
    const rows = write('lfs/side.jsonl', lines([{ task: 'a', sample: 0, passed: true }]));
    write('lfs/side.jsonl.harness.json', pointer);
    await fails(
      ['metrics', rows],
      1,
      /side\.jsonl\.harness\.json: a Git LFS pointer, not the file: run git lfs pull/,
    );
    const date = '2026-04-02T00-00-00.000000';
    const samples = write(`lfs-lm/samples_boolq_${date}.jsonl`, lmLines('acc', [1, 0]));
    write(`lfs-lm/results_${date}.json`, pointer);
    const { stdout } = await cli(['metrics', samples, '--reps', '200']);
    expect(stdout).toMatch(
      /note: results_[^ ]* beside it is not readable \(.*a Git LFS pointer, not the file: run git lfs pull\)/,
    );
  });
});

describe('15 and 9. files are read as streams; what cannot be held is refused by size, in one line', () => {
  it('an .eval archive is read one entry at a time, never whole', () => {
    const zip = new AdmZip();
    zip.addFile('header.json', Buffer.from(JSON.stringify({ version: 2, eval: { task: 't', model: 'm' } })));
    // a transcript deflate cannot shrink much, so that the archive is large beside its parts
    const rng = new Rng('readers-reliability/transcript');
    for (let id = 1; id <= 20; id++) {
      const transcript = Array.from({ length: 12_000 }, () => rng.uint32().toString(36)).join(' ');
      zip.addFile(
        `samples/${id}_epoch_1.json`,
        Buffer.from(
          JSON.stringify({ id, epoch: 1, messages: [transcript], scores: { match: { value: 'C' } } }),
        ),
      );
    }
    const path = write('stream.eval', zip.toBuffer());
    const size = readFileSync(path).length;
    const file = new FileAccess(path, size);
    let largest = 0;
    const counting = {
      size,
      read(position: number, length: number) {
        largest = Math.max(largest, length);
        return file.read(position, length);
      },
    };
    try {
      expect(readInspectArchive(counting, path).rows).toHaveLength(20);
    } finally {
      file.close();
    }
    // the largest read is the zip's 64 KiB tail or one entry, not the archive
    expect(largest).toBeLessThan(size / 4);
  });

  it('lines split anywhere across chunks, CRLF, a byte-order mark and multi-byte characters read as from one string', () => {
    const text =
      '\uFEFF{"task":"é","sample":0,"passed":true}\r\n\r\n{"task":"日本","sample":1,"passed":false}\n{"task":"z"}';
    const collect = (): LineReader<string[]> & { seen: string[] } => {
      const seen: string[] = [];
      return { seen, line: (line, number) => void seen.push(`${number}:${line}`), end: () => seen };
    };
    const whole = [
      '1:{"task":"é","sample":0,"passed":true}',
      '2:',
      '3:{"task":"日本","sample":1,"passed":false}',
      '4:{"task":"z"}',
    ];
    const bytes = Buffer.from(text);
    for (const size of [1, 2, 3, 5, 7]) {
      const reader = collect();
      const splitter = new LineSplitter('x', reader);
      for (let at = 0; at < bytes.length; at += size) splitter.push(bytes.subarray(at, at + size));
      splitter.end();
      expect(reader.seen, `chunks of ${size}`).toEqual(whole);
    }
  });

  it('an Inspect .json log over 512 MiB is refused by its size before it is read', async () => {
    const path = join(folder, 'huge.json');
    const fd = openSync(path, 'w');
    writeSync(fd, '{\n  "version": 2,\n');
    closeSync(fd);
    // a sparse file: 600 MB long, nothing written past the first line
    truncateSync(path, 600_000_000);
    await fails(
      ['metrics', path],
      1,
      /huge\.json: a JSON document over 512 MiB, more than one string can hold, so it cannot be parsed whole; write the Inspect log as \.eval/,
    );
  });

  it('a 600 KB .gz that inflates to 600 MB on one line is refused at 512 MiB, in one line (exit 1, not 3)', async () => {
    // 100 gzip members of 6 MB each, which gunzip reads as one stream
    const member = gzipSync(Buffer.alloc(6_000_000, 0x61), { level: 9 });
    const path = write('bomb.jsonl.gz', Buffer.concat(Array.from({ length: 100 }, () => member)));
    expect(readFileSync(path).length).toBeLessThan(1_000_000);
    await fails(
      ['metrics', path],
      1,
      /bomb\.jsonl\.gz:1: a line longer than 512 MiB, more than one string can hold/,
    );
  });
});

describe('smaller: messages that say what is wrong', () => {
  const tenPerTask = write(
    'ten.jsonl',
    lines(
      ['a', 'b', 'c'].flatMap((task) =>
        Array.from({ length: 10 }, (_, sample) => ({ task, sample, passed: sample % 2 === 0 })),
      ),
    ),
  );
  it('compare --k above the samples per task says so, not "share no task"', async () => {
    await fails(
      ['compare', tenPerTask, tenPerTask, '--k', '100'],
      1,
      /k = 100 is more than the samples per task \(at most 10 in A, 10 in B\): pass@100 needs at least 100 samples of a task in both files/,
    );
  });

  it('metrics on 500,001 tasks runs at --reps 100 (it said "use --reps 99 or fewer", below the least)', async () => {
    const rows = ['task,sample,passed'];
    for (let task = 0; task < 500_001; task++) rows.push(`t${task},0,${task % 3 === 0 ? 1 : 0}`);
    const path = write('many-tasks.csv', `${rows.join('\n')}\n`);
    const { code, stdout, stderr } = await cli(['metrics', path, '--reps', '100', '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as Record<string, any>).meanAccuracy.estimate).toBeCloseTo(1 / 3, 5);
  });
});

// A lossy decoding turns each byte that is not UTF-8 into U+FFFD, so that `A\xff` and `A\xfe`
// become one task id: every text the readers decode is refused instead, naming where.
/** Text with `\xNN` escapes standing for single bytes (latin1), the rest as UTF-8. */
const bytesOf = (...parts: Array<string | number>) =>
  Buffer.concat(parts.map((part) => (typeof part === 'number' ? Buffer.from([part]) : Buffer.from(part))));

const rowsTwoIds = bytesOf(
  '{"task":"A',
  0xff,
  '","sample":0,"passed":true}\n{"task":"A',
  0xfe,
  '","sample":1,"passed":false}\n{"task":"B","sample":0,"passed":true}\n',
);

describe('bytes that are not UTF-8 are refused, naming the file and line', () => {
  it('JSONL, gzipped JSONL, CSV and a JSON document: exit 1, one line', async () => {
    await expectCliError(
      ['metrics', write('utf8/rows.jsonl', rowsTwoIds)],
      1,
      /rows\.jsonl:1: not valid UTF-8/,
    );
    await expectCliError(
      ['metrics', write('utf8/rows.jsonl.gz', gzipSync(rowsTwoIds))],
      1,
      /rows\.jsonl\.gz:1: not valid UTF-8/,
    );
    const csv = bytesOf('task,sample,passed\nB,0,true\nA', 0xe9, ',0,true\n');
    await expectCliError(['metrics', write('utf8/rows.csv', csv)], 1, /rows\.csv:3: not valid UTF-8/);
    const log = bytesOf('{\n  "version": 2,\n  "eval": {"task": "t', 0xc3, '"},\n  "samples": []\n}\n');
    await expectCliError(['metrics', write('utf8/log.json', log)], 1, /log\.json:3: not valid UTF-8/);
  });

  it('a sidecar harness, an .eval entry and an entry name', async () => {
    const rows = write('utf8/side.jsonl', '{"task":"a","sample":0,"passed":true}\n');
    write('utf8/side.jsonl.harness.json', bytesOf('{\n  "model": "m', 0x80, '"\n}\n'));
    await expect(readResults(rows)).rejects.toThrow(/side\.jsonl\.harness\.json:2: not valid UTF-8/);

    const header = Buffer.from(JSON.stringify({ version: 2, eval: { task: 't', model: 'm' } }));
    const sample = (id: string | Buffer) =>
      Buffer.concat([
        Buffer.from('{"id":"'),
        Buffer.from(id),
        Buffer.from('","epoch":1,"scores":{"match":{"value":"C"}}}'),
      ]);
    const content = new AdmZip();
    content.addFile('header.json', header);
    content.addFile('samples/1_epoch_1.json', sample(bytesOf('A', 0xff)));
    await expect(readResults(write('utf8/content.eval', content.toBuffer()))).rejects.toThrow(
      /content\.eval: entry 'samples\/1_epoch_1\.json': line 1 is not valid UTF-8/,
    );
    // two entry names that a lossy decoding makes one, `samples/A\xff...` and `samples/A\xfe...`
    const names = new AdmZip();
    names.addFile('header.json', header);
    names.addFile('samples/AX_epoch_1.json', sample('1'));
    names.addFile('samples/AY_epoch_1.json', sample('2'));
    const archive = names.toBuffer();
    for (const [placeholder, byte] of [
      ['AX_', 0xff],
      ['AY_', 0xfe],
    ] as const)
      for (let at = archive.indexOf(placeholder); at >= 0; at = archive.indexOf(placeholder, at + 1))
        archive[at + 1] = byte;
    await expect(readResults(write('utf8/names.eval', archive))).rejects.toThrow(
      /names\.eval: not a readable zip archive \(central directory entry 2 of 3 has a name that is not UTF-8\)/,
    );
  });

  it('the lm-eval results file beside the samples: named in the note that leaves it out', async () => {
    const date = '2026-04-02T00-00-00.000000';
    const samples = write(
      `utf8/lm/samples_boolq_${date}.jsonl`,
      '{"doc_id":0,"filter":"none","metrics":["acc"],"acc":1}\n{"doc_id":1,"filter":"none","metrics":["acc"],"acc":0}\n',
    );
    write(
      `utf8/lm/results_${date}.json`,
      bytesOf('{\n  "results": {"boolq": {"acc,none": 0.5, "alias": "b', 0xff, '"}}\n}\n'),
    );
    const { stdout } = await cli(['metrics', samples, '--reps', '200']);
    expect(stdout).toMatch(
      /note: results_[^ ]* beside it is not readable \(.*results_[^ ]*\.json:2: not valid UTF-8/,
    );
  });

  it('an aggregate score file', async () => {
    const scores = bytesOf('algorithm,run,task,score\nx,0,a', 0xff, ',0.5\nx,0,a', 0xfe, ',0.25\n');
    await expectCliError(
      ['aggregate', write('utf8/scores.csv', scores)],
      1,
      /scores\.csv:2: not valid UTF-8/,
    );
  });

  it('a byte-order mark is dropped from the first line only; multi-byte characters are text as before', async () => {
    const file = await readResults(
      write(
        'utf8/bom.jsonl',
        '\uFEFF{"task":"é","sample":0,"passed":true}\n{"task":"日本","sample":0,"passed":true}\n',
      ),
    );
    expect(file.rows.map(({ task }) => task)).toEqual(['é', '日本']);
    const { code } = await cli([
      'metrics',
      write('utf8/bom.csv', '\uFEFFtask,sample,passed\né,0,true\n'),
      '--json',
    ]);
    expect(code).toBe(0);
    const seen: string[] = [];
    const splitter = new LineSplitter('x', { line: (text) => void seen.push(text), end: () => seen });
    splitter.push(Buffer.from('\uFEFFa\n\uFEFFb\n'));
    expect(seen).toEqual(['a', '\uFEFFb']);
  });
});
