import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  configFlags,
  configFlagValues,
  intFlag,
  numberFlag,
  parseCommandArgs,
  UsageError,
  type Command,
  type CommandArgs,
} from '../cli/args.ts';
import { TrainSchema } from '../train/index.ts';
import { closestName, count, editDistance } from '../lib/text.ts';
import { cli, expectCliError } from './support/cli.ts';

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

describe('config flags, made from the config schema', () => {
  const flags = configFlags(TrainSchema, ['seed', 'steps', 'bcSteps']);
  const defaults = TrainSchema.parse({});
  const command: Command = {
    name: 'probe',
    summary: '',
    usage: '',
    flags: Object.fromEntries(Object.values(flags).map(({ flag, spec }) => [flag, spec])),
    run: async () => {},
  };
  const args = (argv: string[]) => parseCommandArgs(command, argv) as CommandArgs;

  it('take name, description, default and range from the schema', () => {
    expect(flags.bcSteps).toEqual({
      field: 'bcSteps',
      flag: 'bc-steps',
      spec: {
        type: 'string',
        description: TrainSchema.shape.bcSteps.description,
        default: String(defaults.bcSteps),
        range: { min: 0, max: 10_000, integer: true },
      },
    });
    expect(flags.seed.spec.range).toEqual({ min: 0, max: 2_147_483_647, integer: true });
  });

  it('set only the fields whose flags are given, within their ranges', () => {
    expect(configFlagValues(args([]), flags)).toEqual({});
    expect(configFlagValues(args(['--bc-steps', '7', '--seed', '3']), flags)).toEqual({
      bcSteps: 7,
      seed: 3,
    });
    expect(() => configFlagValues(args(['--steps', '10001']), flags)).toThrow(
      new UsageError('--steps must be in [0, 10000], got 10001'),
    );
    expect(() => configFlagValues(args(['--seed', '1.5']), flags)).toThrow(
      /^--seed must be a decimal integer/,
    );
  });

  it('refuse a field that is not a number with inclusive bounds, a default and a description', () => {
    expect(() => configFlags(TrainSchema, ['parallel'])).toThrow(/parallel is not a number field/);
    expect(() => configFlags(TrainSchema, ['learningRate'])).toThrow(/learningRate is not a number field/);
  });

  it('train --help lists each with the default and range of the schema', async () => {
    const { code, stdout } = await cli(['train', '--help']);
    expect(code).toBe(0);
    for (const [flag, field] of [
      ['seed', 'seed'],
      ['steps', 'steps'],
      ['bc-steps', 'bcSteps'],
    ] as const) {
      const { min, max } = flags[field].spec.range;
      const line = stdout.split('\n').find((text) => text.startsWith(`  --${flag} VALUE `));
      expect(line, flag).toMatch(/^ {2}--\S+ VALUE +/);
      expect(line!.replace(/^ {2}--\S+ VALUE +/, '')).toBe(
        `${TrainSchema.shape[field].description} [${min}..${max}] (default: ${defaults[field]})`,
      );
    }
  });
});

