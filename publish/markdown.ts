/**
 * What every experiment's report is made of, so that a report template (publish/sections/17.N.ts)
 * holds only what it says: sections of blocks, tables built from records, the table of ours
 * against the book, the "Reading" and "Where ours differs" paragraphs, and the number formats of
 * every results/17.N.md. Pure string functions: no I/O, no TensorFlow.
 */
import type { Figure } from './figures.ts';

/** What a template renders from an experiment's numbers: the Markdown body and its figures (file name -> SVG and spec). */
export interface Report {
  markdown: string;
  figures?: Record<string, Figure>;
}

/** A heading, a table or a paragraph; a paragraph given as lines keeps them on consecutive lines (one Markdown paragraph). */
type Block = string | readonly string[];

export function blocks(...parts: Block[]): string {
  return parts.map((part) => (typeof part === 'string' ? part : part.join('\n'))).join('\n\n');
}

export const section = (title: string, ...parts: Block[]) => blocks(`## ${title}`, ...parts);

export const subsection = (title: string, ...parts: Block[]) => blocks(`### ${title}`, ...parts);

/** A Markdown table; numbers are printed as given (format them first). */
export function markdownTable(
  headers: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number>>,
): string {
  return [
    `| ${headers.join(' | ')} |`,
    `| ${headers.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

type Cell<Row> = (row: Row, index: number) => string | number;

/**
 * A table with one row per record: each key of `columns` is a header (in the order written; a
 * header must not be a bare integer, which JavaScript would move to the front) and its function
 * gives that column's cell of a record. Columns given as [header, cell] pairs may repeat a header.
 */
export function table<Row>(
  rows: readonly Row[],
  columns: Record<string, Cell<Row>> | ReadonlyArray<readonly [string, Cell<Row>]>,
): string {
  const pairs = Array.isArray(columns) ? columns : Object.entries(columns);
  return markdownTable(
    pairs.map(([header]) => header),
    rows.map((row, index) => pairs.map(([, cell]) => cell(row, index))),
  );
}

export function oursAgainstBook(
  rows: ReadonlyArray<readonly [quantity: string, ours: string, book: string | number]>,
): string {
  return markdownTable(['', 'ours', 'book'], rows);
}

export const reading = (text: string) => `Reading: ${text}`;

/** The paragraph that says where our measurement departs from the book's and what in our data explains it. */
export const whereOursDiffers = (text: string) => `Where ours differs: ${text}`;

/** A share, pass rate, SD or difference as the reports print it: three decimals. */
export const pct = (value: number) => value.toFixed(3);

export const signed = (value: number, digits = 3) => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;

/** An interval's ends; an interval over seeds has none (null) when one seed gives no spread. */
type Ends = { low: number | null; high: number | null };

/** `[low, high]`, or `(n/a: one seed)` without ends. */
export const interval = ({ low, high }: Ends, format: (value: number) => string = pct) =>
  low === null || high === null ? '(n/a: one seed)' : `[${format(low)}, ${format(high)}]`;

export const withInterval = (value: Ends & { estimate: number }) =>
  `${pct(value.estimate)} ${interval(value)}`;

export const range = (values: readonly number[], format: (value: number) => string = pct) =>
  `${format(Math.min(...values))} to ${format(Math.max(...values))}`;

/** `value ± se`: a simulated figure with its Monte Carlo standard error. */
export const withSE = (value: number, se: number, { digits = 3, sign = false } = {}) =>
  `${sign ? signed(value, digits) : value.toFixed(digits)} ± ${se.toFixed(digits)}`;

export const count = (value: number) => value.toLocaleString('en-US');

/** `op count, op count` from most to least frequent (ties by name). */
export function topOps(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([op, times]) => `${op} ${times}`)
    .join(', ');
}
