import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_ROWS, readResults } from '../eval/io/index.ts';
import { RowBudget } from '../eval/io/source.ts';
import { parseCommandArgs, resultFileOptions, type CommandArgs } from '../cli/args.ts';
import { command as metrics } from '../cli/commands/metrics.ts';
import { BIN } from './support/child.ts';

// Rows are held in memory to be grouped by task, and a gzip of a few MB unpacks to tens of
// millions of identical rows: every reader stops at a limit (MAX_ROWS, or --max-rows) with one
// line, exit 1, instead of exhausting the heap.
const folder = mkdtempSync(join(tmpdir(), 'tinyagent-row-limit-'));
const samples = join(import.meta.dirname, '..', 'samples');

/** A gzip of `count` identical rows (a row bomb in small). */
function bomb(count: number): string {
  const path = join(folder, `bomb-${count}.jsonl.gz`);
  writeFileSync(path, gzipSync(Buffer.from('{"task":"a","sample":0,"passed":true}\n'.repeat(count))));
  return path;
}

describe('the rows read from one file are bounded', () => {
  it('metrics --max-rows 1000 on a gzip of 100,000 identical rows: one line naming the row and the flag, exit 1', () => {
    const path = bomb(100_000);
    const result = spawnSync(process.execPath, [BIN, 'metrics', path, '--max-rows', '1000'], {
      encoding: 'utf8',
    });
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `tinyagent metrics: ${path}:1001: more than 1,000 result rows, the most read from one file (--max-rows N raises the limit; the rows are held in memory)\n`,
    );
    expect(result.status).toBe(1);
  });

  it('a file of exactly --max-rows rows is read', async () => {
    const path = join(folder, 'three.jsonl');
    writeFileSync(
      path,
      ['a', 'b', 'c'].map((task) => `{"task":"${task}","sample":0,"passed":true}\n`).join(''),
    );
    expect((await readResults(path, { maxRows: 3 })).rows).toHaveLength(3);
    await expect(readResults(path, { maxRows: 2 })).rejects.toThrow(
      /three\.jsonl:3: more than 2 result rows/,
    );
  });

  it.each([
    ['project rows, JSONL', 'blog-example.jsonl', /blog-example\.jsonl:\d+: more than 2 result rows/],
    ['project rows, CSV', 'blog-example.csv', /blog-example\.csv:\d+: more than 2 result rows/],
    [
      'HumanEval results',
      'humaneval/samples.jsonl_results.jsonl',
      /_results\.jsonl:3: more than 2 result rows/,
    ],
    [
      'lm-evaluation-harness samples',
      'lm-eval/samples_boolq_2026-08-20T10-15-02.318204.jsonl',
      /boolq_.*\.jsonl:3: more than 2 result rows/,
    ],
    [
      'an Inspect .eval archive',
      'inspect/arith-model-a.eval',
      /arith-model-a\.eval: more than 2 result rows/,
    ],
    ['an Inspect .json log', 'inspect/arith-model-b.json', /arith-model-b\.json: more than 2 result rows/],
  ])('%s: refused past the limit', async (_format, file, message) => {
    const path = join(samples, file);
    expect((await readResults(path)).rows.length).toBeGreaterThan(2);
    await expect(readResults(path, { maxRows: 2 })).rejects.toThrow(message);
  });

  it('the default limit is MAX_ROWS, for the readers and for the commands', () => {
    const budget = new RowBudget('x.jsonl');
    budget.rows = MAX_ROWS - 1;
    expect(() => budget.row(7)).not.toThrow();
    expect(() => budget.row(7)).toThrow(
      `x.jsonl:7: more than ${MAX_ROWS.toLocaleString('en-US')} result rows`,
    );
    const flags = (...argv: string[]) => parseCommandArgs(metrics, ['x.jsonl', ...argv]) as CommandArgs;
    expect(resultFileOptions(flags()).maxRows).toBe(MAX_ROWS);
    expect(resultFileOptions(flags('--max-rows', '12')).maxRows).toBe(12);
    expect(() => resultFileOptions(flags('--max-rows', '0'))).toThrow(
      '--max-rows must be in [1, 2^53 - 1], got 0',
    );
  });

  it('docs/METRICS.md states the default limit', () => {
    expect(readFileSync(join(import.meta.dirname, '..', 'docs', 'METRICS.md'), 'utf8')).toContain(
      `${MAX_ROWS.toLocaleString('en-US')} rows`,
    );
  });
});
