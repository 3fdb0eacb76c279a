import { isUtf8 } from 'node:buffer';
import { closeSync, createReadStream, lstatSync, readSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { createGunzip } from 'node:zlib';
import { fileKind, fileProblem, FileRefusedError, openRegularFile } from '../../lib/files.ts';
import { fileError, ResultFileError } from './errors.ts';

// Reading a result file without holding it whole: a text one line at a time (through gunzip when
// gzipped), an archive one entry at a time (`RandomAccess`).

/** The most text read into one string: V8's longest string is 2^29 - 24 characters, and a UTF-8 byte is at most one. */
export const MAX_TEXT_BYTES = 0x1fffffe8;
/** MAX_TEXT_BYTES for messages, near enough. */
export const MAX_TEXT_LABEL = '512 MiB';

/** The most rows read from one file without `--max-rows`: a small gzip can unpack to tens of millions of lines. */
export const MAX_ROWS = 5_000_000;

/** How much a reader holds at most: rows and bytes (the commands' `--max-rows` and `--max-bytes`). */
export interface RowLimit {
  maxRows?: number;
  /** What the rows of one file may hold, and what one JSON text may take to parse. */
  maxBytes?: number;
}

let heapQuarter: number | undefined;

/**
 * The bytes a file's rows may hold unless `--max-bytes` says otherwise: a quarter of V8's heap limit,
 * leaving the rest for the JSON text being parsed (bounded alike) and the statistics.
 */
export function defaultMaxBytes(): number {
  heapQuarter ??= Math.floor(getHeapStatistics().heap_size_limit / 4);
  return heapQuarter;
}

/** A byte count for a message: `1,073,741,824 bytes (1 GiB)`. */
export function formatBytes(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let size = bytes;
  let unit = -1;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit++;
  }
  const short = unit < 0 ? '' : ` (${size >= 10 ? Math.round(size) : size.toFixed(1)} ${units[unit]})`;
  return `${bytes.toLocaleString('en-US')} bytes${short}`;
}

/** What one row costs beside the text it keeps (its object, sample, outcome and line), in bytes, with headroom. */
const ROW_BYTES = 100;

/**
 * The rows one reader holds, each counted at ROW_BYTES plus the characters it keeps: past `maxRows`
 * rows or `maxBytes` bytes the next is refused, before the rows exhaust the heap.
 */
export class RowBudget {
  rows = 0;
  bytes = 0;
  readonly maxRows: number;
  readonly maxBytes: number;

  constructor(
    readonly path: string,
    limit: RowLimit = {},
  ) {
    this.maxRows = limit.maxRows ?? MAX_ROWS;
    this.maxBytes = limit.maxBytes ?? defaultMaxBytes();
  }

  /** One more row at `line`, keeping `text` characters of ids and fields. */
  row(line: number, text = 0): void {
    if (this.rows >= this.maxRows)
      throw fileError(
        this.path,
        `more than ${this.maxRows.toLocaleString('en-US')} result rows, the most read from one file (--max-rows N raises the limit; the rows are held in memory)`,
        line,
      );
    this.rows++;
    this.bytes += ROW_BYTES + text;
    if (this.bytes > this.maxBytes)
      throw fileError(
        this.path,
        `the rows read so far hold more than ${formatBytes(this.maxBytes)}, the most held from one file (--max-bytes N raises the limit, within node's heap: node --max-old-space-size=MB); the rows are held in memory`,
        line,
      );
  }
}

/** How a Git LFS pointer file begins (git-lfs's spec/v1): what a clone without `git lfs pull` holds. */
const LFS_POINTER = Buffer.from('version https://git-lfs.github.com/spec/v1');

export const isLfsPointer = (bytes: Uint8Array) =>
  bytes.length >= LFS_POINTER.length && LFS_POINTER.equals(bytes.subarray(0, LFS_POINTER.length));

export const lfsPointerError = (path: string) =>
  fileError(path, 'a Git LFS pointer, not the file: run git lfs pull');

/** RFC 1952: 1f 8b. */
export const isGzip = (bytes: Uint8Array) => bytes[0] === 0x1f && bytes[1] === 0x8b;

/** What a path that is a folder should have been, for `readResults`: the formats it reads. */
export const RESULT_FILE = 'a result file (give the path of a .jsonl, .csv, .json or .eval file)';

