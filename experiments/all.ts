/**
 * Every chapter-17 experiment in the chapter's order, training what is missing first.
 *
 * Command: npm run exp:all [-- --run DIR --seed S --smoke]
 * Runtime: about 2 minutes with trained checkpoints on two cores; 14 minutes from a fresh clone
 *   (measured: 840 s, of which about 11 minutes train the default run, seeds 1 to 3 and 17.6's
 *   type-split run).
 * Output: everything the single scripts write, and each one's runtime on the terminal.
 */
import { main as main171 } from './17.1.ts';
import { main as main172 } from './17.2.ts';
import { main as main173 } from './17.3.ts';
import { main as main174 } from './17.4.ts';
import { main as main175 } from './17.5.ts';
import { main as main176 } from './17.6.ts';
import { main as main177 } from './17.7.ts';
import { main as main178 } from './17.8.ts';
import { main as main179 } from './17.9.ts';
import { isMain, runScript } from './common.ts';
import { parseRunOptions, runOptions, type RunOptions } from './runs.ts';

const EXPERIMENTS: Array<[string, (options: RunOptions) => Promise<unknown>]> = [
  ['17.1', main171],
  // The pure-statistics experiments keep their own seed (0) unless one is given.
  ['17.2', (options) => main172({ smoke: options.smoke, outDir: options.outDir })],
  ['17.3', (options) => main173({ smoke: options.smoke, outDir: options.outDir })],
  ['17.4', main174],
  ['17.5', main175],
  ['17.6', main176],
  ['17.7', main177],
  ['17.8', main178],
  ['17.9', main179],
];

export async function main(options: Partial<RunOptions> = {}): Promise<Array<{ section: string; seconds: number }>> {
  const resolved = runOptions(options);
  const times = [];
  for (const [section, run] of EXPERIMENTS) {
    const started = performance.now();
    process.stderr.write(`exp:${section} ...\n`);
    await run(resolved);
    const seconds = (performance.now() - started) / 1000;
    times.push({ section, seconds });
    process.stderr.write(`exp:${section} done in ${seconds.toFixed(1)} s\n`);
  }
  process.stderr.write(`all experiments: ${times.reduce((sum, time) => sum + time.seconds, 0).toFixed(0)} s\n`);
  return times;
}

if (isMain(import.meta.url)) await runScript('exp:all', () => main(parseRunOptions(process.argv.slice(2))));
