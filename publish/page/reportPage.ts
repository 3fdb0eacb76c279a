/**
 * One page of every result: results/report/index.html.
 *
 * Question: what did every experiment measure, beside the book, and from what (seed, backend,
 *   harness, checkpoints)? The page opens with the chapter's three questions answered from the
 *   results (report/answers.ts), then holds each section's tables and interactive figures (the
 *   figures/NAME.vl.json that writeResults writes beside each SVG, drawn by vega in the page),
 *   the exercises, the seed study and every study's report, with the command to run for what is
 *   missing, and after them docs/REPRODUCTION.md's book-beside-ours rows linked to their sections.
 *   A broken figure is a note in its place; every other section is still laid out.
 * Command: npm run report [-- --results DIR --out FILE --aggregate DIR...]
 * Output: results/report/index.html, one file that opens from disk with no server and no network.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { writeFileAtomic } from '../../lib/atomic.ts';
import { InputError, UsageError } from '../../lib/errors.ts';
import { readRegularFile } from '../../lib/files.ts';
import { jsonShape, MAX_JSON_DEPTH } from '../../eval/io/index.ts';
import { CLAIMS } from '../../analysis/index.ts';
import { DEFAULT_STUDY, ROOT } from '../../lib/paths.ts';
import { figureSpecName, resultPairMatches } from '../results.ts';
import { isMain, runScript } from '../../lib/script.ts';
import { chapterAnswers, type AnswerSources } from './answers.ts';
import { CLAIM_SHORT, CLAIM_TEXT } from '../sections/seeds.ts';
import {
  escapeHtml,
  factRows,
  jsonScript,
  markdownBlocks,
  markdownToHtml,
  pageHtml,
  tableCells,
  tableHtml,
} from '../html.ts';

interface ReportPageOptions {
  /** The results folder (results/): 17.N.json and .md, ex-N, seeds, figures/. */
  resultsDir: string;
  outFile: string;
  /** The book-beside-ours tables (docs/REPRODUCTION.md). */
  reproductionFile: string;
  /** The seed studies' folders (studies/), each with its results/ once `study report` ran. */
  studiesDir: string;
  /** Folders written by `tinyagent aggregate --out DIR`, each shown as a section of its own. */
  aggregateDirs?: string[];
}

/** A results JSON as writeResults writes it; a field a file lacks shows as "not recorded". */
type ResultFile = Partial<
  Record<
    'title' | 'seed' | 'smoke' | 'generatedAt' | 'node' | 'platform' | 'config' | 'numbers' | 'figures',
    unknown
  >
> & { packages?: Record<string, unknown> };

/** A path as the page and its messages name it: from the checkout when inside it, else as given. */
const shownPath = (path: string) => (isInside(ROOT, path) ? relative(ROOT, path) : path);

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** Every value under `key` anywhere in `value` (the numbers record a backend, harness hashes and checkpoints per evaluation). */
function valuesOf(value: unknown, key: string, found: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const item of value) valuesOf(item, key, found);
  else if (typeof value === 'object' && value !== null)
    for (const [name, item] of Object.entries(value)) {
      if (name === key) found.push(item);
      else valuesOf(item, key, found);
    }
  return found;
}

