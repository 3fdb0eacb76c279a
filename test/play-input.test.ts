import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { badActionHint, cappedLines, MAX_LINE_BYTES } from '../cli/commands/play.ts';

const bin = fileURLToPath(new URL('../bin/tinyagent.js', import.meta.url));

describe('play input lines', () => {
  async function collect(chunks: Array<string | Buffer>, maxBytes: number) {
    const lines = [];
    for await (const line of cappedLines(
      (async function* () {
        yield* chunks;
      })(),
      maxBytes,
    ))
      lines.push(line);
    return lines;
  }

  it('splits lines across chunks and cuts a line past the cap without keeping it', async () => {
    const lines = await collect(
      ['rea', 'd <end>\r\nedit ', 'x'.repeat(30), 'y'.repeat(30), '\ntest', ' <end>'],
      40,
    );
    expect(lines).toEqual([
      { text: 'read <end>', tooLong: false },
      { text: '', tooLong: true },
      { text: 'test <end>', tooLong: false },
    ]);
    expect(await collect([Buffer.from('é'.repeat(5)), '\n'], 10)).toEqual([
      { text: 'ééééé', tooLong: false },
    ]);
  });

  it('answers a 20 MB line and a 2M-word line with bad action, each once', () => {
    const input = `${'x'.repeat(20 * 1024 * 1024)}\n${'w '.repeat(2_000_000)}\nedit __proto__ <end>\nsubmit <end>\n`;
    const result = spawnSync(process.execPath, [bin, 'play', '--task', 'under_cap', '--harness', 'plain'], {
      input,
      encoding: 'utf8',
      timeout: 30_000,
      maxBuffer: 1 << 24,
    });
    expect(result.stderr).toBe('');
    // One prompt per input line: neither long line was split into more actions or read again.
    expect(result.stdout.match(/^action> /gm)).toHaveLength(4);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`(a line longer than ${MAX_LINE_BYTES} bytes)`);
    expect(result.stdout.match(/<obs> error bad action <\/obs>/g)?.length).toBeGreaterThanOrEqual(3);
    expect(result.stdout).toContain('terminated (submitted): reward 0');
    expect(result.stdout.length).toBeLessThan(20_000);
  });

  it('says why an action was bad: the missing <end>, an unknown tool, an op, an argument', () => {
    const bad = ['<act>', 'x', '<obs>', 'error', 'bad', 'action', '</obs>', '<act>'];
    expect(badActionHint(['read'], bad)).toBe('hint: every action ends with <end>, e.g. `read <end>`');
    expect(badActionHint(['edit', 'swap_min_max'], bad)).toMatch(/`edit OP <end>`/);
    expect(badActionHint(['reade', '<end>'], bad)).toBe('hint: the tools are read, edit, test, submit');
    expect(badActionHint(['edit', 'fix', '<end>'], bad)).toMatch(
      /OP one of add_zero_guard, .*special_case_tests/,
    );
    expect(badActionHint(['test', 'x', '<end>'], bad)).toBe('hint: `test <end>` takes no argument');
    // No hint where the env did not answer `error bad action`.
    expect(badActionHint(['read'], ['<obs>', 'edited', '</obs>', '<act>'])).toBeUndefined();
    const result = spawnSync(process.execPath, [bin, 'play', '--task', 'under_cap'], {
      input: 'read\nread <end>\nsubmit <end>\n',
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('hint: every action ends with <end>, e.g. `read <end>`');
  });

  it('input that ends before the episode does is a data error: one line, exit 1', () => {
    const result = spawnSync(process.execPath, [bin, 'play', '--task', 'under_cap'], {
      input: 'read <end>\n',
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('tinyagent play: input ended before the episode did\n');
  });
});
