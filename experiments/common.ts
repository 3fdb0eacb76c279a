import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isOutputError, outputFailed } from '../lib/internalError.js';
import { debugging, errorKind, errorLine, EXIT, UsageError } from '../lib/errors.ts';
import { closestName, count } from '../lib/text.ts';
import { removeDeadTemporaries, writeFilesAtomic } from '../lib/atomic.ts';
import { readRegularFile } from '../lib/files.ts';
import type { Figure } from './figures.ts';
import { zScore } from './report/markdown.ts';
import { fingerprint, packageVersion } from '../agent/index.ts';

/** The repository root, from this file's location. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The seed study `npm run exp:seeds` reads by default (docs/STUDIES.md). */
export const DEFAULT_STUDY = 'studies/default-16';

/** True when the module at `url` is the script node was started with (`node --import tsx FILE`). */
export function isMain(url: string): boolean {
  return process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(url);
}

/**
 * Runs a script's `main` as a command: an error ends in one line, `NAME: message`, as the CLI
 * writes it (lib/errors.ts), with the CLI's exit codes, never in a stack trace: 2 for a bad flag
 * of the script or a TINYAGENT_BACKEND that names no backend, 1 for bad data (a run folder
 * holding another config, a corrupt checkpoint, a backend that cannot start) and 3 for a bug
 * (TINYAGENT_DEBUG=1 adds the stack, to a data error too). The handlers are installed before the wasm backend loads, whose own handlers
 * would rethrow.
 */
export async function runScript(name: string, main: () => Promise<unknown>): Promise<void> {
  // Standard output that cannot be written (/dev/full, a full disk) is exit 1 in one line, as
  // for the tinyagent commands; a reader that closes early (`| head`) is exit 0.
  const onOutputError = outputFailed(name);
  process.stdout.on('error', onOutputError);
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(scriptHelp(name, process.argv[1] ?? ''));
    return;
  }
  const fail = (error: unknown): never => {
    if (isOutputError(error)) onOutputError(error);
    const kind = errorKind(error);
    process.stderr.write(`${name}: ${errorLine(error, kind)}\n`);
    if (kind !== 'usage' && debugging() && error instanceof Error && error.stack !== undefined)
      process.stderr.write(`${error.stack}\n`);
    process.exit(EXIT[kind]);
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  try {
    await main();
  } catch (error) {
    fail(error);
  }
}

/**
 * A script's `--help`: its header comment (question, command and flags, runtime, output), which
 * is the script's documentation, and the exit codes. Every npm script goes through `runScript`.
 */
export function scriptHelp(name: string, file: string): string {
  const header = /^\/\*\*\n([\s\S]*?)\n\s*\*\//m.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
  const text = header
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n');
  return `${name} (${relative(ROOT, file)})\n\n${text}\n\nAny flag not named above is refused (exit 2). Exit codes: 0 done, 1 bad data or environment, 2 bad usage, 3 internal error (README, "Exit codes").\n`;
}

/** Versions of the packages a result depends on, as installed (`packageVersion`). */
function packageVersions(
  names: readonly string[] = [
    'seedrandom',
    '@stdlib/stats-base-dists-beta-quantile',
    '@stdlib/stats-base-dists-normal-quantile',
    '@stdlib/stats-base-dists-normal-cdf',
    'vega',
    'vega-lite',
    'tsx',
  ],
): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, packageVersion(name)]));
}

/** Monte Carlo standard error of a share estimated from `evals` independent 0/1 outcomes. */
export function shareSE(share: number, evals: number): number {
  return Math.sqrt((share * (1 - share)) / evals);
}

export interface BookComparison {
  /** (book - reference) in standard errors of a run of `evals` evaluations (and of the reference). */
  z: number;
  outside: boolean;
  /** The largest run (in evaluations) whose 2-SE band around the reference still reaches the book's figure. */
  maxEvals: number | null;
  text: string;
}

/**
 * Where a book's coverage figure lies against a reference computed here (exact, or a large
 * simulation with its own SE): within 2 standard errors of a run of `evals` evaluations, or
 * outside, and then how few evaluations a run would need for the figure to be within 2 SE.
 */
export function compareWithBook({
  book,
  reference,
  referenceSE = 0,
  evals,
}: {
  book: number;
  reference: number;
  referenceSE?: number;
  evals: number;
}): BookComparison {
  const runSE = shareSE(reference, evals);
  const z = (book - reference) / Math.sqrt(runSE ** 2 + referenceSE ** 2);
  const outside = Math.abs(z) > 2;
  const room = (book - reference) ** 2 / 4 - referenceSE ** 2;
  const maxEvals = room > 0 ? Math.floor((reference * (1 - reference)) / room) : null;
  const text = outside
    ? `outside: ${zScore(z)} SE of a ${evals}-eval run${maxEvals === null ? '' : `; within 2 SE only of runs of at most ${maxEvals} evals`}`
    : `within 2 SE (${zScore(z)})`;
  return { z, outside, maxEvals, text };
}

