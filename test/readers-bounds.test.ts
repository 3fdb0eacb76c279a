import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import AdmZip from 'adm-zip';
import { describe, expect, it } from 'vitest';
import { BIN } from './support/child.ts';

// Hostile result files, small on disk, whose content would exhaust the heap or the stack: each
// read by the CLI in a child whose heap is limited (node --max-old-space-size), so that a reader
// that holds more than its byte budget crashes the child (V8's "heap out of memory", a signal)
// instead of passing. The budget by default is a quarter of the heap limit (--max-bytes).

const folder = mkdtempSync(join(tmpdir(), 'readers-bounds-'));
function write(name: string, content: string | Buffer): string {
  const path = join(folder, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
}

/** The heap the children get, in MB: the files below would need several times it. */
const HEAP_MB = 256;

/** Runs the CLI in a child with a heap of HEAP_MB; its exit code (null when a signal ended it). */
function limited(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, BIN, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Exit 1 with one line on stderr matching `pattern`, under the heap limit. */
async function refused(args: string[], pattern: RegExp): Promise<void> {
  const { status, stdout, stderr } = await limited(args);
  expect(stderr.trimEnd().split('\n'), stderr.slice(0, 300)).toHaveLength(1);
  expect(stderr).toMatch(pattern);
  expect(stdout).toBe('');
  expect(status).toBe(1);
}

const MB = 'x'.repeat(1 << 20);
const MB_GZIP = gzipSync(MB);

/** A gzip of `count` lines, each `head(i)` + one megabyte + `tail`: gzip members, one each, read as one stream. */
function megabyteLines(name: string, count: number, head: (i: number) => string, tail: string): string {
  const parts: Buffer[] = [];
  const end = gzipSync(tail);
  for (let i = 0; i < count; i++) parts.push(gzipSync(head(i)), MB_GZIP, end);
  return write(name, Buffer.concat(parts));
}

/** A gzip of `head`, then `block` `times` times, then `tail` (a few MB of text that repeats, a few KB on disk). */
function repeated(name: string, head: string, block: string, times: number, tail: string): string {
  const member = gzipSync(block);
  return write(
    name,
    Buffer.concat([gzipSync(head), ...Array.from({ length: times }, () => member), gzipSync(tail)]),
  );
}

const budget =
  /the rows read so far hold more than [\d,]+ bytes \([\d.]+ MiB\), the most held from one file \(--max-bytes N raises the limit/;

describe('1. what a row holds is bounded, not only how many rows: --max-bytes', () => {
  it('600 rows of one 1 MB field each: refused in one line, in every command that reads them', async () => {
    const path = megabyteLines(
      'rows-field.jsonl.gz',
      600,
      (i) => `{"task":"t${i % 10}","sample":${Math.floor(i / 10)},"passed":true,"note":"`,
      '"}\n',
    );
    await refused(
      ['metrics', path, '--reps', '100'],
      new RegExp(`rows-field\\.jsonl\\.gz:\\d+: ${budget.source}`),
    );
    await refused(['view', path, '--out', join(folder, 'page')], budget);
    // a flag raises the budget, and one as small lowers it: the same file at --max-bytes 10000000
    await refused(['metrics', path, '--max-bytes', '10000000'], /more than 10,000,000 bytes \(9\.5 MiB\)/);
  });

  it('view DIR lists such a file with its reason, beside the files it reads', async () => {
    const dir = join(folder, 'listed');
    mkdirSync(dir);
    writeFileSync(join(dir, 'big.jsonl.gz'), readFileSync(join(folder, 'rows-field.jsonl.gz')));
    writeFileSync(join(dir, 'blog.jsonl'), readFileSync('samples/blog-example.jsonl'));
    const out = join(folder, 'listed-page');
    const { status, stderr } = await limited(['view', dir, '--out', out]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const data = readFileSync(join(out, 'data.js'), 'utf8');
    expect(data).toMatch(/big\.jsonl\.gz.*the rows read so far hold more than/);
  });

  it("lm-eval's doc_id of 1 MB on 300 lines: refused; HumanEval's 1 MB result: the row keeps its first 1,000 characters", async () => {
    const lm = megabyteLines(
      'samples_boolq_2026-01-01T00-00-00.000000.jsonl.gz',
      300,
      (i) => `{"doc_id":"${i}`,
      '","filter":"none","metrics":["acc"],"acc":1.0}\n',
    );
    await refused(['metrics', lm], budget);
    const humaneval = megabyteLines(
      'he_results.jsonl.gz',
      300,
      (i) => `{"task_id":"HumanEval/${i % 10}","completion":"","passed":${i % 2 === 0},"result":"failed: `,
      '"}\n',
    );
    const { status, stdout, stderr } = await limited(['metrics', humaneval, '--reps', '100', '--json']);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect((JSON.parse(stdout) as Record<string, any>).meanAccuracy.estimate).toBe(0.5);
  });

  it("an Inspect sample's scores with a 1 MB explanation each: only the values are kept", async () => {
    const zip = new AdmZip();
    zip.addFile(
      'header.json',
      Buffer.from(JSON.stringify({ version: 2, status: 'success', eval: { task: 't' } })),
    );
    for (let id = 1; id <= 300; id++)
      zip.addFile(
        `samples/${id}_epoch_1.json`,
        Buffer.from(
          JSON.stringify({
            id,
            epoch: 1,
            scores: { match: { value: id % 4 === 0 ? 'C' : 'I', explanation: MB } },
          }),
        ),
      );
    const path = write('explained.eval', zip.toBuffer());
    const { status, stdout, stderr } = await limited(['metrics', path, '--reps', '100', '--json']);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect((JSON.parse(stdout) as Record<string, any>).meanAccuracy.estimate).toBe(0.25);
  });
});

describe('2. an Inspect .json log is read one sample at a time: its sample count is refused as it streams', () => {
  const header =
    '{\n  "version": 2,\n  "status": "success",\n  "eval": {\n    "task": "t"\n  },\n  "samples": [';
  it('10,000,000 empty samples, indented as Inspect writes a log', async () => {
    const path = repeated('empty.json.gz', header, '{},'.repeat(1_000_000), 10, '{}]\n}\n');
    expect(readFileSync(path).length).toBeLessThan(100_000);
    await refused(['metrics', path], new RegExp(`empty\\.json\\.gz: ${budget.source}`));
  });

  it('the same on one line: the line is refused before it is parsed whole', async () => {
    const path = repeated(
      'empty-line.json.gz',
      '{"version": 2, "eval": {"task": "t"}, "samples": [',
      '{},'.repeat(1_000_000),
      10,
      '{}]}\n',
    );
    await refused(
      ['metrics', path],
      /empty-line\.json\.gz:1: a JSON text of [\d,]+ characters and [\d,]+ values, which would take about [\d,]+ bytes .* to parse, more than the [\d,]+ bytes .* a file may hold \(--max-bytes/,
    );
  });
});

describe('11. a gzipped .eval archive is unpacked within the budget, counted before it is held', () => {
  it('an archive that unpacks past the budget is refused with nothing held', async () => {
    const path = repeated('big.eval.gz', 'PK\u0003\u0004', ' '.repeat(1 << 24), 12, '');
    await refused(
      ['metrics', path],
      /big\.eval\.gz: a gzipped \.eval archive over [\d,]+ bytes .* unpacked, more than is unpacked in memory \(--max-bytes N raises the limit/,
    );
  });
});

describe('4 and 5. nesting past 1,000 levels and infinite scores: one line, exit 1, not a stack overflow or a crash', () => {
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  it('100,000 nested arrays in a row, in an Inspect log, in a sidecar harness', async () => {
    const rows = write(
      'deep.jsonl',
      `{"task":"a","sample":0,"passed":true,"x":${deep}}\n{"task":"b","sample":0,"passed":false}\n`,
    );
    for (const args of [
      ['metrics', rows, '--json'],
      ['view', rows, '--out', join(folder, 'deep-page')],
    ])
      await refused(args, /deep\.jsonl:1: arrays and objects nested more than 1,000 deep/);
    const log = write(
      'deep-log.json',
      JSON.stringify(
        {
          version: 2,
          status: 'success',
          eval: { task: 't', task_args: { a: 0 } },
          samples: [{ id: 1, epoch: 1, scores: { m: { value: 'C' } } }],
        },
        null,
        2,
      ).replace('"a": 0', `"a": ${deep}`),
    );
    await refused(
      ['metrics', log, '--json'],
      /deep-log\.json:\d+: member 'eval': arrays and objects nested more than 1,000 deep/,
    );
    const plain = write('plain.jsonl', '{"task":"a","sample":0,"passed":true}\n');
    write('plain.jsonl.harness.json', `{"harness": {"x": ${deep}}}`);
    await refused(
      ['metrics', plain, '--json'],
      /plain\.jsonl\.harness\.json: arrays and objects nested more than 1,000 deep/,
    );
  });

  it('an Inspect score "1e309", the number 1e309 and the bare Infinity: one rule, refused naming the sample', async () => {
    const log = (value: string) =>
      JSON.stringify(
        {
          version: 2,
          status: 'success',
          eval: { task: 't' },
          samples: [
            { id: 1, epoch: 1, scores: { m: { value: 7 } } },
            { id: 2, epoch: 1, scores: { m: { value: 0.5 } } },
          ],
        },
        null,
        2,
      ).replace('"value": 7', `"value": ${value}`);
    for (const [name, value, shown] of [
      ['string', '"1e309"', '"1e309"'],
      ['number', '1e309', 'Infinity'],
      ['token', 'Infinity', 'Infinity'],
    ] as const)
      await refused(
        ['metrics', write(`infinite-${name}.json`, log(value))],
        new RegExp(
          `samples\\[0\\]: scorer 'm' of sample id 1 epoch 1: ${shown.replace(/"/g, '"')}: an infinite score`,
        ),
      );
  });

  it("lm-eval's per-document Infinity is named as Infinity, not null", async () => {
    const path = write(
      'samples_wikitext_2026-01-01T00-00-00.000000.jsonl',
      '{"doc_id": 0, "filter": "none", "metrics": ["bits"], "bits": 0.5}\n{"doc_id": 1, "filter": "none", "metrics": ["bits"], "bits": Infinity}\n',
    );
    await refused(
      ['metrics', path],
      /:2: field 'bits': Infinity is not a finite number, so the mean over documents is not defined/,
    );
  });
});

describe('3. the viewer re-reads a sample within the same bounds: a file replaced by a bomb answers 422', () => {
  it('a served .json.gz replaced by a log of 10,000,000 samples, and an .eval.gz by one that unpacks past the budget', async () => {
    for (const [name, original, bomb] of [
      [
        'served.json.gz',
        gzipSync(readFileSync('samples/inspect/arith-model-b.json')),
        readFileSync(join(folder, 'empty-line.json.gz')),
      ],
      [
        'served.eval.gz',
        gzipSync(readFileSync('samples/inspect/arith-model-a.eval')),
        readFileSync(join(folder, 'big.eval.gz')),
      ],
    ] as const) {
      const path = write(name, original);
      const child = spawn(
        process.execPath,
        [`--max-old-space-size=${HEAP_MB}`, BIN, 'view', path, '--port', '0'],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let text = '';
          child.stdout.on('data', (chunk: Buffer) => {
            text += String(chunk);
            const found = /http:\/\/127\.0\.0\.1:\d+\//.exec(text);
            if (found !== null) resolve(found[0]);
          });
          child.on('exit', () => reject(new Error(`view exited early: ${text}`)));
        });
        const ask = () => fetch(`${url}sample?file=0&task=1&sample=0`);
        expect((await ask()).status).toBe(200);
        writeFileSync(path, bomb);
        const answer = await ask();
        expect(answer.status).toBe(422);
        expect(((await answer.json()) as { error: string }).error).toMatch(/the file changed/);
        expect((await ask()).status, 'the viewer still answers').toBe(422);
      } finally {
        child.kill();
      }
      expect(await exited).not.toBe(134);
    }
  });
});
