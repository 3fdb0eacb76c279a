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
import { cli } from './support/cli.ts';

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
      integer: true,
      spec: {
        type: 'string',
        description: TrainSchema.shape.bcSteps.description,
        default: String(defaults.bcSteps),
        range: { min: 0, max: 10_000 },
      },
    });
    expect(flags.seed.spec.range).toEqual({ min: 0, max: 2_147_483_647 });
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
