import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readScoreFiles } from '../eval/io/formats/scores.ts';
import { batchOf, groupOutcomes, readResults, ResultFileError } from '../eval/io/index.ts';

const folder = mkdtempSync(join(tmpdir(), 'eval-readers-'));
const csv = (lines: string[]) => `${lines.join('\n')}\n`;
const jsonl = (records: unknown[]) => `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;
let written = 0;
/** `text` read as the result file `name`, in a folder of its own, as the commands read a file. */
function readText(text: string, name = 'rows') {
  const dir = join(folder, `text-${(written += 1)}`);
  mkdirSync(dir);
  writeFileSync(join(dir, name), text);
  return readResults(join(dir, name));
}

describe('result-file readers refuse rows that would silently change a number', () => {
  it('a duplicated CSV column is refused, naming it (the last one used to win)', async () => {
    await expect(readText(csv(['task,sample,passed,task', 'a,0,1,b']), 'x.csv')).rejects.toThrow(
      /\/x\.csv:1: field 'task': appears twice in the CSV header/,
    );
    await expect(readText(csv(['task,sample,passed,note,note', 'a,0,1,,']), 'x.csv')).rejects.toThrow(
      /field 'note': appears twice/,
    );
  });

  it('a duplicated JSON key is refused the same way (JSON.parse keeps the last)', async () => {
    await expect(
      readText('{"task":"a","sample":0,"passed":true,"passed":false}\n', 'x.jsonl'),
    ).rejects.toThrow(/\/x\.jsonl:1: field 'passed': appears twice/);
    // nested objects may repeat their own keys' names; only the row's own fields count
    expect(
      (await readText('{"task":"a","sample":0,"passed":true,"meta":{"task":"b"}}\n')).rows[0]?.task,
    ).toBe('a');
  });

  it.each(['0x1', '1e0', '1.0', '+1', '-1', '1 2', '9007199254740992', 'one'])(
    'CSV sample %j is refused: decimal integers only',
    async (sample) => {
      await expect(readText(csv(['task,sample,passed', `a,${sample},1`]), 'x.csv')).rejects.toThrow(
        /x\.csv:2: field 'sample': expected a non-negative decimal integer/,
      );
    },
  );

  it('decimal sample and turn indices are read, in CSV and as JSON integers or digit strings', async () => {
    expect((await readText(csv(['task,sample,passed,turn', 'a, 12 ,1,3']))).rows[0]).toMatchObject({
      sample: 12,
      turn: 3,
    });
    expect((await readText(jsonl([{ task: 'a', sample: '7', passed: 1 }]))).rows[0]?.sample).toBe(7);
    await expect(readText(jsonl([{ task: 'a', sample: 1.5, passed: 1 }]))).rejects.toThrow(/field 'sample'/);
    await expect(readText(jsonl([{ task: 'a', sample: '1e0', passed: 1 }]))).rejects.toThrow(
      /field 'sample'/,
    );
    await expect(readText(jsonl([{ task: 'a', sample: 0, turn: '0x2', passed: 1 }]))).rejects.toThrow(
      /field 'turn'/,
    );
  });

  it('a refused number is shown as the file holds it: 1e400 as Infinity, an integer past 2^53 - 1 as such', async () => {
    const refused = (row: string, name = 'n.jsonl') => expect(readText(`${row}\n`, name)).rejects;
    await refused('{"task":"a","sample":1e400,"passed":true}').toThrow(/field 'sample': .*got Infinity$/);
    await refused('{"task":"a","sample":0,"passed":-1e400}').toThrow(/field 'passed': .*got -Infinity$/);
    await refused('{"task":"a","sample":9007199254740993,"passed":true}').toThrow(
      /field 'sample': .*got a number beyond 2\^53 - 1$/,
    );
    await refused('{"task":-9007199254740993,"sample":0,"passed":true}').toThrow(
      /field 'task': .*got a number below -\(2\^53 - 1\)$/,
    );
    await refused('{"task_id":1e999,"completion":"x","result":"passed","passed":true}', 'h.jsonl').toThrow(
      /field 'task_id': .*got Infinity$/,
    );
  });

  it('task ids are strings: JSON 7 and "7" and CSV 7 are one task; other JSON values are refused', async () => {
    const json = await readText(
      jsonl([
        { task: 7, sample: 0, passed: 1 },
        { task: '7', sample: 1, passed: 0 },
      ]),
    );
    expect(groupOutcomes(json.rows).tasks.map(({ task, outcomes }) => [task, [...outcomes]])).toEqual([
      ['7', [1, 0]],
    ]);
    expect((await readText(csv(['task,sample,passed', '7,0,1']))).rows[0]?.task).toBe('7');
    expect((await readText(jsonl([{ task: ' a ', sample: 0, passed: 1 }]))).rows[0]?.task).toBe('a');
    for (const task of [7.5, true, null, { id: 1 }, ['a'], '  ']) {
      await expect(readText(jsonl([{ task, sample: 0, passed: 1 }]), 'x.jsonl')).rejects.toThrow(
        /x\.jsonl:1: field 'task'/,
      );
    }
    await expect(readText(jsonl([{ task: 'a', sample: 0, passed: 1, run: { id: 1 } }]))).rejects.toThrow(
      /field 'run'/,
    );
  });

  it('a row without turn and a row with turn 0 for the same sample are duplicates', async () => {
    const file = await readText(
      jsonl([
        { task: 'a', sample: 0, passed: 1 },
        { task: 'a', sample: 0, turn: 0, passed: 0 },
      ]),
      'x.jsonl',
    );
    const { issues } = groupOutcomes(file.rows);
    expect(issues[0]).toMatchObject({ kind: 'duplicate', lines: [2] });
    expect(issues[0]?.message).toMatch(/lines 1 and 2/);
    expect(() => batchOf(file, undefined)).toThrow(ResultFileError);
  });

  it('rows with a run and rows without one are not silently one batch', async () => {
    const file = await readText(
      jsonl([
        { task: 'a', sample: 0, passed: 1, run: 'r1' },
        { task: 'a', sample: 0, passed: 0 },
      ]),
      'x.jsonl',
    );
    expect(groupOutcomes(file.rows).issues[0]).toMatchObject({ kind: 'multiple-runs', lines: [2] });
    expect(() => batchOf(file, undefined)).toThrow(/x\.jsonl: 1 row\(s\) carry run 'r1' and 1 carry none/);
    expect(batchOf(file, 'r1').map(({ outcomes }) => [...outcomes])).toEqual([[1]]);
  });

  it('keeps what works: BOM, CRLF, passed as true/"true"/1/"1"; refuses "yes", 2, null, NaN in one line naming file:line', async () => {
    const bomCsv = await readText('\uFEFFtask,sample,passed\r\na,0,true\r\na,1,1\r\na,2,FALSE\r\n', 'b.csv');
    expect(bomCsv.rows.map(({ passed }) => passed)).toEqual([true, true, false]);
    const bomJsonl = await readText(
      '\uFEFF{"task":"a","sample":0,"passed":"true"}\r\n{"task":"a","sample":1,"passed":0}\r\n',
      'b.jsonl',
    );
    expect(bomJsonl.format).toBe('jsonl');
    expect(bomJsonl.rows.map(({ passed }) => passed)).toEqual([true, false]);
    for (const passed of ['"yes"', '2', 'null', '"NaN"', '1.5']) {
      await expect(
        readText(
          `{"task":"a","sample":0,"passed":true}\n{"task":"a","sample":1,"passed":${passed}}\n`,
          'r.jsonl',
        ),
      ).rejects.toThrow(/\/r\.jsonl:2: field 'passed': expected true\/false or 1\/0/);
    }
    await expect(readText('{"task":"a","sample":0,"passed":NaN}\n', 'r.jsonl')).rejects.toThrow(
      /\/r\.jsonl:1: not valid JSON/,
    );
    await expect(readText(csv(['task,sample,passed', 'a,0,NaN']), 'r.csv')).rejects.toThrow(
      /\/r\.csv:2: field 'passed'/,
    );
  });

  it('keeps the other keys of the header line (provenance) beside the harness', async () => {
    const file = await readText(
      jsonl([
        { harness: { temperature: 1 }, provenance: { commit: 'abc' }, seed: 3 },
        { task: 'a', sample: 0, passed: 1, envSeed: 42, samplingKey: 'k/0' },
      ]),
    );
    expect(file.harness).toEqual({ temperature: 1 });
    expect(file.header).toEqual({ provenance: { commit: 'abc' }, seed: 3 });
    expect(file.rows[0]?.extra).toEqual({ envSeed: 42, samplingKey: 'k/0' });
  });

  it('an error message is one line even when the file holds control characters', async () => {
    let message = '';
    try {
      await readText('task,sample,passed\na,0,\ryes\u0007\n', 'c\r\n.csv');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/\/c\\r\\n\.csv:2: field 'passed'/);
    expect(message).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe('file errors are one ResultFileError naming the path', () => {
  it('a folder, a missing file, a path under a file, a sidecar that is a folder', async () => {
    const cases: Array<[string, RegExp]> = [
      [folder, /is a folder, not a result file/],
      [join(folder, 'missing.jsonl'), /no such file/],
    ];
    const file = join(folder, 'ok.jsonl');
    writeFileSync(file, jsonl([{ task: 'a', sample: 0, passed: 1 }]));
    cases.push([join(file, 'inner.jsonl'), /no such file/]);
    const withSidecar = join(folder, 'sidecar.jsonl');
    writeFileSync(withSidecar, jsonl([{ task: 'a', sample: 0, passed: 1 }]));
    mkdirSync(`${withSidecar}.harness.json`);
    cases.push([withSidecar, /sidecar\.jsonl\.harness\.json: is a folder, not a sidecar harness/]);
    const twiceSidecar = join(folder, 'twice.jsonl');
    writeFileSync(twiceSidecar, jsonl([{ task: 'a', sample: 0, passed: 1 }]));
    writeFileSync(`${twiceSidecar}.harness.json`, '{\n  "temperature": 0,\n  "temperature": 1\n}\n');
    cases.push([twiceSidecar, /twice\.jsonl\.harness\.json: field 'temperature': appears twice/]);
    for (const [path, pattern] of cases) {
      let thrown: unknown;
      try {
        await readResults(path);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ResultFileError);
      expect((thrown as Error).message).toMatch(pattern);
      expect((thrown as Error).message.split('\n')).toHaveLength(1);
    }
    expect((await readResults(file)).rows).toHaveLength(1);
  });

  it('a folder is named as what each reader reads: aggregate reads no .eval log', () => {
    expect(() => readScoreFiles([folder])).toThrow(
      /is a folder, not a score file \(give the path of a \.csv, /,
    );
    expect(() => readScoreFiles([folder])).not.toThrow(/\.eval/);
  });
});
