import { isUtf8 } from 'node:buffer';
import * as zlib from 'node:zlib';
import { decompress as zstdDecompress } from 'fzstd';
import { fileError, ResultFileError } from './errors.ts';
import { parseJsonText } from './formats/json.ts';
import { formatBytes, MAX_TEXT_BYTES, MAX_TEXT_LABEL, type RandomAccess, utf8Text } from './source.ts';

/**
 * A zip archive read by position (PKWARE APPNOTE 6.3: the end of central directory record, its
 * zip64 form, the central directory, local file headers), one entry at a time: an Inspect `.eval`
 * log of any size is read in memory bounded by its largest entry. Python's `zipfile`, which
 * Inspect writes with, switches to the zip64 records past 65,535 entries or 4 GiB.
 */

interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate, 93 zstd. */
  method: number;
  compressedSize: number;
  size: number;
  crc: number;
  /** Where the entry's local file header starts. */
  headerOffset: number;
}

const END = 0x06054b50;
const END64 = 0x06064b50;
const END64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** A zip archive's first four bytes: `PK` and a local file header (3 4) or, empty, the end of the directory (5 6). */
export const isZip = (bytes: Uint8Array) =>
  bytes[0] === 0x50 &&
  bytes[1] === 0x4b &&
  ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6));

const broken = (path: string, detail: string) => fileError(path, `not a readable zip archive (${detail})`);

/** A little-endian unsigned 64-bit field as a number (exact up to 2^53, far beyond any file). */
const uint64 = (bytes: Buffer, at: number) => bytes.readUInt32LE(at) + bytes.readUInt32LE(at + 4) * 2 ** 32;

/** The end of central directory record: where the directory is and how many entries it holds. */
function directoryOf(source: RandomAccess, path: string): { offset: number; size: number; entries: number } {
  // the record is 22 bytes and ends the file but for a comment of at most 65,535 bytes
  const tailLength = Math.min(source.size, 22 + 0xffff);
  const tail = source.read(source.size - tailLength, tailLength);
  let at = tail.length - 22;
  while (at >= 0 && (tail.readUInt32LE(at) !== END || at + 22 + tail.readUInt16LE(at + 20) > tail.length))
    at--;
  if (at < 0) throw broken(path, 'no end of central directory record: the file is cut or is not a zip');
  let entries = tail.readUInt16LE(at + 10);
  let size = tail.readUInt32LE(at + 12);
  let offset = tail.readUInt32LE(at + 16);
  if (entries === 0xffff || size === 0xffffffff || offset === 0xffffffff) {
    const locatorAt = source.size - tailLength + at - 20;
    const locator = locatorAt >= 0 ? source.read(locatorAt, 20) : Buffer.alloc(0);
    if (locator.length < 20 || locator.readUInt32LE(0) !== END64_LOCATOR)
      throw broken(path, 'a zip64 archive without its zip64 end record locator');
    const record = source.read(uint64(locator, 8), 56);
    if (record.length < 56 || record.readUInt32LE(0) !== END64)
      throw broken(path, 'the zip64 end of central directory record is missing');
    entries = uint64(record, 32);
    size = uint64(record, 40);
    offset = uint64(record, 48);
  }
  if (offset + size > source.size) throw broken(path, 'the central directory lies past the end of the file');
  return { offset, size, entries };
}

/** How many times its size the central directory takes once read into entries, at most. */
const DIRECTORY_GROWTH = 4;

/**
 * The entries of a zip archive, in the order of its central directory.
 * @throws ResultFileError `not a readable zip archive (...)` for an archive that is cut or damaged.
 */
