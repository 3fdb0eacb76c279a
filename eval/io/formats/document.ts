import { fileError } from '../errors.ts';
import type { LineReader } from '../source.ts';
import {
  checkShape,
  closingQuote,
  isSpace,
  jsonErrorWhere,
  MAX_JSON_DEPTH,
  parsePythonJson,
} from './json.ts';

/**
 * A JSON document over many lines (an Inspect `.json` log, lm-evaluation-harness samples as one
 * array), read one value at a time: each member of the root object, each element of the root
 * array, and each element of one member's array (Inspect's `samples`) is parsed on its own (after
 * checkShape) as its text ends, so that memory follows the largest of them, not the document. What
 * lies between them is checked here, so that a document that is not JSON is refused naming the line
 * and column.
 */
interface DocumentReading {
  path: string;
  maxBytes: number;
  /** The root object's member whose array is read element by element (`element`), not whole. */
  each?: string;
  /** The first character of the root: `{` or `[`; called before any member or element. */
  root?(kind: '{' | '['): void;
  /** A member of the root object (all but `each` when it is an array), parsed; `line` is where its value starts. */
  member?(key: string, value: unknown, line: number): void;
  /** An element of the root array or of the member `each`, parsed; `line` is where it starts. */
  element?(value: unknown, line: number, index: number): void;
}

type State =
  | 'start' // before the root
  | 'key' // in the root object, before a key (or `}` right after `{`)
  | 'colon' // after a key
  | 'value' // after a colon or an array's `[` or `,`: the value's first character next
  | 'next' // after a value: `,` or the closer
  | 'done'; // after the root

/** Reads a JSON document fed one line at a time (a LineReader: `line` for each, then `end`). */
export class JsonDocument implements LineReader<void> {
  private state: State = 'start';
  /** 1 in the root; 2 in the `each` member's array. */
  private level = 0;
  private rootKind: '{' | '[' = '{';
  /** Right after a `{` or `[`: a closer may follow at once. */
  private opened = false;
  private key = '';
  /** Elements read of the array being read (the root's or `each`'s). */
  private index = 0;
  // the value being read: its text so far, where it began, its nesting and size
  private reading = false;
  private pieces: string[] = [];
  private chars = 0;
  private startLine = 0;
  private startColumn = 0;
  private depth = 0;
  private deepest = 0;
  private values = 1;
  private inString = false;
  private number = 0;

  constructor(private readonly options: DocumentReading) {}

  private fail(line: number, column: number, detail: string): never {
    throw fileError(this.options.path, `not valid JSON (${detail} at line ${line}, column ${column})`);
  }