/** Seed, backend, harness hashes and checkpoint checksums as the results file records them, and what it does not record. */
export function provenance(result: ResultFile, fileName: string, pair: boolean | undefined): string {
  const where = [result.config, result.numbers];
  const distinct = (key: string) => [...new Set(where.flatMap((part) => valuesOf(part, key)).map(text))];
  const missing = `not recorded in ${fileName}`;
  const recorded = (value: unknown) => (value === undefined ? missing : text(value));
  const listed = (values: string[]) => (values.length === 0 ? missing : values.join(', '));
  const checkpoints = new Map<string, string>();
  for (const checkpoint of where.flatMap((part) => valuesOf(part, 'checkpoint'))) {
    const { path, step, checksum } = checkpoint as { path?: unknown; step?: unknown; checksum?: unknown };
    if (checksum !== undefined) checkpoints.set(text(checksum), `${text(path)} (step ${text(step)})`);
  }
  const facts: Array<[string, string]> = [
    ['seed', recorded(result.seed)],
    ['smoke run', recorded(result.smoke)],
    ['backend', listed(distinct('backend'))],
    ['harness hashes', listed(distinct('harnessHash'))],
    ['checkpoints', checkpoints.size === 0 ? missing : `${checkpoints.size} (listed below)`],
    ['generated', recorded(result.generatedAt)],
    ['node, platform', `${text(result.node ?? missing)}, ${text(result.platform ?? missing)}`],
    [
      'packages',
      result.packages === undefined
        ? missing
        : Object.entries(result.packages)
            .map(([name, version]) => `${name} ${text(version)}`)
            .join(', '),
    ],
    [
      'Markdown written with this JSON',
      pair === undefined ? `${missing} (no markdownSha256)` : pair ? 'yes' : 'NO: rerun the section',
    ],
  ];
  const checksumRows = [...checkpoints].map(([checksum, name]) => [name, checksum] as const);
  return `<details class="provenance"><summary>Provenance</summary>${factRows(facts)}${
    checksumRows.length === 0 ? '' : `<h4>Checkpoint checksums (sha256)</h4>${factRows(checksumRows)}`
  }</details>`;
}

/** The figures of the page so far: the specs drawn, and a line for each figure not drawn or drawn in part. */
type Figures = { specs: unknown[]; problems: string[] };