export function zipEntries(source: RandomAccess, path: string, maxBytes = MAX_TEXT_BYTES): ZipEntry[] {
  const { offset, size, entries: count } = directoryOf(source, path);
  if (size > MAX_TEXT_BYTES) throw broken(path, `a central directory over ${MAX_TEXT_LABEL}`);
  // each entry of at least 46 bytes becomes an object of about 150 with its name
  if (size * DIRECTORY_GROWTH > maxBytes)
    throw fileError(
      path,
      `a zip archive whose central directory (${formatBytes(size)}) would take more than the ${formatBytes(maxBytes)} a file may hold (--max-bytes N raises the limit)`,
    );
  const directory = source.read(offset, size);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > directory.length || directory.readUInt32LE(at) !== CENTRAL)
      throw broken(path, `central directory entry ${i + 1} of ${count} is damaged`);
    const nameLength = directory.readUInt16LE(at + 28);
    const extraLength = directory.readUInt16LE(at + 30);
    const commentLength = directory.readUInt16LE(at + 32);
    const name = directory.subarray(at + 46, at + 46 + nameLength);
    // names are compared whole: two that decode alike would read as one entry
    if (!isUtf8(name))
      throw broken(path, `central directory entry ${i + 1} of ${count} has a name that is not UTF-8`);
    const entry: ZipEntry = {
      name: name.toString('utf8'),
      method: directory.readUInt16LE(at + 10),
      crc: directory.readUInt32LE(at + 16),
      compressedSize: directory.readUInt32LE(at + 20),
      size: directory.readUInt32LE(at + 24),
      headerOffset: directory.readUInt32LE(at + 42),
    };
    // the zip64 extra field (id 1) holds, in this order, the fields the entry set to 0xffffffff
    let extra = at + 46 + nameLength;
    const extraEnd = extra + extraLength;
    while (extra + 4 <= extraEnd) {
      const id = directory.readUInt16LE(extra);
      const length = directory.readUInt16LE(extra + 2);
      if (id === 1) {
        let field = extra + 4;
        for (const key of ['size', 'compressedSize', 'headerOffset'] as const) {
          if (entry[key] !== 0xffffffff || field + 8 > extra + 4 + length) continue;
          entry[key] = uint64(directory, field);
          field += 8;
        }
      }
      extra += 4 + length;
    }
    entries.push(entry);
    at = extraEnd + commentLength;
  }
  return entries;
}

/** CRC-32 of the unpacked bytes (zlib.crc32, Node 20.15 on; earlier Node checks the size alone). */
const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/**
 * The unpacked bytes of one entry: stored, deflated or zstd-compressed, checked against the
 * size and CRC-32 the central directory records.
 */
function entryBytes(source: RandomAccess, entry: ZipEntry, path: string, maxBytes = MAX_TEXT_BYTES): Buffer {
  const fail = (detail: string) => fileError(path, `entry '${entry.name}': ${detail}`);
  if (entry.size > MAX_TEXT_BYTES)
    throw fail(`over ${MAX_TEXT_LABEL} unpacked, more than one string can hold`);
  if (entry.size > maxBytes)
    throw fail(
      `over ${formatBytes(maxBytes)} unpacked, more than a file may hold (--max-bytes N raises the limit)`,
    );
  const header = source.read(entry.headerOffset, 30);
  if (header.length < 30 || header.readUInt32LE(0) !== LOCAL) throw fail('its local header is damaged');
  const start = entry.headerOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  const packed = source.read(start, entry.compressedSize);
  if (packed.length < entry.compressedSize) throw fail('cut short: the file ends inside it');
  let bytes: Buffer;
  try {
    if (entry.method === 0) bytes = packed;
    else if (entry.method === 8)
      bytes = zlib.inflateRawSync(packed, { maxOutputLength: Math.min(MAX_TEXT_BYTES, maxBytes) });
    else if (entry.method === 93)
      bytes = Buffer.from(zstdDecompress(packed, new Uint8Array(entry.size))).subarray(0, entry.size);
    else
      throw fail(
        `compression method ${entry.method}, which this reader does not know (stored, deflate and zstd are read)`,
      );
  } catch (error) {
    if (error instanceof ResultFileError) throw error;
    throw fail(`cannot be decompressed (${(error as Error).message.split('\n')[0]})`);
  }
  if (bytes.length !== entry.size || (crc32 !== undefined && crc32(bytes) >>> 0 !== entry.crc))
    throw fail('damaged: its unpacked size or CRC-32 differs from the central directory');
  return bytes;
}

/** An archive's entries by name (a name written twice is read from its last entry, as Inspect reads it), and an entry's JSON. */
export function archiveJson(source: RandomAccess, path: string, maxBytes: number) {
  const byName = new Map(zipEntries(source, path, maxBytes).map((entry) => [entry.name, entry]));
  const read = (name: string) => {
    const text = utf8Text(entryBytes(source, byName.get(name)!, path, maxBytes), path, {
      what: `entry '${name}': `,
    });
    return parseJsonText(text, { path, maxBytes, what: `entry '${name}': ` });
  };
  return { byName, read };
}
