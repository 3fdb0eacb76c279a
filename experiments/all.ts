/**
 * Every chapter-17 experiment in the chapter's order, then the chapter's seven exercises,
 * training what is missing first (`npm run ex:all`, experiments/ex-all.ts, runs the exercises alone).
 *
 * Command: npm run exp:all [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: the chapter's sections about 2 minutes with trained checkpoints on two cores; 14 minutes
 *   from a fresh clone (measured: 840 s, of which about 11 minutes train the default run, seeds 1
 *   to 3 and 17.6's type-split run). The exercises add about 14 to 15 minutes with their runs
 *   trained, 23 to 26 with ex-4's four type-split trainings (the sums of their runs alone,
 *   docs/EXERCISES.md).
 * Output: everything the single scripts write, and each one's runtime on the terminal.
 */
import { isMain, resultFiles, runScript, wroteLine } from './common.ts';
import { EXPERIMENTS } from './repro.ts';
import { parseRunOptions, runOptions, type RunOptions } from './runs.ts';

/** The pure-statistics experiments keep their own seed, 0, the one `npm run exp:17.2`, `exp:17.3`, `ex:1` and `ex:7` use. */
const OWN_SEED = new Set(['17.2', '17.3', 'ex-1', 'ex-7']);

export async function main(
  options: Partial<RunOptions> = {},
  { only }: { only?: (section: string) => boolean } = {},
): Promise<Array<{ section: string; seconds: number }>> {
  const resolved = runOptions(options);
  const times = [];
  for (const [section, run] of Object.entries(EXPERIMENTS)) {
    if (only !== undefined && !only(section)) continue;
    const started = performance.now();
    process.stderr.write(`exp:${section} ...\n`);
    await run(OWN_SEED.has(section) ? { ...resolved, seed: 0 } : resolved);
    const seconds = (performance.now() - started) / 1000;
    times.push({ section, seconds });
    process.stderr.write(
      `exp:${section} done in ${seconds.toFixed(1)} s; ${wroteLine(resultFiles(resolved.outDir, section))}\n`,
    );
  }
  process.stderr.write(
    `all experiments: ${times.reduce((sum, time) => sum + time.seconds, 0).toFixed(0)} s\n`,
  );
  return times;
}

if (isMain(import.meta.url)) await runScript('exp:all', () => main(parseRunOptions(process.argv.slice(2))));
