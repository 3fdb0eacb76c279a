/**
 * The chapter's seven exercises in order (experiments/ex-1.ts ... ex-7.ts), training what is
 * missing first: `npm run exp:all` without the chapter's sections.
 *
 * Command: npm run ex:all [-- --run DIR --seed S --smoke --out DIR]
 * Runtime: the sum of the single exercises' (each one's --help); docs/EXERCISES.md, "Runtimes",
 *   says which are long and what each trains first.
 * Output: everything the single scripts write, and each one's runtime on the terminal.
 */
import { main as all } from './all.ts';
import { isMain, runScript } from '../lib/script.ts';
import { parseRunOptions } from './runs.ts';

if (isMain(import.meta.url))
  await runScript('ex:all', () =>
    all(parseRunOptions(process.argv.slice(2)), { only: (section) => section.startsWith('ex-') }),
  );
