import { allCorrectAtK, passAtK, plugInPassAtK } from '../../eval/index.ts';
import { count } from '../../lib/text.ts';
import { boolFlag, countFlag, intListFlag, printJson, UsageError, type Command } from '../args.ts';

export const command: Command = {
  name: 'passk',
  summary: 'Unbiased pass@k of one task from n samples with c successes (product form)',
  usage: 'tinyagent passk --samples N --successes C --k 1,10,100 [--json]',
  flags: {
    samples: { type: 'string', description: 'samples n of the task (an integer up to 2^53 - 1)' },
    successes: { type: 'string', description: 'successes c among them' },
    k: { type: 'string', description: 'comma-separated k values, each <= the samples', default: '1' },
    json: { type: 'boolean', description: 'print JSON keyed by k' },
    n: { type: 'string', description: 'deprecated name of --samples', aliasOf: 'samples' },
    c: { type: 'string', description: 'deprecated name of --successes', aliasOf: 'successes' },
  },
  async run(args) {
    if (args.flags.samples === undefined || args.flags.successes === undefined)
      throw new UsageError('--samples and --successes are required');
    const n = countFlag(args, 'samples', 1);
    const c = countFlag(args, 'successes', 0, n);
    const ks = intListFlag(args, 'k', [1]);
    const tooLarge = ks.filter((k) => k > n);
    // pass@k, and the plug-in beside it, need k samples: beyond them neither is a number.
    if (tooLarge.length > 0)
      throw new UsageError(`--k ${tooLarge.join(',')} exceeds --samples ${n}: pass@k needs k <= n samples`);
    const values = Object.fromEntries(ks.map((k) => [k, passAtK(n, c, k)]));
    if (boolFlag(args, 'json')) printJson(values);
    else {
      const lines = ks.map(
        (k) =>
          `pass@${k} = ${(values[k] as number).toFixed(6)}   (plug-in ${plugInPassAtK(n, c, k).toFixed(6)}, all-${k}-correct ${allCorrectAtK(n, c, k).toFixed(6)})`,
      );
      process.stdout.write(
        `${count(c, 'success', 'successes')} in ${count(n, 'sample')}\n${lines.join('\n')}\n`,
      );
    }
  },
};
