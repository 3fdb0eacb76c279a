import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { InputError } from '../lib/errors.ts';
import { readJsonFile } from '../lib/files.ts';
import { ROOT } from '../lib/paths.ts';

/**
 * The parts of `npm run test:repro -- --rebaseline` that do not rerun experiments: which files
 * are the committed numbers, the study reports and comparisons regenerated through the CLI (the
 * one path their users take), and the old -> new table of every number that moved.
 */

/** A number of a committed results file: its file (relative to the checkout), its path inside, its value. */
interface NumberAt {
  file: string;
  path: string;
  value: number | string | boolean | null;
}

/** One number that moved at a rebaseline (`old` undefined: new; `new` undefined: gone). */
export type Moved = Omit<NumberAt, 'value'> & Record<'old' | 'new', NumberAt['value'] | undefined>;

/** The committed files whose numbers a rebaseline regenerates: results/*.json, results/smoke/*.json and every study's results/study.json (studies/NAME and studies/GROUP/NAME). */
export function contractFiles(root: string = ROOT): string[] {
  const jsonIn = (dir: string) =>
    existsSync(dir)
      ? readdirSync(dir)
          .filter((name) => name.endsWith('.json'))
          .sort()
          .map((name) => join(dir, name))
      : [];
  const reports = studyFolders(join(root, 'studies'))
    .map((dir) => join(dir, 'results', 'study.json'))
    .filter((path) => existsSync(path));
  return [...jsonIn(join(root, 'results')), ...jsonIn(join(root, 'results', 'smoke')), ...reports];
}

/** The study folders (those with a plan.jsonl) under `dir`, two levels deep at most (studies/NAME, studies/GROUP/NAME), sorted. */
function studyFolders(dir: string, depth = 2): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(dir, entry.name))
    .sort()
    .flatMap((folder) =>
      existsSync(join(folder, 'plan.jsonl')) ? [folder] : depth > 1 ? studyFolders(folder, depth - 1) : [],
    );
}

/** The parts of a results file that are not its numbers: when and where it was made, and by what. */
export const NOT_NUMBERS = ['generatedAt', 'node', 'platform', 'packages', 'fingerprint', 'markdownSha256'];

/** Every leaf (number, string, boolean, null) of a file's numbers, by path; the meta fields (time, versions, fingerprint) left out. */
export function leavesOf(file: string, value: unknown, path = ''): NumberAt[] {
  if (value === null || typeof value !== 'object')
    return [{ file, path: path || '(root)', value: value as NumberAt['value'] }];
  return Object.entries(value).flatMap(([key, inner]) =>
    path === '' && NOT_NUMBERS.includes(key)
      ? []
      : leavesOf(file, inner, Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key),
  );
}

/** Every committed file's leaves, keyed by file. A file that is not JSON is an InputError naming it. */
export function snapshotNumbers(files: readonly string[], root: string = ROOT): Map<string, NumberAt[]> {
  const snapshot = new Map<string, NumberAt[]>();
  for (const path of files) {
    const file = relative(root, path);
    snapshot.set(file, leavesOf(file, readJsonFile(path, file, '; restore it from git first')));
  }
  return snapshot;
}

/** The leaves that differ between two snapshots, file by file in the first's order, then files only in the second. */
export function movedNumbers(before: Map<string, NumberAt[]>, after: Map<string, NumberAt[]>): Moved[] {
  const files = [...before.keys(), ...[...after.keys()].filter((file) => !before.has(file))];
  return files.flatMap((file) => {
    const old = new Map((before.get(file) ?? []).map((leaf) => [leaf.path, leaf.value]));
    const fresh = new Map((after.get(file) ?? []).map((leaf) => [leaf.path, leaf.value]));
    const paths = [...old.keys(), ...[...fresh.keys()].filter((path) => !old.has(path))];
    return paths.flatMap((path) => {
      const a = old.get(path);
      const b = fresh.get(path);
      return Object.is(a, b) ? [] : [{ file, path, old: a, new: b }];
    });
  });
}

/** The table of moved numbers, one Markdown row each (for the commit message and the closing note). */
export function movedTable(moved: readonly Moved[]): string {
  const show = (value: Moved['old']) => (value === undefined ? '(none)' : JSON.stringify(value));
  return [
    '| file | number | old | new |',
    '| --- | --- | --- | --- |',
    ...moved.map((row) => `| ${row.file} | ${row.path} | ${show(row.old)} | ${show(row.new)} |`),
  ].join('\n');
}

