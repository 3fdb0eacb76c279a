import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A figure the README or a doc quotes, and where it is measured: the value at `path` in
 * `results/<file>`, printed with `format`, must be `text`, and every doc in `docs` must hold
 * `quote` (the phrase around it, so that the same digits elsewhere are not taken for it).
 */
export interface QuotedNumber {
  /** The figure as the docs print it. */
  text: string;
  /** The phrase in the docs that holds it (the text itself when it is distinctive). */
  quote?: string;
  /** The docs that quote it: `README.md`, `docs/TRAINING.md`, ... */
  docs: readonly string[];
  /** The results file, under `results/`. */
  file: string;
  /** A path into the file: `run.seconds.total`, `numbers[1].perTask[0].successes`; `[*]` and `[name!=speed]` take several elements. */
  path: string;
  /** How the docs print the value. */
  format: NumberFormat;
  /** For a path with several values: which is quoted, or all of them in order, space-separated (`join`). */
  pick?: 'min' | 'max' | 'join';
}

/** `digits`: fixed decimals; `significant`: rounded to that many significant digits; `grouped`: 35,900. */
export interface NumberFormat {
  digits?: number;
  significant?: number;
  grouped?: boolean;
  /** Quote the magnitude (a bias of -0.035 quoted as "low by 0.035"); `pick` then picks among magnitudes. */
  abs?: boolean;
}

/** A number in a scanned section that is a setting or a quoted outside figure, not a measurement. */
export interface NotMeasured {
  /** The phrase that holds it, exactly as the doc has it. */
  quote: string;
  why: string;
}

const ROOT = join(import.meta.dirname, '..', '..');

export function readDoc(doc: string): string {
  return readFileSync(join(ROOT, doc), 'utf8');
}

export function readResults(file: string): unknown {
  return JSON.parse(readFileSync(join(ROOT, 'results', file), 'utf8')) as unknown;
}

/**
 * The values at `path` in `json`: one, or one per element where the path says `[*]` (every
 * element) or `[field!=value]` (the elements whose field is not that value).
 */
export function valuesAt(json: unknown, path: string): unknown[] {
  const steps = path.match(/\[[^\]]*\]|[^.[\]]+/g) ?? [];
  let current: unknown[] = [json];
  for (const step of steps) {
    current = current.flatMap((value) => {
      if (step === '[*]') return Array.isArray(value) ? value : Object.values(value as object);
      const except = /^\[(\w+)!=(.*)\]$/.exec(step);
      if (except !== null)
        return (value as Array<Record<string, unknown>>).filter(
          (item) => String(item[except[1]!]) !== except[2],
        );
      const key = step.startsWith('[') ? Number(step.slice(1, -1)) : step;
      if (typeof value !== 'object' || value === null || !(key in value))
        throw new Error(`${path}: no '${String(key)}'`);
      return [(value as Record<string | number, unknown>)[key]];
    });
  }
  return current;
}

export function formatNumber(value: number, format: NumberFormat): string {
  let x = value;
  if (format.significant !== undefined) x = Number(x.toPrecision(format.significant));
  if (format.grouped === true)
    return x.toLocaleString('en-US', {
      minimumFractionDigits: format.digits ?? 0,
      maximumFractionDigits: format.digits ?? 0,
    });
  return format.digits !== undefined ? x.toFixed(format.digits) : String(x);
}

/** The quoted figure's value as the docs should print it, read from its results file. */
export function measuredText(entry: QuotedNumber): string {
  const values = valuesAt(readResults(entry.file), entry.path);
  for (const value of values)
    if (typeof value !== 'number') throw new Error(`${entry.file}: ${entry.path} is not a number`);
  const numbers = (values as number[]).map((value) => (entry.format.abs === true ? Math.abs(value) : value));
  if (entry.pick === 'join') return numbers.map((value) => formatNumber(value, entry.format)).join(' ');
  const value =
    entry.pick === 'min' ? Math.min(...numbers) : entry.pick === 'max' ? Math.max(...numbers) : numbers[0];
  if (value === undefined || (numbers.length > 1 && entry.pick === undefined))
    throw new Error(`${entry.file}: ${entry.path} holds ${numbers.length} values; say which (pick)`);
  return formatNumber(value, entry.format);
}

