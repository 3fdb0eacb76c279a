import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import AdmZip from 'adm-zip';
import { describe, expect, it } from 'vitest';
import { readResults } from '../eval/io/index.ts';
import { LineSplitter } from '../eval/io/source.ts';
import { cli, expectCliError } from './support/cli.ts';

// A lossy decoding turns each byte that is not UTF-8 into U+FFFD, so that `A\xff` and `A\xfe`
// become one task id: every text the readers decode is refused instead, naming where.

const folder = mkdtempSync(join(tmpdir(), 'readers-utf8-'));
function write(name: string, bytes: string | Buffer): string {
  const path = join(folder, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, bytes);
  return path;
}
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
    await expectCliError(['metrics', write('rows.jsonl', rowsTwoIds)], 1, /rows\.jsonl:1: not valid UTF-8/);
    await expectCliError(
      ['metrics', write('rows.jsonl.gz', gzipSync(rowsTwoIds))],
      1,
      /rows\.jsonl\.gz:1: not valid UTF-8/,
    );
    const csv = bytesOf('task,sample,passed\nB,0,true\nA', 0xe9, ',0,true\n');
    await expectCliError(['metrics', write('rows.csv', csv)], 1, /rows\.csv:3: not valid UTF-8/);
    const log = bytesOf('{\n  "version": 2,\n  "eval": {"task": "t', 0xc3, '"},\n  "samples": []\n}\n');
    await expectCliError(['metrics', write('log.json', log)], 1, /log\.json:3: not valid UTF-8/);
  });

  it('a sidecar harness, an .eval entry and an entry name', async () => {
    const rows = write('side.jsonl', '{"task":"a","sample":0,"passed":true}\n');
    write('side.jsonl.harness.json', bytesOf('{\n  "model": "m', 0x80, '"\n}\n'));
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
    await expect(readResults(write('content.eval', content.toBuffer()))).rejects.toThrow(
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
    await expect(readResults(write('names.eval', archive))).rejects.toThrow(
      /names\.eval: not a readable zip archive \(central directory entry 2 of 3 has a name that is not UTF-8\)/,
    );
  });

  it('the lm-eval results file beside the samples: named in the note that leaves it out', async () => {
    const date = '2026-04-02T00-00-00.000000';
    const samples = write(
      `lm/samples_boolq_${date}.jsonl`,
      '{"doc_id":0,"filter":"none","metrics":["acc"],"acc":1}\n{"doc_id":1,"filter":"none","metrics":["acc"],"acc":0}\n',
    );
    write(
      `lm/results_${date}.json`,
      bytesOf('{\n  "results": {"boolq": {"acc,none": 0.5, "alias": "b', 0xff, '"}}\n}\n'),
    );
    const { stdout } = await cli(['metrics', samples, '--reps', '200']);
    expect(stdout).toMatch(
      /note: results_[^ ]* beside it is not readable \(.*results_[^ ]*\.json:2: not valid UTF-8/,
    );
  });

  it('an aggregate score file', async () => {
    const scores = bytesOf('algorithm,run,task,score\nx,0,a', 0xff, ',0.5\nx,0,a', 0xfe, ',0.25\n');
    await expectCliError(['aggregate', write('scores.csv', scores)], 1, /scores\.csv:2: not valid UTF-8/);
  });

  it('a byte-order mark is dropped from the first line only; multi-byte characters are text as before', async () => {
    const file = await readResults(
      write(
        'bom.jsonl',
        '\uFEFF{"task":"é","sample":0,"passed":true}\n{"task":"日本","sample":0,"passed":true}\n',
      ),
    );
    expect(file.rows.map(({ task }) => task)).toEqual(['é', '日本']);
    const { code } = await cli([
      'metrics',
      write('bom.csv', '\uFEFFtask,sample,passed\né,0,true\n'),
      '--json',
    ]);
    expect(code).toBe(0);
    const seen: string[] = [];
    const splitter = new LineSplitter('x', { line: (text) => void seen.push(text), end: () => seen });
    splitter.push(Buffer.from('\uFEFFa\n\uFEFFb\n'));
    expect(seen).toEqual(['a', '\uFEFFb']);
  });
});