/** Whether `target` is inside `folder` (not the folder itself, not beside it). */
function isInside(folder: string, target: string): boolean {
  const path = relative(folder, target);
  return path !== '' && path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const CONCAT = ['hconcat', 'vconcat', 'concat'] as const;

/** The rows of a view's own inline data, else those it inherits; undefined when they are not inline values (a URL, a generator). */
function inlineRows(view: Record<string, unknown>, inherited: number | undefined): number | undefined {
  if (!('data' in view)) return inherited;
  return isObject(view.data) && Array.isArray(view.data.values) ? view.data.values.length : undefined;
}

/** Whether a vega-lite view draws nothing: every mark in it reads inline data that has no rows. */
function drawsNothing(view: unknown, inherited?: number): boolean {
  if (!isObject(view)) return false;
  const rows = inlineRows(view, inherited);
  const children =
    [view.layer, ...CONCAT.map((key) => view[key])].find(Array.isArray) ??
    (isObject(view.spec) ? [view.spec] : undefined);
  if (children !== undefined)
    return children.length > 0 && children.every((child: unknown) => drawsNothing(child, rows));
  return rows === 0;
}

/**
 * A spec without its side-by-side panels that draw nothing, and their titles; undefined when
 * nothing is left to draw. vega sizes an empty legend (an empty panel's) as Number.MAX_VALUE
 * pixels: drawn, such a panel makes its figure 33,554,430 px tall.
 */
function withoutEmptyPanels(spec: unknown): { spec: unknown; dropped: string[] } | undefined {
  if (drawsNothing(spec)) return undefined;
  const key = isObject(spec) ? CONCAT.find((name) => Array.isArray(spec[name])) : undefined;
  if (!isObject(spec) || key === undefined) return { spec, dropped: [] };
  const rows = inlineRows(spec, undefined);
  const panels = spec[key] as unknown[];
  const empty = panels.map((panel) => drawsNothing(panel, rows));
  const dropped = panels.flatMap((panel, i) => {
    if (!empty[i]) return [];
    const title = isObject(panel) ? panel.title : undefined;
    const text = isObject(title) ? title.text : title;
    return [typeof text === 'string' ? text : `panel ${i + 1}`];
  });
  if (dropped.length === 0) return { spec, dropped };
  return { spec: { ...spec, [key]: panels.filter((_, i) => !empty[i]) }, dropped };
}

/**
 * A figure of a results file: its spec inlined for the page's script, or a note when the spec is
 * missing, is not JSON or holds no data (a panel with no data is left out, with a note). The path
 * comes from the results JSON, which may have been edited: a spec outside the results folder
 * (`..`, an absolute path, a symbolic link out) or one that is not a regular file (a FIFO would
 * hang the read) is refused, naming the JSON and the path, never what it holds.
 */
function figureHtml(jsonPath: string, path: string, { specs, problems }: Figures): string {
  const resultsDir = dirname(jsonPath);
  const specPath = resolve(resultsDir, dirname(path), figureSpecName(basename(path)));
  const name = escapeHtml(path);
  const refuse = (why: string) =>
    new InputError(
      `${jsonPath}: figure ${JSON.stringify(path)} ${why}; a figure is a file under ${resultsDir}`,
    );
  if (isAbsolute(path) || !isInside(resultsDir, specPath)) throw refuse('is outside the results folder');
  const shown = shownPath(specPath);
  const note = (problem: string, html: string) => {
    problems.push(`${shown}: ${problem}`);
    return `<p class="missing">Figure ${name}: ${html}</p>`;
  };
  if (!existsSync(specPath))
    return note(
      'no such spec (written before figures had specs): rerun its section',
      `no spec ${escapeHtml(relative(resultsDir, specPath))} beside it (written before figures had specs): rerun the section.`,
    );
  const real = realpathSync(specPath);
  if (!isInside(realpathSync(resultsDir), real))
    throw refuse('has its spec behind a symbolic link out of the results folder');
  if (!statSync(real).isFile()) throw refuse(`has a spec ${specPath} that is not a regular file`);
  let drawable;
  try {
    drawable = withoutEmptyPanels(readJson(specPath));
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    problems.push(`${error.message}: its figure is not drawn`);
    return `<p class="missing">Figure ${name} is not drawn: ${escapeHtml(error.message)}.</p>`;
  }
  if (drawable === undefined)
    return note('not drawn: no data in its spec', 'not drawn: its spec holds no data.');
  const id = `spec-${specs.length}`;
  specs.push(drawable.spec);
  const left = drawable.dropped.map((title) =>
    note(
      `panel ${JSON.stringify(title)} holds no data; drawn without it`,
      `the panel "${escapeHtml(title)}" holds no data and is left out.`,
    ),
  );
  return `<figure>${jsonScript(id, drawable.spec)}<div class="view" data-spec="${id}"></div><figcaption>${name}</figcaption>${left.join('')}</figure>`;
}

/** The most bytes of one results file (JSON, Markdown or figure spec) the page reads: far above any the experiments write. */
const MAX_RESULTS_FILE_BYTES = 64 * 2 ** 20;

/**
 * A results file's text, opened as every file we did not write is (lib/files.ts): a symbolic
 * link, a FIFO, a device, a folder or a file over MAX_RESULTS_FILE_BYTES is refused in one line
 * naming it, before anything is read.
 */
const readResultsText = (path: string) =>
  readRegularFile(path, undefined, { maxBytes: MAX_RESULTS_FILE_BYTES });

/** A JSON file, or the one line naming it and where it breaks: never its content, which JSON.parse's message quotes. */
function readJson(path: string): unknown {
  const text = readResultsText(path);
  // Nesting past the readers' bound would overflow the stack of whatever walks the value.
  if (jsonShape(text).depth > MAX_JSON_DEPTH)
    throw new InputError(
      `${path}: arrays and objects nested more than ${MAX_JSON_DEPTH.toLocaleString('en-US')} deep, deeper than a results file nests`,
    );
  try {
    return JSON.parse(text);
  } catch (error) {
    const position = /at position (\d+)/.exec((error as Error).message);
    const lines = position === null ? undefined : text.slice(0, Number(position[1])).split('\n');
    const where = lines === undefined ? '' : ` at line ${lines.length}, column ${lines.at(-1)!.length + 1}`;
    throw new InputError(`${path} is not a JSON file (not valid JSON${where})`);
  }
}

/** The seed study's verdict table names its columns by claim: the page shows each claim's words, its full text on hover. */
const HEADER_WORDS = new Map(
  CLAIMS.map((claim) => [claim, { label: CLAIM_SHORT[claim], title: CLAIM_TEXT[claim] }]),
);

/** One section and its title: its results (provenance, tables, figures) or "not run yet, run: COMMAND". */
function sectionHtml(
  { id, label, command, jsonPath }: Section,
  figures: Figures,
): { title: string; html: string } {
  const mdPath = jsonPath.replace(/\.json$/, '.md');
  const heading = (title: string) => `<h2>${escapeHtml(title)}</h2>`;
  if (!existsSync(jsonPath) || !existsSync(mdPath))
    return {
      title: `${label} (not run yet)`,
      html: `<section id="${escapeHtml(id)}" class="not-run">${heading(label)}<p class="missing">Not run yet, run: <code>${escapeHtml(command)}</code></p></section>`,
    };
  const result = readJson(jsonPath) as ResultFile;
  const listed = new Set(Array.isArray(result.figures) ? result.figures.map(text) : []);
  const body = markdownToHtml(readResultsText(mdPath), {
    dropTitle: true,
    lineBreaks: true,
    headerWords: HEADER_WORDS,
    figure: (path) =>
      listed.has(path)
        ? figureHtml(jsonPath, path, figures)
        : `<p class="missing">${escapeHtml(path)}: not listed in the JSON</p>`,
    link: (target) => {
      const section = /(?:^|\/)((?:17\.\d+)|(?:ex-\d+))\.(?:json|md)$/.exec(target)?.[1];
      return section === undefined ? undefined : `#sec-${section}`;
    },
  });
  const fileName = shownPath(jsonPath);
  const title = result.title === undefined ? label : `${label} ${text(result.title)}`;
  const book = /^sec-17\.\d+$/.test(id)
    ? ` <a class="back" href="#book-${escapeHtml(id.slice(4))}">book beside ours</a>`
    : '';
  const facts = provenance(result, fileName, resultPairMatches(jsonPath, mdPath));
  return {
    title,
    html: `<section id="${escapeHtml(id)}">${heading(title)}<p class="source">${escapeHtml(fileName)}${book}</p>${facts}${body}</section>`,
  };
}

function numberLeaves(
  value: unknown,
  path = '',
  found: Array<[string, number]> = [],
): Array<[string, number]> {
  if (typeof value === 'number' && Number.isFinite(value)) found.push([path, value]);
  else if (Array.isArray(value)) value.forEach((item, i) => numberLeaves(item, `${path}[${i}]`, found));
  else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) numberLeaves(item, `${path}.${key}`, found);
  return found;
}