describe('command-line habits', () => {
  it('--version prints the version package.json records', async () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'));
    expect(await cli(['--version'])).toEqual({ code: 0, stdout: `tinyagent ${version}\n`, stderr: '' });
  });

  it('tinyagent help CMD is CMD --help; a command that is not one is a usage error', async () => {
    const help = await cli(['help', 'passk']);
    expect(help).toEqual({ ...(await cli(['passk', '--help'])), code: 0 });
    expect(help.stdout).toMatch(/^Usage: tinyagent passk --samples N --successes C/m);
    await expectCliErrorAny(['help', 'pask'], /unknown command 'pask'; did you mean passk\?/);
    await expectCliErrorAny(['help', 'passk', 'power'], /give one command, got 2/);
  });

  it('a mistyped command or flag gets the nearest name as a hint, and none when nothing is near', async () => {
    await expectCliErrorAny(
      ['evl'],
      /^tinyagent: unknown command 'evl'; did you mean eval\? \(try tinyagent --help\)$/,
    );
    await expectCliErrorAny(['--versoin'], /did you mean --version\?/);
    await expectCliError(
      ['metrics', 'x.jsonl', '--sedd', '1'],
      2,
      /unknown flag '--sedd'; did you mean --seed\?/,
    );
    await expectCliError(['train', '--bc-step', '3'], 2, /did you mean --bc-steps\?/);
    await expectCliError(['eval', '--checkpint', 'x'], 2, /did you mean --checkpoint\?/);
    await expectCliError(['study', 'sttus', 'x'], 2, /unknown study command 'sttus'; did you mean status\?/);
    expect((await cli(['metrics', 'x.jsonl', '--frobnicate'])).stderr).not.toMatch(/did you mean/);
  });

  it("a numeric flag out of its spec's form or range is refused before any file or folder is read", async () => {
    const missing = '/nonexistent/study';
    await expectCliError(
      ['study', 'run', missing, '--jobs', '0'],
      2,
      /^tinyagent study: --jobs must be in \[1, 256\], got 0/,
    );
    await expectCliError(['metrics', '/nonexistent.jsonl', '--reps', '5'], 2, /--reps must be in \[/);
    // An open range reads as words: no 5e-324, Infinity or 9007199254740991.
    await expectCliError(['power', '--sd', '0.1', '--delta', '0'], 2, /--delta must be above 0, got 0/);
    await expectCliError(['power', '--sd', '-1', '--delta', '0.1'], 2, /--sd must be above 0, got -1/);
    // Ranges a --help shows are the ones checked.
    await expectCliError(
      ['interval', '--successes', '1', '--samples', '10', '--level', '1'],
      2,
      /--level must be in \[0\.000001, 0\.999999999\]/,
    );
    await expectCliError(
      ['metrics', 'samples/blog-example.jsonl', '--seed', '-1'],
      2,
      /--seed must be in \[0, 2147483647\]/,
    );
    // A list flag names each value once.
    await expectCliError(
      ['passk', '--samples', '10', '--successes', '3', '--k', '1,1'],
      2,
      /--k lists 1 twice/,
    );
    await expectCliError(['metrics', 'samples/blog-example.jsonl', '--k', '5,1,5'], 2, /--k lists 5 twice/);
    await expectCliError(['train', '--seeds', '3,0,3'], 2, /--seeds lists 3 twice/);
    await expectCliError(
      ['study', 'plan', '--recipe', 'smoke', '--seeds', '0', '--steps', '10,10', '--out', '/tmp/never'],
      2,
      /--steps lists 10 twice/,
    );
    await expectCliError(
      ['diagnose', 'samples/blog-example.jsonl', '--reported', '1:0.5,01:0.6'],
      2,
      /--reported gives k = 1 twice/,
    );
    // An SD of 0 is no design, as --from says of data whose SD is 0.
    await expectCliError(['power', '--sd', '0', '--delta', '0.1'], 2, /--sd must be above 0, got 0/);
    await expectCliError(
      ['metrics', 'x.jsonl', '--k', '0'],
      2,
      /--k values must be in \[1, 2\^53 - 1\], got 0/,
    );
    await expectCliError(['study', 'run', missing, '--jobs', 'abc'], 2, /--jobs must be a decimal integer/);
    await expectCliError(['study', 'run', missing, '--jobs', '1.5'], 2, /--jobs must be a decimal integer/);
    await expectCliError(
      ['study', 'run', missing, '--lease-timeout', '1e'],
      2,
      /--lease-timeout must be a decimal number/,
    );
    await expectCliError(
      ['eval', '--checkpoint', missing, '--temperature', 'hot'],
      2,
      /--temperature must be/,
    );
    // A decimal flag takes a fraction, and --max-edits its word: the folder is what is refused.
    await expectCliError(['eval', '--checkpoint', missing, '--temperature', '0.5'], 1, /does not exist/);
    await expectCliError(['eval', '--checkpoint', missing, '--max-edits', 'unlimited'], 1, /does not exist/);
    await expectCliError(['eval', '--checkpoint', missing, '--max-edits', 'lots'], 2, /--max-edits must be/);
    // In range, the folder is read and refused: the check above is the range's, not the folder's.
    await expectCliError(['study', 'run', missing, '--jobs', '1'], 1, /holds no study/);
  });

  it('closestName: a unique prefix, else one name within 2 edits (1 for short names), never a tie', () => {
    expect(closestName('epi', ['episodes', 'seed'])).toBe('episodes');
    expect(closestName('seeed', ['seed', 'seeds'])).toBe('seed');
    expect(closestName('sede', ['seed', 'json'])).toBe('seed'); // a transposition is one edit
    expect(closestName('jsno', ['json'])).toBe('json');
    expect(closestName('xy', ['k', 'n'])).toBeUndefined();
    expect(closestName('rus', ['run', 'runs'])).toBeUndefined(); // 1 edit from both
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('a flag given twice is refused, naming it and both values, not read as the last', async () => {
    await expectCliError(
      ['study', 'run', 'studies/default-16', '--index', '1', '--index', '5'],
      2,
      /--index is given twice \('1', then '5'\); give it once/,
    );
    await expectCliError(['metrics', 'x.jsonl', '--json', '--json'], 2, /--json is given twice/);
    // under its deprecated name too
    await expectCliError(
      ['passk', '--samples', '10', '--n', '12', '--successes', '1'],
      2,
      /--samples and --n are one flag \(--samples\) \('10', then '12'\)/,
    );
    // a repeatable flag is the list of its values
    const command: Command = {
      name: 'probe',
      summary: '',
      usage: '',
      flags: { sbatch: { type: 'string', description: '', multiple: true } },
      run: async () => {},
    };
    expect(
      (parseCommandArgs(command, ['--sbatch', '--qos=a', '--sbatch', '--x']) as CommandArgs).lists,
    ).toEqual({
      sbatch: ['--qos=a', '--x'],
    });
  });

  it("an empty value or argument ('') is refused: it would name the current folder", async () => {
    for (const argv of [
      ['compare', 'a.jsonl', 'b.jsonl', '--out', ''],
      ['eval', '--checkpoint', 'x', '--out', ''],
      ['bench', '--out', ''],
      ['train', '--out', ''],
      ['train', '--runs-dir', ''],
      ['study', 'compare', 'a', 'b', '--out', ''],
      ['metrics', 'x.jsonl', '--seed='],
    ]) {
      // compare writes no file: its --out is an unknown flag, refused alike
      const expected =
        argv[0] === 'compare' ? /unknown flag '--out'/ : /--(out|runs-dir|seed) is empty; give it a value/;
      await expectCliError(argv, 2, expected);
    }
    for (const sub of ['status', 'run', 'report'])
      await expectCliError(['study', sub, ''], 2, /argument 2 is empty: it names no file or folder/);
    await expectCliError(['metrics', '  '], 2, /argument 1 is empty/);
  });

  it('passk --samples/--successes, with --n/--c as deprecated names that still work and say so in one line', async () => {
    const now = await cli(['passk', '--samples', '20', '--successes', '3', '--k', '1,5', '--json']);
    const old = await cli(['passk', '--n', '20', '--c', '3', '--k', '1,5', '--json']);
    expect(now.code).toBe(0);
    expect(old.stdout).toBe(now.stdout);
    expect(now.stderr).toBe('');
    expect(old.stderr).toBe(
      'tinyagent passk: warning: --n is now --samples and --c is now --successes (deprecated; the old names still work)\n',
    );
    const interval = await cli(['interval', '--successes', '3', '--trials', '40', '--json']);
    expect(interval.stdout).toBe(
      (await cli(['interval', '--successes', '3', '--samples', '40', '--json'])).stdout,
    );
    expect(interval.stderr).toMatch(
      /^tinyagent interval: warning: --trials is now --samples \(deprecated; the old name still works\)\n$/,
    );
    expect((await cli(['passk', '--help'])).stdout).toMatch(/--n VALUE +deprecated name of --samples/);
  });

  it('counts are singular at 1: "1 success in 1 sample"', async () => {
    expect((await cli(['passk', '--samples', '1', '--successes', '1'])).stdout).toMatch(
      /^1 success in 1 sample\n/,
    );
    expect((await cli(['passk', '--samples', '2', '--successes', '0'])).stdout).toMatch(
      /^0 successes in 2 samples\n/,
    );
    expect(count(1, 'task')).toBe('1 task');
    expect(count(0, 'task')).toBe('0 tasks');
    expect(count(2, 'success', 'successes')).toBe('2 successes');
  });

  it('--out writes what its extension says, refusing another extension before any work', async () => {
    await expectCliError(
      ['eval', '--checkpoint', 'no-such-folder', '--out', 'e.json'],
      2,
      /--out writes JSON lines, one row per episode: name the file \*\.jsonl, got 'e\.json'/,
    );
    await expectCliError(
      ['bench', '--only', 'gym', '--out', 'b.md'],
      2,
      /--out writes JSON: name the file \*\.json/,
    );
    await expectCliError(['canary', '--out', 'c.csv'], 2, /name the file \*\.json/);
    await expectCliError(['train', '--out', 'train'], 2, /name the file \*\.json/);
    await expectCliError(['study', 'compare', 'a', 'b', '--out', 'c.txt'], 2, /name the file \*\.json/);
  });
});

/** A failure before any command runs (`tinyagent: ...`, `tinyagent help: ...`): exit 2, one line. */
async function expectCliErrorAny(argv: string[], message: RegExp): Promise<void> {
  const { code, stdout, stderr } = await cli(argv);
  expect(code, argv.join(' ')).toBe(2);
  expect(stdout).toBe('');
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr.trimEnd()).toMatch(message);
}
