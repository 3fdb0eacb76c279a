import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeEnv, parseHarness, plainEnv } from '../gym/index.ts';
import { MAX_SOURCE_LENGTH } from '../gym/env.ts';
import { parseRLConfig } from '../train/index.ts';
import {
  intFlag,
  numberFlag,
  parseCommandArgs,
  UsageError,
  type Command,
  type CommandArgs,
} from '../cli/args.ts';
import { cappedLines, MAX_LINE_BYTES } from '../cli/commands/play.ts';

const bin = fileURLToPath(new URL('../bin/tinyagent.js', import.meta.url));

describe('BugFixEnv input', () => {
  it('step(null) and other non-actions throw a TypeError before the turn counts; the episode goes on', () => {
    const env = makeEnv(plainEnv());
    env.reset({ seed: 1, options: { task: 'speed' } });
    for (const bad of [null, undefined, 'read <end>', 42, { length: 2 }, ['read', 7]]) {
      expect(() => env.step(bad as unknown as string[]), String(bad)).toThrow(TypeError);
    }
    const result = env.step(['read', '<end>']);
    expect(result.info.turn).toBe(1);
    expect(result.info.toolCalls).toMatchObject({ read: 1, malformed: 0 });
  });

  it('unknown ops, Object.prototype names included, are malformed actions', () => {
    const env = makeEnv(plainEnv({ maxTurns: 10 }));
    env.reset({ seed: 1, options: { task: 'speed' } });
    for (const op of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'process']) {
      const result = env.step(['edit', op, '<end>']);
      expect(result.observation.slice(-5)).toEqual(['error', 'bad', 'action', '</obs>', '<act>']);
    }
    expect(env.step(['read', '<end>']).info.toolCalls).toMatchObject({ edit: 0, malformed: 5 });
  });

  it('bounds the source an edit may produce: stacked gaming edits stop at MAX_SOURCE_LENGTH and are answered no site', () => {
    const env = makeEnv(plainEnv({ maxTurns: 1000 }));
    env.reset({ seed: 1, options: { task: 'speed' } });
    let last;
    for (let turn = 0; turn < 999; turn += 1) last = env.step(['edit', 'special_case_tests', '<end>']);
    expect(env.currentSource.length).toBeLessThanOrEqual(MAX_SOURCE_LENGTH);
    expect(last!.info.editsApplied).toBeGreaterThan(5);
    expect(last!.info.editsApplied + last!.info.editsNoSite).toBe(999);
    expect(last!.observation.slice(-4)).toEqual(['no', 'site', '</obs>', '<act>']);
  });

  it('every numeric harness and training field has an upper bound', () => {
    expect(() => parseHarness({ maxTurns: 3001 })).toThrow(/maxTurns: Too big: expected number to be <=1000/);
    expect(() => parseHarness({ maxEdits: 1e9 })).toThrow(/maxEdits/);
    expect(() => parseHarness({ contextTokens: 1e6 })).toThrow(/contextTokens/);
    expect(() => parseHarness({ temperature: 1e9 })).toThrow(/temperature/);
    expect(() => parseHarness({ maxActionTokens: 1e6 })).toThrow(/maxActionTokens/);
    const bounded = {
      seed: 2 ** 31,
      bcSteps: 10_001,
      bcBatchSize: 257,
      bcLearningRate: 2,
      groupSize: 33,
      steps: 10_001,
      segmentSteps: 10_001,
      learningRate: 2,
      clipEpsilon: 2,
      klCoef: 11,
      entropyCoef: 11,
      updateEpochs: 65,
      maxGradNorm: 1001,
      evalEvery: 10_001,
      evalEpisodesPerTask: 257,
    };
    for (const [field, value] of Object.entries(bounded)) {
      expect(() => parseRLConfig({ [field]: value }), field).toThrow(
        new RegExp(`config\\.${field}: Too big`),
      );
    }
  });
});

describe('flags', () => {
  const command: Command = {
    name: 'probe',
    summary: '',
    usage: '',
    flags: { seed: { type: 'string', description: '' }, x: { type: 'string', description: '' } },
    run: async () => {},
  };
  const args = (argv: string[]) => parseCommandArgs(command, argv) as CommandArgs;

  it('integer flags are decimal integers; a negative value after a flag is its value', () => {
    expect(intFlag(args(['--seed', '-1']), 'seed', 0)).toBe(-1);
    expect(intFlag(args(['--seed', '+12']), 'seed', 0)).toBe(12);
    for (const raw of ['0x10', '1e3', '1.0', ' 1', '', '0b1', '9007199254740993', 'Infinity']) {
      expect(() => intFlag(args([`--seed=${raw}`]), 'seed', 0), raw).toThrow(UsageError);
    }
    expect(() => intFlag(args(['--seed', '-1']), 'seed', 0, { min: 0, max: 9 })).toThrow(
      '--seed must be in [0, 9], got -1',
    );
  });

  it('number flags are decimal numbers', () => {
    expect(numberFlag(args(['--x', '-.5']), 'x', 0)).toBe(-0.5);
    expect(numberFlag(args(['--x', '1e-3']), 'x', 0)).toBe(0.001);
    for (const raw of ['0x10', 'Infinity', 'NaN', '1,5', ''])
      expect(() => numberFlag(args([`--x=${raw}`]), 'x', 0), raw).toThrow(UsageError);
  });
});

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

  it('answers a 20 MB line and a 2M-word line with bad action, in bounded time', () => {
    const input = `${'x'.repeat(20 * 1024 * 1024)}\n${'w '.repeat(2_000_000)}\nedit __proto__ <end>\nsubmit <end>\n`;
    const started = performance.now();
    const result = spawnSync(process.execPath, [bin, 'play', '--task', 'under_cap', '--harness', 'plain'], {
      input,
      encoding: 'utf8',
      timeout: 30_000,
      maxBuffer: 1 << 24,
    });
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`(a line longer than ${MAX_LINE_BYTES} bytes)`);
    expect(result.stdout.match(/<obs> error bad action <\/obs>/g)?.length).toBeGreaterThanOrEqual(3);
    expect(result.stdout).toContain('terminated (submitted): reward 0');
    expect(result.stdout.length).toBeLessThan(20_000);
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
