import { describe, expect, it } from 'vitest';
import {
  intFlag,
  numberFlag,
  parseCommandArgs,
  UsageError,
  type Command,
  type CommandArgs,
} from '../cli/args.ts';

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
