import { requiredUnits, type PowerDesign } from '../../eval/index.ts';
import { isFolder } from '../../lib/files.ts';
import {
  boolFlag,
  choiceFlag,
  InputError,
  numberFlag,
  printJson,
  readJsonFile,
  stringFlag,
  switchFlag,
  UsageError,
  valueFlag,
  type Command,
} from '../args.ts';

/** An SD taken from data (`--from`): the value, the design it is the unit SD of, and what it is. */
interface MeasuredSpread {
  sd: number;
  design: PowerDesign;
  source: string;
}

/**
 * The SD a design takes from `path`: a study folder (one seed's step-80 pass@1), a `tinyagent
 * study compare --out` file (the two recipes' pooled seed SD) or a `tinyagent compare --json`
 * output (the SD of the per-task differences). Anything else is an InputError naming the path.
 */
async function spreadFrom(path: string): Promise<MeasuredSpread> {
  // The study modules only when asked: `tinyagent power --sd` stays quick.
  const { comparisonSeedSpread, studySeedSpread } = await import('../../study/compare.ts');
  if (isFolder(path)) {
    const { readPlan } = await import('../../study/plan.ts');
    return { ...studySeedSpread(readPlan(path), path), design: 'seeds' };
  }
  const file = readJsonFile(path, '--from');
  const seeds = comparisonSeedSpread(file, path);
  if (seeds !== undefined) return { ...seeds, design: 'seeds' };
  const needed = (file as { tasksNeeded?: { sd?: unknown; why?: unknown } } | null)?.tasksNeeded;
  const commonTasks = (file as { commonTasks?: unknown }).commonTasks;
  if (typeof needed === 'object' && needed !== null && 'sd' in needed) {
    if (typeof needed.sd !== 'number' || !(needed.sd > 0) || !Number.isFinite(needed.sd))
      throw new InputError(
        `${path}: the per-task differences give no SD to design with (${typeof needed.why === 'string' ? needed.why : 'tasksNeeded.sd is not a number > 0'})`,
      );
    return {
      sd: needed.sd,
      design: 'paired',
      source: `the SD of the per-task differences B - A over ${String(commonTasks)} tasks in ${path}`,
    };
  }
  throw new InputError(
    `${path}: not a study folder, a tinyagent study compare --out file or a tinyagent compare --json output; --from takes the SD from one of those`,
  );
}

export const command: Command = {
  name: 'power',
  summary: 'Tasks (or seeds) needed to detect a difference: N >= ((z_{1-a/2} + z_{1-b}) sigma / delta)^2',
  usage:
    'tinyagent power (--sd SIGMA | --from STUDY|FILE) --delta D [--alpha 0.05] [--power 0.8] [--design paired|unpaired|seeds] [--json]',
  flags: {
    sd: valueFlag('per-unit SD (of paired differences for paired; of one group otherwise), above 0'),
    from: valueFlag(
      "take the SD from data instead of --sd: a study folder (one seed's step-80 pass@1; design seeds), a `tinyagent study compare --out` file (the two recipes' pooled seed SD; design seeds) or a `tinyagent compare --json` output (the SD of the per-task differences; design paired)",
    ),
    delta: valueFlag('difference to detect, above 0, e.g. 0.05'),
    alpha: valueFlag('two-sided significance level, in (0, 1)', { default: '0.05' }),
    power: valueFlag(
      'power 1 - beta, in [0.5, 1) (below 0.5 the normal approximation drops a tail that matters)',
      { default: '0.8' },
    ),
    design: valueFlag('paired | unpaired | seeds (with --from: the one its SD is of)', { default: 'paired' }),
    json: switchFlag('print JSON'),
  },
  moreHelp: () =>
    'Exit codes: 2 for a flag out of its range; 1 for data --from cannot take an SD from, or a delta so small for the SD that N exceeds 2^53 - 1 (README, "Exit codes").',
  async run(args) {
    const from = stringFlag(args, 'from');
    if (from !== undefined && args.flags.sd !== undefined)
      throw new UsageError('give --sd or --from, not both: --from takes the SD from the data');
    if ((args.flags.sd === undefined && from === undefined) || args.flags.delta === undefined)
      throw new UsageError('--delta and one of --sd or --from are required');
    const delta = numberFlag(args, 'delta', 0, { min: Number.MIN_VALUE });
    const alpha = numberFlag(args, 'alpha', 0.05, { min: 1e-9, max: 1 - 1e-9 });
    // Below 0.5 the formula drops a tail that matters (eval/power.ts): refused as a flag out of its range.
    const power = numberFlag(args, 'power', 0.8, { min: 0.5, max: 1 - 1e-9 });
    // An SD of 0 is no design: `--from` refuses data whose SD is 0 too.
    const sd = from === undefined ? numberFlag(args, 'sd', 0, { min: Number.MIN_VALUE }) : 0;
    const given = choiceFlag(args, 'design', ['paired', 'unpaired', 'seeds'] as const, undefined);
    const measured = from === undefined ? undefined : await spreadFrom(from);
    if (measured !== undefined && given !== undefined && given !== measured.design)
      throw new UsageError(
        `--design ${given}: the SD of ${from} is of design ${measured.design} (${measured.source}); leave --design out`,
      );
    const { sd: sigma, design } = measured ?? { sd, design: given ?? 'paired' };
    const result = requiredUnits({ sigma, delta, alpha, power, design });
    if (boolFlag(args, 'json'))
      return printJson({
        sigma,
        delta,
        alpha,
        power,
        ...(measured === undefined ? {} : { from: { path: from, source: measured.source } }),
        ...result,
      });
    const unit = design === 'seeds' ? 'seeds' : 'tasks';
    process.stdout.write(
      `${result.units} ${result.units === 1 ? unit.slice(0, -1) : unit}${result.perGroup ? ' per group' : ' (paired)'} to detect ${delta} at two-sided alpha ${alpha} with power ${power} (sigma ${measured === undefined ? sigma : sigma.toFixed(4)}${result.perGroup ? ', sqrt(2) sigma for the difference' : ''}; exact N ${result.exact.toFixed(2)})\n`,
    );
    if (measured !== undefined) process.stdout.write(`sigma: ${measured.source}\n`);
    if (design === 'seeds' && result.units < 3)
      process.stdout.write('note: estimating the seed SD itself takes at least 3 seeds per group\n');
  },
};