/** How many decimals a number as a book writes it has: 0.04 -> 2, 0.93 -> 2, 1 -> 0. */
const decimalsOf = (value: number) => (String(value).split('.')[1] ?? '').length;

/**
 * Whether an exact value lies in the range a book states, e.g. "0.93 to 0.97", read two ways:
 * at the book's own precision (the value rounded to the decimals its bounds are written with,
 * the headline: -0.0356 is -0.04, inside "0.04 to 0.08") and exactly (`outsideExact`).
 */
export function compareWithRange({
  value,
  low,
  high,
  digits = 3,
}: {
  value: number;
  low: number;
  high: number;
  digits?: number;
}): { outside: boolean; outsideExact: boolean; text: string } {
  const decimals = Math.max(decimalsOf(low), decimalsOf(high));
  const rounded = Number(value.toFixed(decimals));
  const outside = rounded < low || rounded > high;
  const outsideExact = value < low || value > high;
  return {
    outside,
    outsideExact,
    text: outside
      ? `outside: exact ${value.toFixed(digits)} is not in ${low} to ${high}, even at the book's ${decimals} decimals`
      : outsideExact
        ? `inside at the book's ${decimals} decimals (exact ${value.toFixed(digits)} is ${rounded.toFixed(decimals)}); just outside read exactly`
        : 'inside',
  };
}

export interface ExperimentOutput {
  /** e.g. '17.2' */
  section: string;
  title: string;
  seed: number;
  smoke: boolean;
  /** Everything that sets the numbers: sizes, grids, replicate counts. */
  config: Record<string, unknown>;
  numbers: unknown;
  /** The Markdown body (tables, figure links are added from `figures`). */
  markdown: string;
  /** File name (under figures/, NAME.svg) -> the figure: its SVG and its vega-lite spec. */
  figures?: Record<string, Figure>;
  /** Also print the Markdown body and the files written on stdout (a script run from the command line). */
  echo?: boolean;
  /** What wrote the results, when not `experiments/SECTION.ts` (e.g. a command line). */
  generatedBy?: string;
}

/**
 * Writes results/N.json (numbers, config, seeds, package and node versions, the fingerprint), results/N.md,
 * results/figures/NAME.svg and, beside each SVG, its vega-lite spec NAME.vl.json (what the report
 * page, experiments/report-page.ts, draws interactively; the JSON lists the SVGs, and a spec's
 * name is its SVG's with `.vl.json` for `.svg`), all in one atomic batch, so an interrupted run
 * leaves no half-written file. Returns the paths written.
 */
export function writeResults(outDir: string, output: ExperimentOutput): string[] {
  const { section, title, seed, smoke, config, numbers, markdown, figures = {}, echo = false } = output;
  const generatedBy = output.generatedBy ?? `experiments/${section}.ts`;
  // What a killed run of an experiment left behind (its temporaries) goes first.
  for (const dir of [outDir, resolve(outDir, 'figures')]) removeDeadTemporaries(dir);
  const figureWrites = Object.entries(figures).flatMap(([name, { svg, spec }]) => [
    { path: resolve(outDir, 'figures', name), content: svg },
    { path: resolve(outDir, 'figures', figureSpecName(name)), content: `${JSON.stringify(spec)}\n` },
  ]);
  const figureLinks = Object.keys(figures).map((name) => `![${name}](figures/${name})`);
  const mdPath = resolve(outDir, `${section}.md`);
  const mdText = [
    `# ${section} ${title}`,
    '',
    `Seed ${seed}${smoke ? " (smoke run: small sizes, not the book's)" : ''}; node ${process.version}; generated by \`${generatedBy}\`.`,
    '',
    markdown,
    '',
    ...figureLinks,
    '',
  ].join('\n');
  const meta = {
    section,
    title,
    seed,
    smoke,
    generatedAt: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    packages: packageVersions(),
    // What made these bits (docs/CONTRACT.md): test:repro compares it before the numbers.
    fingerprint: fingerprint(),
  };
  const jsonPath = resolve(outDir, `${section}.json`);
  const jsonText = `${JSON.stringify(
    {
      ...meta,
      config,
      numbers,
      figures: Object.keys(figures).map((name) => `figures/${name}`),
      // The Markdown this JSON was written with: a reader can tell a pair that a kill split.
      markdownSha256: sha256(mdText),
    },
    null,
    2,
  )}\n`;
  // One batch, the JSON renamed last: a full disk changes none of the files.
  writeFilesAtomic([
    ...figureWrites,
    { path: mdPath, content: mdText },
    { path: jsonPath, content: jsonText },
  ]);
  const written = [jsonPath, mdPath, ...figureWrites.map((write) => write.path)];
  if (echo) process.stdout.write(`${markdown}\n${wroteLine(written)}\n`);
  return written;
}

