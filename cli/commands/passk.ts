import { allCorrectAtK, passAtK, plugInPassAtK } from '../../eval/index.ts';
import {
  boolFlag,
  intFlag,
  intListFlag,
  printJson,
  UsageError,
  type Command,
  type CommandArgs,
} from '../args.ts';

/**
 * A count flag: an integer in [min, 2^53 - 1]. Above 2^53 - 1 neighbouring integers share one
 * float, so n = 1e21 and n = 1e21 + 1 would be the same number: such counts are refused.
 */
function countFlag(args: CommandArgs, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = args.flags[name];
  const value = Number(raw);
  if (typeof raw === 'string' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new UsageError(
      `--${name} ${raw} is above 2^53 - 1 = ${Number.MAX_SAFE_INTEGER}, where integers are no longer exact`,
    );
  }
  return intFlag(args, name, 0, { min, max });
}

export const command: Command = {
  name: 'passk',
  summary: 'Unbiased pass@k of one task from n samples with c successes (product form)',
  usage: 'tinyagent passk --n N --c C --k 1,10,100 [--json]',
  flags: {
    n: { type: 'string', description: 'samples per task (an integer up to 2^53 - 1)' },
    c: { type: 'string', description: 'successes among them' },
    k: { type: 'string', description: 'comma-separated k values, each <= n', default: '1' },
    json: { type: 'boolean', description: 'print JSON keyed by k' },
  },
  async run(args) {
    if (args.flags.n === undefined || args.flags.c === undefined)
      throw new UsageError('--n and --c are required');
    const n = countFlag(args, 'n', 1);
    const c = countFlag(args, 'c', 0, n);
    const ks = intListFlag(args, 'k', [1]);
    const tooLarge = ks.filter((k) => k > n);
    if (tooLarge.length > 0)
      throw new UsageError(`--k ${tooLarge.join(',')} exceeds --n ${n}: pass@k needs k <= n samples`);
    const values = Object.fromEntries(ks.map((k) => [k, passAtK(n, c, k)]));
    if (boolFlag(args, 'json')) printJson(values);
    else {
      const lines = ks.map(
        (k) =>
          `pass@${k} = ${(values[k] as number).toFixed(6)}   (plug-in ${plugInPassAtK(n, c, k).toFixed(6)}, all-${k}-correct ${allCorrectAtK(n, c, k).toFixed(6)})`,
      );
      process.stdout.write(`n=${n} c=${c}\n${lines.join('\n')}\n`);
    }
  },
};