/** The lines of a Markdown section, from its heading to the next heading of the same or a higher level. */
export function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#+ /.test(line) && line.replace(/^#+ /, '').startsWith(heading));
  if (start < 0) throw new Error(`no section '${heading}'`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex((line, i) => i > start && new RegExp(`^#{1,${level}} `).test(line));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** Markdown text with its line breaks and indentation folded to single spaces (a phrase may wrap). */
export function folded(markdown: string): string {
  return markdown.replace(/\s+/g, ' ');
}

/**
 * The numbers of `text` that no quote backs: every quoted figure's phrase and every setting's
 * phrase is blanked out, and what digits remain are figures nobody said where they come from.
 */
export function unbackedNumbers(text: string, quotes: readonly string[]): string[] {
  let rest = folded(text);
  // Longest first, so that a phrase inside a longer one does not split it.
  for (const quote of [...quotes].sort((a, b) => b.length - a.length))
    rest = rest.split(folded(quote)).join(' ');
  // What inline code is left holds names (`step-80`, `exp:17.4`), not figures; so do digits
  // that follow a letter or an @ (pass@1).
  return rest.replace(/`[^`]*`/g, ' ').match(/(?<![\w@])\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?/g) ?? [];
}

/** The committed results files a doc's figures may come from: results/ (all depths) and every study's results/. */
function resultFiles(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return under(path);
      return /\.(json|md)$/.test(entry.name) && !entry.name.endsWith('.vl.json') ? [path] : [];
    });
  const studies = readdirSync(join(ROOT, 'studies'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, 'studies', entry.name, 'results')))
    .flatMap((entry) => under(`studies/${entry.name}/results`));
  return [...under('results'), ...studies];
}

let printed: Set<string> | undefined;

/**
 * Every way the committed results files print or hold a figure: each number of each results
 * Markdown and JSON file, as written and rounded to 0 to 6 decimals, without its sign or digit
 * grouping (a doc's "1,177" is the JSON's 1177; its "0.080" is 0.0800331...).
 */
export function numbersInResults(): Set<string> {
  if (printed !== undefined) return printed;
  printed = new Set();
  for (const file of resultFiles())
    for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(
      /\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?/gi,
    )) {
      const text = match[0].replace(/,/g, '');
      printed.add(text);
      const value = Number(text);
      if (!Number.isFinite(value)) continue;
      for (let digits = 0; digits <= 6; digits += 1) printed.add(value.toFixed(digits));
      for (let digits = 1; digits <= 6; digits += 1) {
        printed.add(value.toPrecision(digits));
        // 9468.6 at two significant digits is printed 9,500, not 9.5e+3.
        printed.add(String(Number(value.toPrecision(digits))));
      }
    }
  return printed;
}

/**
 * The figures of a doc that no committed results file holds (`numbersInResults`) and no quote
 * backs: what is left once the QUOTED and NOT_MEASURED phrases are blanked, code spans dropped,
 * and digits after a letter or an @ skipped (pass@1, step-80 names).
 */
export function figuresNoResultHolds(text: string, quotes: readonly string[]): string[] {
  const held = numbersInResults();
  return unbackedNumbers(text, quotes).filter((figure) => {
    const plain = figure.replace(/,/g, '');
    // 1.81e-4 is held as 0.000181 (three significant digits, as written).
    const exponent = /^(\d+(?:\.\d+)?)e[-+]?\d+$/i.exec(plain);
    if (exponent === null) return !held.has(plain);
    const significant = exponent[1]!.replace('.', '').replace(/^0+/, '').length;
    return !held.has(Number(plain).toPrecision(significant));
  });
}
