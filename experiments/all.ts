/**
 * The coverage of the reported intervals (which five sections quote), every chapter-17 experiment
 * in the chapter's order, then the chapter's seven exercises and the scripts on the committed
 * studies (seeds, recipes, recipe-claims, design), training what is missing first (`npm run
 * ex:all`, experiments/ex-all.ts, runs the exercises alone). A section that quotes another reads
 * the one this batch wrote (`resultsToQuote`).
 *
 * Command: npm run exp:all [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: the sum of the single scripts' (each one's --help says what takes its time). From a
 *   fresh clone most of it is training: the default run, seeds 1 to 3 and 17.6's type-split run,
 *   and for the exercises ex-4's four other type-split runs (each what `npm run train` takes or
 *   less, results/train.json); with trained runs the exercises take longer than the chapter's
 *   sections (docs/EXERCISES.md, "Runtimes").
 * Output: everything the single scripts write, and each one's runtime on the terminal.
 */
import { isMain, runScript } from '../lib/script.ts';
import { resultFiles, wroteLine } from '../publish/results.ts';
import { EXPERIMENTS, experimentBatch } from './repro.ts';
import { parseRunOptions, runOptions, type ExperimentOptions } from './runs.ts';

/**
 * Runs every experiment (or those `only` keeps) as its own script would: without `--seed` each
 * keeps its own default seed, the one its committed results were made with (1 for the experiments
 * on trained checkpoints, 0 for the pure-statistics ones), so `exp:all` rewrites every committed
 * file as the single scripts do.
 */
export async function main(
  options: Partial<ExperimentOptions> = {},
  { only }: { only?: (section: string) => boolean } = {},
): Promise<Array<{ section: string; seconds: number }>> {
  const { seed: _default, ...shared } = runOptions(options);
  const given = options.seed !== undefined ? { seed: options.seed } : {};
  const times = [];
  const runSection = experimentBatch(shared.outDir, { quote: !shared.smoke });
  for (const section of Object.keys(EXPERIMENTS)) {
    if (only !== undefined && !only(section)) continue;
    const started = performance.now();
    process.stderr.write(`exp:${section} ...\n`);
    await runSection(section, { ...shared, ...given });
    const seconds = (performance.now() - started) / 1000;
    times.push({ section, seconds });
    process.stderr.write(
      `exp:${section} done in ${seconds.toFixed(1)} s; ${wroteLine(resultFiles(shared.outDir, section))}\n`,
    );
  }
  process.stderr.write(
    `all experiments: ${times.reduce((sum, time) => sum + time.seconds, 0).toFixed(0)} s\n`,
  );
  return times;
}

if (isMain(import.meta.url)) await runScript('exp:all', () => main(parseRunOptions(process.argv.slice(2))));