/**
 * What `writeResults` wrote, in one line, paths relative to the current folder: `wrote
 * results/17.2.json, results/17.2.md and 1 figure in results/figures (17.2-bias: .svg and .vl.json)`.
 */
export function wroteLine(paths: readonly string[]): string {
  const shown = (path: string) => {
    const inside = relative(process.cwd(), path);
    return inside.startsWith('..') || isAbsolute(inside) ? path : inside;
  };
  const svgs = paths.filter((path) => path.endsWith('.svg'));
  const others = paths.filter((path) => !path.endsWith('.svg') && !path.endsWith('.vl.json'));
  const figures =
    svgs.length === 0
      ? ''
      : ` and ${count(svgs.length, 'figure')} in ${shown(dirname(svgs[0]!))} (${svgs.map((path) => basename(path, '.svg')).join(', ')}: .svg and .vl.json)`;
  return `wrote ${others.map(shown).join(', ')}${figures}`;
}

/** The files `writeResults` wrote for `section` in `outDir`: its JSON, its Markdown and the figures the JSON lists. */
export function resultFiles(outDir: string, section: string): string[] {
  const jsonPath = resolve(outDir, `${section}.json`);
  const { figures = [] } = JSON.parse(readFileSync(jsonPath, 'utf8')) as { figures?: string[] };
  return [
    jsonPath,
    resolve(outDir, `${section}.md`),
    ...figures.flatMap((figure) => [resolve(outDir, figure), resolve(outDir, figureSpecName(figure))]),
  ];
}

/**
 * The options of the pure-statistics experiments (17.2, 17.3): `--seed S --smoke --out DIR`, no
 * run. A smoke run from the command line writes `results/default-smoke/`, as the other
 * experiments' smoke runs do, never the committed results.
 */
export function parseStatisticsOptions(argv: string[]): { seed?: number; smoke: boolean; outDir: string } {
  const values = parseExperimentFlags(argv, { run: false });
  const smoke = values.smoke === true;
  const outDir =
    values.out !== undefined
      ? resolve(values.out)
      : resolve(ROOT, 'results', ...(smoke ? ['default-smoke'] : []));
  // Without --seed the experiment keeps its own default, the seed its committed results record.
  return { ...(values.seed !== undefined ? { seed: values.seed } : {}), smoke, outDir };
}

/**
 * The one parser of every script's flags, as strict as the `tinyagent` commands': an unknown
 * flag (with the nearest known one as a hint), a flag given twice, a missing or empty value, or
 * an argument are UsageErrors naming it; `names` lists the flags for the message.
 */
export function parseScriptFlags<const O extends Record<string, { type: 'string' | 'boolean' }>>(
  argv: string[],
  options: O,
  names: string,
): { [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: false, tokens: true });
  } catch (error) {
    const message = (error as Error).message.split('\n')[0] as string;
    const unknown = /^Unknown option '([^']*)'/.exec(message);
    if (unknown === null) throw new UsageError(`${message} (options: ${names})`);
    const near = closestName((unknown[1] as string).replace(/^-+/, ''), Object.keys(options));
    throw new UsageError(
      `unknown flag '${unknown[1]}'${near === undefined ? '' : `; did you mean --${near}?`} (options: ${names})`,
    );
  }
  const given = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    if (given.has(token.name)) throw new UsageError(`--${token.name} is given twice; give it once`);
    given.add(token.name);
    if (typeof token.value === 'string' && token.value.trim() === '')
      throw new UsageError(`--${token.name} is empty; give it a value`);
  }
  return parsed.values as { [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean };
}

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

/** The file name of a figure's vega-lite spec, beside its SVG: `17.3-passk.svg` -> `17.3-passk.vl.json`. */
export function figureSpecName(svgName: string): string {
  return svgName.replace(/\.svg$/, '.vl.json');
}

/** The sha256 of a text, hex. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Whether a results JSON and its Markdown were written together: the Markdown's sha256 is the
 * one the JSON records. A results file written before this record existed has nothing to check
 * (undefined).
 */
export function resultPairMatches(jsonPath: string, mdPath: string): boolean | undefined {
  const recorded = (JSON.parse(readRegularFile(jsonPath)) as { markdownSha256?: unknown }).markdownSha256;
  if (typeof recorded !== 'string') return undefined;
  return existsSync(mdPath) && sha256(readRegularFile(mdPath)) === recorded;
}
