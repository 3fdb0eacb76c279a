import { join, resolve } from 'node:path';
import { UsageError } from '../lib/errors.ts';
import { ROOT } from '../lib/paths.ts';
import { parseScriptFlags } from '../lib/script.ts';

/**
 * The options of the pure-statistics experiments (17.2, 17.3): `--seed S --smoke --out DIR`, no
 * run. A smoke run from the command line writes `results/default-smoke/`, as the other
 * experiments' smoke runs do, never the committed results.
 */
export function parseStatisticsOptions(argv = process.argv.slice(2)) {
  const values = parseExperimentFlags(argv, { run: false });
  const smoke = values.smoke === true;
  const outDir =
    values.out !== undefined
      ? resolve(values.out)
      : resolve(ROOT, 'results', ...(smoke ? ['default-smoke'] : []));
  // Without --seed the experiment keeps its own default, the seed its committed results record.
  return { ...(values.seed !== undefined ? { seed: values.seed } : {}), smoke, outDir };
}

/** What `parseStatisticsOptions` gives: the options of a pure-statistics experiment's `main`. */
export type StatisticsOptions = ReturnType<typeof parseStatisticsOptions>;

/** The experiment scripts' flags, checked: unknown ones, a malformed seed and an empty --out are UsageErrors. */
export function parseExperimentFlags(
  argv: string[],
  { run }: { run: boolean },
): { run?: string; seed?: number; smoke?: boolean; out?: string } {
  const { run: runFlag, ...statistics } = {
    run: { type: 'string' },
    seed: { type: 'string' },
    smoke: { type: 'boolean' },
    out: { type: 'string' },
  } as const;
  const values: { run?: string; seed?: string; smoke?: boolean; out?: string } = parseScriptFlags(
    argv,
    run ? { run: runFlag, ...statistics } : statistics,
    `${run ? '--run DIR, ' : ''}--seed S, --smoke, --out DIR`,
  );
  if (values.seed !== undefined && !/^\d{1,9}$/.test(values.seed))
    throw new UsageError(`--seed must be a decimal integer in [0, 999999999], got '${values.seed}'`);
  return {
    ...(typeof values.run === 'string' ? { run: values.run } : {}),
    ...(values.seed !== undefined ? { seed: Number(values.seed) } : {}),
    ...(values.smoke === true ? { smoke: true } : {}),
    ...(values.out !== undefined ? { out: values.out } : {}),
  };
}

/** The sections a batch (exp:all, test:repro, the rebaseline) has run so far, and the folder they wrote. */
export interface BatchResults {
  dir: string;
  sections: readonly string[];
}

/**
 * Where a section reads another section's results (ex-7 17.4's correlation; 17.1, ex-3, seeds,
 * recipes and recipe-claims coverage's measured coverage): in a batch that has already run that
 * section (exp:all, test:repro and the rebaseline run coverage first and 17.4 before ex-7), the
 * file it wrote, so that a batch never quotes the committed file it is replacing; else the
 * committed `results/SECTION.json`, never a file some earlier run left beside the output.
 */
export function resultsToQuote(section: string, batch: BatchResults | undefined): string {
  const fresh = batch !== undefined && batch.sections.includes(section);
  return join(fresh ? batch.dir : join(ROOT, 'results'), `${section}.json`);
}