const run = promisify(execFile);

/** Runs the CLI (`bin/tinyagent.js` of the checkout `root`) with `args` in `cwd`; a failure is an InputError with its first stderr line. */
async function tinyagent(args: readonly string[], root: string, cwd: string = root): Promise<void> {
  try {
    await run(process.execPath, [join(root, 'bin', 'tinyagent.js'), ...args], {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? (error as Error).message;
    throw new InputError(`tinyagent ${args.join(' ')} failed: ${stderr.trim().split('\n')[0]}`);
  }
}

/**
 * The commands that make the committed study files: `tinyagent study report DIR` for each
 * studies/DIR with a report, and each comparison results file's recorded `tinyagent study ...
 * compare` (a results/*.json whose `command` is one), with the files each writes, relative to
 * the checkout. The studies' jobs are not rerun: their outputs are the committed measurements a
 * report is computed from (`study run` makes them).
 */
export function studyCommands(root: string = ROOT): Array<{ args: string[]; writes: string[] }> {
  const commands: Array<{ args: string[]; writes: string[] }> = [];
  for (const path of contractFiles(root).filter((file) => file.endsWith(join('results', 'study.json')))) {
    // A report merged from outputs of different code (--allow-mixed) is made again the same way.
    const mixed = (JSON.parse(readFileSync(path, 'utf8')) as { numbers?: { mixedCode?: unknown } }).numbers
      ?.mixedCode;
    const results = dirname(path);
    commands.push({
      args: [
        'study',
        'report',
        relative(root, dirname(results)),
        ...(typeof mixed === 'string' ? ['--allow-mixed'] : []),
      ],
      writes: filesUnder(results)
        .map((file) => relative(root, file))
        .sort(),
    });
  }
  for (const path of contractFiles(root).filter((file) => relative(root, file).startsWith('results'))) {
    const recorded = (JSON.parse(readFileSync(path, 'utf8')) as { command?: unknown }).command;
    if (typeof recorded !== 'string' || !recorded.startsWith('tinyagent study ')) continue;
    // Recorded by commandLine (cli/measurementRecord.ts): the flags, then the positionals, joined by spaces.
    const words = recorded.split(' ').slice(1);
    if (!words.includes('compare')) continue;
    if (words.some((word) => word === '' || (word.startsWith('-') && !['--out', '--json'].includes(word))))
      throw new InputError(
        `${relative(root, path)}: its command '${recorded}' is not one a rebaseline reruns`,
      );
    commands.push({ args: words, writes: [relative(root, path)] });
  }
  return commands;
}

/** Regenerates every committed study file (`studyCommands`) in the checkout; returns the commands run. */
export async function regenerateStudyFiles(root: string = ROOT): Promise<string[]> {
  const commands = studyCommands(root);
  for (const { args } of commands) await tinyagent(args, root);
  return commands.map(({ args }) => ['tinyagent', ...args].join(' '));
}

/**
 * The committed study files that this code no longer writes byte for byte, the machine's part
 * aside (`same`): every `studyCommands` command is run in a copy of studies/ (without the
 * weights, which a report does not read) beside an empty results/, so that each writes what it
 * would commit, under the same relative paths, and the checkout is left as it is.
 */
export async function studyFileDifferences(
  same: (committed: string, fresh: string) => boolean,
  root: string = ROOT,
): Promise<string[]> {
  const copy = mkdtempSync(join(tmpdir(), 'tinyagent-studies-'));
  try {
    cpSync(join(root, 'studies'), join(copy, 'studies'), {
      recursive: true,
      filter: (source) => basename(source) !== 'weights.bin',
    });
    mkdirSync(join(copy, 'results'));
    const problems: string[] = [];
    for (const { args, writes } of studyCommands(root)) {
      // A report's committed files are not in the copy, so each must be written anew.
      if (args[1] === 'report') rmSync(join(copy, args[2]!, 'results'), { recursive: true, force: true });
      await tinyagent(args, root, copy);
      for (const file of writes)
        if (!existsSync(join(copy, file)) || !same(join(root, file), join(copy, file)))
          problems.push(`${file} differs from what \`tinyagent ${args.join(' ')}\` writes`);
    }
    return problems;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** Every file under `dir`, at any depth. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}