/** The results the book table's "ours" numbers are read from: the committed ones (results/) and the folder the page is pointed at. */
type BookResults = { referenceDir: string; resultsDir: string };

/**
 * One "ours" cell of docs/REPRODUCTION.md read from another results folder: each number with a
 * decimal point is looked up in the committed results (the section's JSON and seeds.json) at
 * the decimals it is printed with; found at one or more places that all hold the same value in
 * `resultsDir`, it is printed from there, otherwise it is kept and marked with a dagger. Counts
 * (numbers without a decimal point) are too ambiguous to look up and stay as written.
 */
function oursCell(
  cell: string,
  reference: ReadonlyArray<[string, number]>,
  target: ReadonlyArray<[string, number]> | undefined,
): string {
  return cell.replace(/(?<![\w.`])-?\d+\.\d+(?![\w.])/g, (token) => {
    const decimals = token.split('.')[1]!.length;
    const paths = reference.filter(([, value]) => value.toFixed(decimals) === token).map(([path]) => path);
    const values = new Set(
      paths.map((path) => target?.find(([candidate]) => candidate === path)?.[1]?.toFixed(decimals)),
    );
    const [only] = values;
    return paths.length > 0 && values.size === 1 && only !== undefined ? only : `${token}†`;
  });
}

/** Reads a results JSON's numbers for the book table, or undefined when the file is missing or not JSON (one that is not a regular file is refused: readResultsText). */
function leavesOf(path: string): Array<[string, number]> | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return numberLeaves(readJson(path));
  } catch (error) {
    if (error instanceof InputError && !/is not a JSON file/.test(error.message)) throw error;
    return undefined;
  }
}

/** A section's table with its "ours" and "across seeds" columns read from `resultsDir` (see oursCell). */
function oursFromResults(
  lines: readonly string[],
  section: string,
  { referenceDir, resultsDir }: BookResults,
) {
  const files = [`${section}.json`, 'seeds.json', ...(section === '17.3' ? ['17.1.json'] : [])];
  const read = (dir: string) => files.map((file) => leavesOf(join(dir, file)));
  const named = (present: ReturnType<typeof read>) =>
    files.flatMap((file, i) =>
      (present[i] ?? []).map(([path, value]): [string, number] => [file + path, value]),
    );
  const reference = named(read(referenceDir));
  const present = read(resultsDir);
  const target = present.every((leaves) => leaves === undefined) ? undefined : named(present);
  const header = tableCells(lines[0]!);
  const ours = header.map((name) => /^(ours|across)/.test(name));
  return lines.map((line, row) =>
    row < 2
      ? line
      : `| ${tableCells(line)
          .map((cell, column) =>
            (ours[column] === true ? oursCell(cell, reference, target) : cell).replace(/\|/g, '\\|'),
          )
          .join(' | ')} |`,
  );
}

/**
 * docs/REPRODUCTION.md with each section's heading and every row of its table linked to that
 * section of the page. Its "ours" numbers are the committed results'; with `results` naming
 * another folder they are read from that folder instead (see oursCell), and a note says how.
 */
function bookBesideOurs(markdown: string, results?: BookResults): string {
  const elsewhere = results !== undefined && resolve(results.referenceDir) !== resolve(results.resultsDir);
  let section: string | undefined;
  const parts = markdownBlocks(markdown).map(({ kind, lines }) => {
    const first = lines[0]!;
    const link = (id: string) => `<a href="#sec-${escapeHtml(id)}">${escapeHtml(id)}</a>`;
    if (kind === 'heading' && first.startsWith('# ')) return '';
    if (kind === 'heading') {
      section = /^#+ (17\.\d+|ex-\d+)\b/.exec(first)?.[1];
      const title = escapeHtml(first.replace(/^#+ /, '').replace(/\s*\(\[.*$/, ''));
      return section === undefined
        ? `<h3>${title}</h3>`
        : `<h3 id="book-${escapeHtml(section)}"><a href="#sec-${escapeHtml(section)}">${title}</a></h3>`;
    }
    if (kind === 'table' && section !== undefined) {
      const id = section;
      const rows = elsewhere ? oursFromResults(lines, id, results) : lines;
      return tableHtml(rows, {}, { header: 'section', cell: () => link(id) });
    }
    return markdownToHtml(lines.join('\n'), { figure: escapeHtml });
  });
  const note = elsewhere
    ? `<p class="missing">The "ours" columns are read from ${escapeHtml(results.resultsDir)}: each number with a decimal point where the committed results (${escapeHtml(results.referenceDir)}) hold it; a number marked † is not found there and is shown as committed, and counts (no decimal point) and the text are docs/REPRODUCTION.md's.</p>`
    : '';
  return note + parts.join('\n');
}

/** A section of the page at anchor `sec-ID`: its label, and either its results or the command that makes them. */
const pageSection = (id: string, label: string, command: string, jsonPath: string) => ({
  id: `sec-${id}`,
  label,
  command,
  jsonPath,
});
type Section = ReturnType<typeof pageSection>;

/**
 * The sections: chapter 17 and the exercises from package.json's exp:17.N and ex:N scripts, the
 * seed study, every study folder's report (studies/NAME/results/study.json) or the command that
 * makes one, and each `tinyagent aggregate --out DIR` folder given with --aggregate.
 */
function pageSections({ resultsDir, studiesDir, aggregateDirs = [] }: ReportPageOptions): Section[] {
  const scripts = (readJson(join(ROOT, 'package.json')) as { scripts: Record<string, string> }).scripts;
  const named = (pattern: RegExp, labelOf: (match: string) => string) =>
    Object.keys(scripts).flatMap((script) => {
      const match = pattern.exec(script)?.[1];
      if (match === undefined) return [];
      const label = labelOf(match);
      return [pageSection(label, label, `npm run ${script}`, join(resultsDir, `${label}.json`))];
    });
  const studies = existsSync(studiesDir)
    ? readdirSync(studiesDir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(join(studiesDir, entry.name, 'study.json')))
        .map((entry) => entry.name)
        .sort()
    : [];
  const studyResults = (name: string) => join(studiesDir, name, 'results', 'study.json');
  return [
    ...named(/^exp:(17\.\d+)$/, (n) => n),
    ...named(/^ex:(\d+)$/, (n) => `ex-${n}`),
    pageSection(
      'seeds',
      'Seed study',
      `npx tinyagent study run ${DEFAULT_STUDY} && npm run exp:seeds`,
      join(resultsDir, 'seeds.json'),
    ),
    ...(studies.length === 0
      ? [
          pageSection(
            'studies',
            'Seed studies',
            `npx tinyagent study plan --recipe default --seeds 0-15 --out ${DEFAULT_STUDY}`,
            studyResults('none'),
          ),
        ]
      : studies.map((name) =>
          pageSection(
            `study-${name}`,
            `Study ${name}`,
            `npx tinyagent study run studies/${name} && npx tinyagent study report studies/${name}`,
            studyResults(name),
          ),
        )),
    ...aggregateDirs.map((dir, i) =>
      pageSection(
        `aggregate-${i + 1}`,
        `Aggregate ${relative(ROOT, dir) || dir}`,
        `tinyagent aggregate FILE... --out ${dir}`,
        join(dir, 'aggregate.json'),
      ),
    ),
  ];
}

/** The inlined libraries, read from node_modules: the page makes no request. */
function libraries(): string[] {
  return ['vega/build/vega.min.js', 'vega-lite/build/vega-lite.min.js'].map((path) => {
    const file = join(ROOT, 'node_modules', path);
    if (!existsSync(file)) throw new InputError(`${file} is missing: run npm install`);
    return readFileSync(file, 'utf8');
  });
}

/** The results the header's answers read, each with its section (answers.ts says what each answer reads). */
function answerSources(all: readonly Section[]): AnswerSources {
  const source = (name: keyof AnswerSources) => {
    const section = all.find(({ id }) => id === `sec-${name}`);
    if (section === undefined) throw new Error(`the page has no section sec-${name}`);
    const { id, label, command, jsonPath } = section;
    return {
      name: shownPath(jsonPath),
      json: existsSync(jsonPath) ? readJson(jsonPath) : undefined,
      command,
      section: { id, label: name === 'seeds' ? 'the seed study' : label },
    };
  };
  return { '17.4': source('17.4'), '17.7': source('17.7'), seeds: source('seeds'), 'ex-7': source('ex-7') };
}

export async function main(options: ReportPageOptions) {
  const all = pageSections(options);
  const drawn: Figures = { specs: [], problems: [] };
  const rendered = all.map((section) => sectionHtml(section, drawn));
  const figures = drawn.specs.length;
  const book = existsSync(options.reproductionFile)
    ? bookBesideOurs(readResultsText(options.reproductionFile), {
        referenceDir: join(ROOT, 'results'),
        resultsDir: options.resultsDir,
      })
    : `<p class="missing">${escapeHtml(options.reproductionFile)} is missing.</p>`;
  const ran = all.filter(({ jsonPath }) => existsSync(jsonPath)).length;
  const here = (file: string) => escapeHtml(shownPath(file));
  const page = pageHtml({
    title: 'TinyAgent: chapter 17 measured',
    intro: `${chapterAnswers(answerSources(all))}<p>Every result in ${here(options.resultsDir)}: ${ran} of ${all.length} sections have results, ${figures} figures; the book beside ours (${here(options.reproductionFile)}) follows them. Hover a figure for its values. Made by <code>npm run report</code>.</p>`,
    toc: [
      ...all.map(({ id }, i) => ({ id, label: rendered[i]!.title })),
      { id: 'book', label: 'Book beside ours' },
    ],
    body: [
      ...rendered.map(({ html }) => html),
      `<section id="book"><h2>Book beside ours</h2>${book}</section>`,
    ].join('\n'),
    libraries: libraries(),
    style: readFileSync(new URL('./page.css', import.meta.url), 'utf8'),
    script: readFileSync(new URL('./page.js', import.meta.url), 'utf8'),
  });
  writeFileAtomic(options.outFile, page);
  return {
    outFile: options.outFile,
    sections: all.length,
    ran,
    figures,
    figureProblems: drawn.problems,
    bytes: Buffer.byteLength(page),
  };
}

/** `--results DIR --out FILE --aggregate DIR...`; a bad flag is a UsageError (exit 2). */
export function parseReportOptions(argv: string[]): ReportPageOptions {
  let values;
  try {
    const options = { results: { type: 'string' }, out: { type: 'string' } } as const;
    ({ values } = parseArgs({
      args: argv,
      options: { ...options, aggregate: { type: 'string', multiple: true } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(
      `${(error as Error).message.split('\n')[0]} (options: --results DIR, --out FILE, --aggregate DIR)`,
    );
  }
  for (const name of ['results', 'out'] as const)
    if (values[name] !== undefined && values[name].trim() === '')
      throw new UsageError(`--${name} must name a ${name === 'out' ? 'file' : 'folder'}`);
  const resultsDir = resolve(values.results ?? join(ROOT, 'results'));
  if (!existsSync(resultsDir)) throw new InputError(`${resultsDir}: no such results folder`);
  const aggregateDirs = (values.aggregate ?? []).map((dir) => {
    if (dir.trim() === '') throw new UsageError('--aggregate must name a folder');
    const folder = resolve(dir);
    if (!existsSync(join(folder, 'aggregate.json')))
      throw new InputError(
        `${folder}: no aggregate.json (write it with tinyagent aggregate FILE... --out ${dir})`,
      );
    return folder;
  });
  return {
    aggregateDirs,
    resultsDir,
    outFile: resolve(values.out ?? join(resultsDir, 'report', 'index.html')),
    reproductionFile: join(ROOT, 'docs', 'REPRODUCTION.md'),
    studiesDir: join(ROOT, 'studies'),
  };
}

if (isMain(import.meta.url))
  await runScript('report', async () => {
    const written = await main(parseReportOptions(process.argv.slice(2)));
    const shown = relative(process.cwd(), written.outFile);
    process.stdout.write(
      `wrote ${shown.startsWith('..') ? written.outFile : shown} (${(written.bytes / 1e6).toFixed(1)} MB): ${written.ran} of ${written.sections} sections with results, ${written.figures} figures\n`,
    );
    for (const problem of written.figureProblems) process.stderr.write(`report: ${problem}\n`);
  });