/**
 * The size of a regular file at `path` (a symbolic link is never followed, as in lib/files.ts), or
 * the ResultFileError naming the path in one line (a folder: `is a folder, not ${expected}`);
 * undefined for a missing file when `optional`.
 */
export function fileSize(
  path: string,
  { optional = false, expected = RESULT_FILE } = {},
): number | undefined {
  let stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    const problem = fileProblem(error);
    if (optional && problem === 'no such file') return undefined;
    throw fileError(path, problem);
  }
  if (stats.isDirectory()) throw fileError(path, `is a folder, not ${expected}`);
  if (!stats.isFile()) throw fileError(path, `is ${fileKind(stats)}, not a regular file`);
  return stats.size;
}

export function readError(path: string, error: unknown): ResultFileError {
  if (error instanceof ResultFileError) return error;
  if (error instanceof FileRefusedError) return fileError(path, error.problem);
  return fileError(path, fileProblem(error));
}

/** The descriptor of the regular file at `path`, opened for reading (lib/files.ts `openRegularFile`). */
function openedFile(path: string): number {
  try {
    return openRegularFile(path).fd;
  } catch (error) {
    throw readError(path, error);
  }
}

/** WHATWG's UTF-8 decoder, refusing what is not UTF-8; a byte-order mark is kept, to be dropped where one may stand. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * `bytes` decoded as UTF-8, or the ResultFileError naming the first line (from `line`, where the
 * bytes begin) that is not UTF-8: a lossy decoding turns each bad byte into U+FFFD, so that ids
 * which differ (`A\xff`, `A\xfe`) would become one. `what` names an archive's entry, whose lines
 * are its own.
 */
export function utf8Text(bytes: Uint8Array, path: string, { line = 1, what = '' } = {}): string {
  try {
    return strictUtf8.decode(bytes);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_ENCODING_INVALID_ENCODED_DATA') throw error;
  }
  // a newline byte is in no multi-byte sequence, so the first bad byte is on the first line that is not UTF-8
  let bad = line;
  let start = 0;
  for (
    let end = bytes.indexOf(10);
    end >= 0 && isUtf8(bytes.subarray(start, end));
    end = bytes.indexOf(10, start)
  ) {
    start = end + 1;
    bad++;
  }
  if (what !== '') throw fileError(path, `${what}line ${bad} is not valid UTF-8`);
  throw fileError(path, 'not valid UTF-8; convert the file to UTF-8 (e.g. iconv -f LATIN1 -t UTF-8)', bad);
}

/** Bytes read by position: an open file or a buffer (a gzipped archive unpacked in memory). */
export interface RandomAccess {
  readonly size: number;
  /** `length` bytes from `position` (fewer at the end). */
  read(position: number, length: number): Buffer;
}

/** An open file read by position; `close` it when done. */
export class FileAccess implements RandomAccess {
  private readonly fd: number;

  constructor(
    readonly path: string,
    readonly size: number,
  ) {
    this.fd = openedFile(path);
  }

  read(position: number, length: number): Buffer {
    const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(length, this.size - position)));
    let done = 0;
    try {
      while (done < buffer.length) {
        const read = readSync(this.fd, buffer, done, buffer.length - done, position + done);
        if (read === 0) break;
        done += read;
      }
    } catch (error) {
      throw readError(this.path, error);
    }
    return done === buffer.length ? buffer : buffer.subarray(0, done);
  }

  close(): void {
    closeSync(this.fd);
  }
}

export const bufferAccess = (bytes: Buffer): RandomAccess => ({
  size: bytes.length,
  read: (position, length) => bytes.subarray(position, position + length),
});

/** What reads a text one line at a time: each line (1-based number, without `\n` or `\r\n`, the first without a byte-order mark), then the end. */
export interface LineReader<T> {
  line(text: string, number: number): void;
  end(): T;
}

/**
 * Streams the (unpacked, when `gzip`) bytes of a file to `chunk`, 1 MiB at a time, until `chunk`
 * returns false.
 * @throws ResultFileError for a gzip stream that is broken or cut, or a read error.
 */
