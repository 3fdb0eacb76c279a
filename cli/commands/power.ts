import { requiredUnits } from '../../eval/index.ts';
import { boolFlag, choiceFlag, numberFlag, printJson, UsageError, type Command } from '../args.ts';

export const command: Command = {
  name: 'power',
  summary: 'Tasks (or seeds) needed to detect a difference: N >= ((z_{1-a/2} + z_{1-b}) sigma / delta)^2',
  usage:
    'tinyagent power --sd SIGMA --delta D [--alpha 0.05] [--power 0.8] [--design paired|unpaired|seeds] [--json]',
  flags: {
    sd: {
      type: 'string',
      description: 'per-unit SD (of paired differences for paired; of one group otherwise)',
    },
    delta: { type: 'string', description: 'difference to detect, e.g. 0.05' },
    alpha: { type: 'string', description: 'two-sided significance level', default: '0.05' },
    power: { type: 'string', description: 'power 1 - beta, in [0.5, 1)', default: '0.8' },
    design: { type: 'string', description: 'paired | unpaired | seeds', default: 'paired' },
    json: { type: 'boolean', description: 'print JSON' },
  },
  async run(args) {
    if (args.flags.sd === undefined || args.flags.delta === undefined)
      throw new UsageError('--sd and --delta are required');
    const sigma = numberFlag(args, 'sd', 0, { min: 0 });
    const delta = numberFlag(args, 'delta', 0, { min: Number.MIN_VALUE });
    const alpha = numberFlag(args, 'alpha', 0.05, { min: 1e-9, max: 1 - 1e-9 });
    const power = numberFlag(args, 'power', 0.8, { min: 1e-9, max: 1 - 1e-9 });
    const design = choiceFlag(args, 'design', ['paired', 'unpaired', 'seeds'] as const, 'paired');
    let result;
    try {
      result = requiredUnits({ sigma, delta, alpha, power, design });
    } catch (error) {
      // Every input is a flag, so a refused value is a usage error; name the flag.
      if (error instanceof RangeError)
        throw new UsageError(
          error.message.replace(
            /^(sigma|delta|alpha|power)\b/,
            (name) => `--${name === 'sigma' ? 'sd' : name}`,
          ),
        );
      throw error;
    }
    if (boolFlag(args, 'json')) {
      printJson({ sigma, delta, alpha, power, ...result });
      return;
    }
    const unit = design === 'seeds' ? 'seeds' : 'tasks';
    process.stdout.write(
      `${result.units} ${unit}${result.perGroup ? ' per group' : ' (paired)'} to detect ${delta} at two-sided alpha ${alpha} with power ${power} (sigma ${sigma}${result.perGroup ? ', sqrt(2) sigma for the difference' : ''}; exact N ${result.exact.toFixed(2)})\n`,
    );
    if (design === 'seeds' && result.units < 3)
      process.stdout.write('note: estimating the seed SD itself takes at least 3 seeds per group\n');
  },
};