  line(text: string, number: number): void {
    this.number = number;
    let i = 0;
    let from = 0; // where the value's text in this line begins
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (this.reading) {
        if (this.inString) {
          const end = closingQuote(text, i);
          if (end < 0) i = text.length;
          else {
            this.inString = false;
            i = end + 1;
          }
          continue;
        }
        if (code === 34) this.inString = true;
        else if (code === 123 || code === 91) {
          this.values++;
          if (++this.depth > this.deepest) {
            this.deepest = this.depth;
            if (this.deepest > MAX_JSON_DEPTH) this.checkValue(this.chars + i - from);
          }
        } else if (this.depth === 0 && (code === 44 || code === 125 || code === 93)) {
          // the value ends here; the comma or closer is read in state 'next'
          this.finishValue(text.slice(from, i));
          continue;
        } else if (code === 44 || code === 58) this.values++;
        else if (code === 125 || code === 93) this.depth--;
        i++;
        continue;
      }
      if (isSpace(code)) {
        i++;
        continue;
      }
      const found = text[i];
      if (this.state === 'start') {
        if (code !== 123 && code !== 91) this.fail(number, i + 1, `unexpected '${found}'`);
        this.rootKind = code === 123 ? '{' : '[';
        this.level = 1;
        this.state = code === 123 ? 'key' : 'value';
        this.opened = true;
        this.options.root?.(this.rootKind);
      } else if (this.state === 'key') {
        if (code === 125 && this.opened) this.close(code, number, i);
        else i = this.readKey(text, i, number) - 1;
      } else if (this.state === 'colon') {
        if (code !== 58) this.fail(number, i + 1, `expected ':' after a key, found '${found}'`);
        this.state = 'value';
      } else if (this.state === 'value') {
        if (code === 93 && this.opened && (this.level === 2 || this.rootKind === '['))
          this.close(code, number, i);
        else if (this.level === 1 && this.rootKind === '{' && this.key === this.options.each && code === 91) {
          // the member read element by element: its elements are values at level 2
          this.level = 2;
          this.index = 0;
          this.opened = true;
        } else {
          this.beginValue(number, i);
          from = i;
          continue;
        }
      } else if (this.state === 'next') {
        if (code === 44) {
          this.state = this.level === 1 && this.rootKind === '{' ? 'key' : 'value';
          this.opened = false;
        } else if (code === 125 || code === 93) this.close(code, number, i);
        else this.fail(number, i + 1, `expected ',' or a closing bracket, found '${found}'`);
      } else this.fail(number, i + 1, 'more text after the document');
      i++;
    }
    if (this.reading) {
      this.pieces.push(text.slice(from), '\n');
      this.chars += text.length - from + 1;
      this.checkValue(this.chars);
    }
  }

  /** The key whose quote is at `i`; returns where it ends. */
  private readKey(text: string, i: number, number: number): number {
    if (text.charCodeAt(i) !== 34) this.fail(number, i + 1, `expected a key in quotes, found '${text[i]}'`);
    const end = closingQuote(text, i + 1);
    if (end < 0) return this.fail(number, i + 1, 'a key not closed on its line');
    try {
      this.key = JSON.parse(text.slice(i, end + 1)) as string;
    } catch {
      this.fail(number, i + 1, 'a key that is not a JSON string');
    }
    this.state = 'colon';
    this.opened = false;
    return end + 1;
  }

  private beginValue(line: number, column: number): void {
    this.reading = true;
    this.opened = false;
    this.pieces = [];
    this.chars = 0;
    this.startLine = line;
    this.startColumn = column + 1;
    this.depth = 0;
    this.deepest = 0;
    this.values = 1;
    this.inString = false;
  }

  private checkValue(chars: number): void {
    checkShape({ depth: this.deepest, values: this.values, duplicate: undefined }, chars, {
      path: this.options.path,
      line: this.startLine,
      maxBytes: this.options.maxBytes,
      what: this.label(),
    });
  }

  /** Where the value being read is, for messages: `samples[3]: `, `member 'eval': `, `element 0: `. */
  private label(): string {
    if (this.level === 2) return `${this.options.each}[${this.index}]: `;
    return this.rootKind === '{' ? `member '${this.key}': ` : `element ${this.index}: `;
  }

  /** The value whose text ends with `last`: parsed and handed on. */
  private finishValue(last: string): void {
    this.pieces.push(last);
    this.chars += last.length;
    this.checkValue(this.chars);
    const text = this.pieces.join('');
    this.pieces = [];
    this.reading = false;
    this.state = 'next';
    if (text.trim() === '') this.fail(this.startLine, this.startColumn, 'a value missing');
    let value: unknown;
    try {
      value = parsePythonJson(text);
    } catch (error) {
      const message = jsonErrorWhere(error, text);
      const where = /at line (\d+), column (\d+)/.exec(message);
      const detail = message.replace(/ at line \d+, column \d+/, '');
      if (where === null) return this.fail(this.startLine, this.startColumn, detail);
      const line = Number(where[1]);
      const column = Number(where[2]);
      this.fail(this.startLine + line - 1, line === 1 ? this.startColumn + column - 1 : column, detail);
    }
    if (this.level === 2 || this.rootKind === '[')
      this.options.element?.(value, this.startLine, this.index++);
    else this.options.member?.(this.key, value, this.startLine);
  }

  /** A `}` or `]` where the array or object being read may close: `each`'s array, or the root. */
  private close(code: number, line: number, at: number): void {
    const expected = this.level === 2 || this.rootKind === '[' ? 93 : 125;
    if (code !== expected) this.fail(line, at + 1, `unexpected '${String.fromCharCode(code)}'`);
    this.opened = false;
    // `each`'s array closes within the root; the root closes the document
    this.state = this.level === 2 ? 'next' : 'done';
    this.level = 1;
  }

  end(): void {
    if (this.state !== 'done')
      throw fileError(
        this.options.path,
        `not valid JSON (the document ends at line ${this.number} before its root is closed)`,
      );
  }
}