export async function streamBytes(
  path: string,
  gzip: boolean,
  chunk: (bytes: Buffer) => boolean | void,
): Promise<void> {
  const input = createReadStream(path, { fd: openedFile(path), highWaterMark: 1 << 20 });
  const unpack = gzip ? createGunzip({ chunkSize: 1 << 20 }) : undefined;
  const stream = unpack === undefined ? input : input.pipe(unpack);
  if (unpack !== undefined) input.on('error', (error) => unpack.destroy(error));
  try {
    for await (const bytes of stream) if (chunk(bytes as Buffer) === false) break;
  } catch (error) {
    if (error instanceof ResultFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (gzip && typeof code === 'string' && code.startsWith('Z_'))
      throw fileError(path, `not a readable gzip file (${(error as Error).message})`);
    throw readError(path, error);
  } finally {
    input.destroy();
    unpack?.destroy();
  }
}

/**
 * Splits bytes into lines for a LineReader, decoding one line at a time (utf8Text), so that memory
 * is bounded by the longest line: a line over MAX_TEXT_BYTES (no string holds it) or `maxBytes` is
 * refused.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private number = 0;
  private readonly longest: number;

  constructor(
    private readonly path: string,
    private readonly reader: LineReader<unknown>,
    { maxBytes = defaultMaxBytes() }: RowLimit = {},
  ) {
    this.longest = Math.min(MAX_TEXT_BYTES, maxBytes);
  }

  push(bytes: Buffer): void {
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(10, start);
      const end = newline < 0 ? bytes.length : newline;
      if (this.pendingBytes + end - start > this.longest)
        throw fileError(
          this.path,
          this.longest === MAX_TEXT_BYTES
            ? `a line longer than ${MAX_TEXT_LABEL}, more than one string can hold; a result file holds one record per line`
            : `a line longer than ${formatBytes(this.longest)}, more than a file may hold (--max-bytes N raises the limit); a result file holds one record per line`,
          this.number + 1,
        );
      if (newline < 0) {
        this.pending.push(bytes.subarray(start));
        this.pendingBytes += bytes.length - start;
        return;
      }
      this.emit(
        this.pendingBytes === 0 ? bytes.subarray(start, end) : this.joined(bytes.subarray(start, end)),
      );
      start = end + 1;
    }
  }

  /** The last line (after the last newline); the reader's `end` is the caller's to call. */
  end(): void {
    if (this.pendingBytes > 0) this.emit(this.joined(Buffer.alloc(0)));
  }

  private joined(last: Buffer): Buffer {
    const line = Buffer.concat([...this.pending, last]);
    this.pending = [];
    this.pendingBytes = 0;
    return line;
  }

  private emit(bytes: Buffer): void {
    this.number++;
    let start = 0;
    let end = bytes.length;
    if (this.number === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
    if (end > start && bytes[end - 1] === 13) end--;
    this.reader.line(utf8Text(bytes.subarray(start, end), this.path, { line: this.number }), this.number);
  }
}

/** The largest gzipped `.eval` archive unpacked in memory (an archive is read by position, which gzip does not allow). */
const MAX_GZIPPED_ARCHIVE = 2 ** 31;

/**
 * A gzipped `.eval` archive unpacked into one buffer of its exact size: a first pass counts its
 * bytes (refused past `maxBytes` and 2 GiB), a second fills the buffer, so that memory holds the
 * archive once, never its chunks and then their copy.
 */
export async function unpackedArchive(path: string, maxBytes = defaultMaxBytes()): Promise<Buffer> {
  const limit = Math.min(MAX_GZIPPED_ARCHIVE, maxBytes);
  let size = 0;
  const over = () =>
    fileError(
      path,
      `a gzipped .eval archive over ${formatBytes(limit)} unpacked, more than is unpacked in memory (${limit === MAX_GZIPPED_ARCHIVE ? '2 GiB at most' : '--max-bytes N raises the limit, up to 2 GiB'}): gunzip it first (an archive is read from the file one entry at a time)`,
    );
  await streamBytes(path, true, (bytes) => {
    size += bytes.length;
    if (size > limit) throw over();
  });
  const archive = Buffer.allocUnsafe(size);
  let filled = 0;
  await streamBytes(path, true, (bytes) => {
    if (filled + bytes.length > size) throw fileError(path, 'the file changed while it was read');
    bytes.copy(archive, filled);
    filled += bytes.length;
  });
  if (filled !== size) throw fileError(path, 'the file changed while it was read');
  return archive;
}
