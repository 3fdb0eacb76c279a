import { PROPORTION_METHODS, proportionInterval } from '../../eval/index.ts';
import {
  boolFlag,
  choiceFlag,
  countFlag,
  decimals,
  numberFlag,
  printJson,
  UsageError,
  valueFlag,
  type Command,
} from '../args.ts';

export const command: Command = {
  name: 'interval',
  summary: 'Confidence interval for one proportion (Wilson, Wald, Clopper-Pearson, Jeffreys, Agresti-Coull)',
  usage: 'tinyagent interval --successes C --samples N [--method wilson] [--level 0.95] [--json]',
  flags: {
    successes: { type: 'string', description: 'number of successes C' },
    samples: { type: 'string', description: 'number of samples (trials) N (an integer up to 2^53 - 1)' },
    method: { type: 'string', description: PROPORTION_METHODS.join(' | '), default: 'wilson' },
    level: valueFlag('confidence level', { default: '0.95', range: decimals(1e-6, 1 - 1e-9) }),
    json: { type: 'boolean', description: 'print JSON' },
    trials: { type: 'string', description: 'deprecated name of --samples', aliasOf: 'samples' },
  },
  async run(args) {
    if (args.flags.successes === undefined || args.flags.samples === undefined)
      throw new UsageError('--successes and --samples are required');
    const trials = countFlag(args, 'samples', 1);
    const successes = countFlag(args, 'successes', 0, trials);
    const method = choiceFlag(args, 'method', PROPORTION_METHODS, 'wilson');
    const level = numberFlag(args, 'level', 0.95);
    const result = proportionInterval(successes, trials, { method, level });
    if (boolFlag(args, 'json')) printJson(result);
    else
      process.stdout.write(
        `${successes}/${trials} = ${result.estimate.toFixed(4)}, ${method} ${level * 100}% interval [${result.low.toFixed(4)}, ${result.high.toFixed(4)}]\n`,
      );
  },
};
