import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';
import { readResults } from '../eval/io/index.ts';
import { UsageError } from '../lib/errors.ts';
import { Rng } from '../lib/rng.ts';
import { timedAsync } from './best.ts';

/**
 * Memory of reading an Inspect `.eval` log: synthetic archives (deflated entries of about 1 MiB of
 * mostly incompressible JSON each) read by `readResults` in a fresh process, which reports its
 * peak resident memory. TINYAGENT_BENCH_IO_MB sets the sizes in MB (default 64,256).
 */

const ENTRY_TEXT = 1 << 20;
const MB = 1e6;

/** A random base64 text of `bytes` characters: deflate keeps it at about 3/4 of its size. */
function randomText(bytes: number, rng: Rng): Buffer {
  const raw = Buffer.alloc(Math.ceil((bytes * 3) / 4));
  for (let i = 0; i < raw.length; i += 4) raw.writeUInt32LE(rng.uint32(), Math.min(i, raw.length - 4));
  return Buffer.from(raw.toString('base64').slice(0, bytes));
}

/**
 * Writes an `.eval` archive of about `targetBytes`: header.json and deflated sample entries, the
 * large message deflated once and reused in every entry (sync-flushed raw deflate blocks chain).
 */
function writeEval(path: string, targetBytes: number, rng: Rng): { samples: number; bytes: number } {
  const flushed = (data: Buffer) =>
    zlib.deflateRawSync(data, { level: 1, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const padding = randomText(ENTRY_TEXT, rng);
  const paddingDeflated = flushed(padding);
  const fd = openSync(path, 'w');
  const central: Buffer[] = [];
  let offset = 0;
  let entries = 0;
  const write = (bytes: Buffer) => {
    writeSync(fd, bytes);
    offset += bytes.length;
  };
  const add = (name: string, parts: Buffer[], size: number, crc: number) => {
    const nameBytes = Buffer.from(name);
    const compressed = parts.reduce((sum, part) => sum + part.length, 0);
    // The fields from "version needed" to the extra field's length, the same in both headers.
    const fields = Buffer.alloc(26);
    fields.writeUInt16LE(20, 0);
    fields.writeUInt16LE(8, 4);
    fields.writeUInt32LE(crc >>> 0, 10);
    fields.writeUInt32LE(compressed, 14);
    fields.writeUInt32LE(size, 18);
    fields.writeUInt16LE(nameBytes.length, 22);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    fields.copy(local, 4);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    fields.copy(record, 6);
    record.writeUInt32LE(offset, 42);
    central.push(record, nameBytes);
    write(local);
    write(nameBytes);
    for (const part of parts) write(part);
    entries++;
  };
  const header = Buffer.from(
    JSON.stringify({
      version: 2,
      status: 'success',
      eval: { task: 'bench', model: 'mockllm/model' },
      results: { total_samples: 0, scores: [] },
    }),
  );
  add('header.json', [zlib.deflateRawSync(header)], header.length, zlib.crc32(header));
  let samples = 0;
  while (offset < targetBytes) {
    samples++;
    const id = samples;
    const before = Buffer.from(`{"id":${id},"epoch":1,"input":"q","messages":[{"role":"tool","content":"`);
    const after = Buffer.from(`"}],"scores":{"match":{"value":"${id % 3 === 0 ? 'I' : 'C'}"}}}`);
    const crc = zlib.crc32(after, zlib.crc32(padding, zlib.crc32(before)));
    add(
      `samples/${id}_epoch_1.json`,
      [flushed(before), paddingDeflated, zlib.deflateRawSync(after)],
      before.length + padding.length + after.length,
      crc,
    );
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries, 8);
  end.writeUInt16LE(entries, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  write(directory);
  write(end);
  closeSync(fd);
  return { samples, bytes: offset };
}

/** Run in a fresh process: reads the file and prints its peak resident memory and the rows. */
async function readAndReport(path: string): Promise<void> {
  const baseline = process.memoryUsage().rss;
  const { value: file, seconds } = await timedAsync(() => readResults(path));
  process.stdout.write(
    `${JSON.stringify({ rows: file.rows.length, baseline, peak: process.resourceUsage().maxRSS * 1024, seconds })}\n`,
  );
}

export async function run(say: (line: string) => void): Promise<Record<string, number | string>> {
  const raw = process.env['TINYAGENT_BENCH_IO_MB'] ?? '64,256';
  const sizes = raw.split(',').map((part) => Number(part.trim()));
  if (sizes.some((size) => !Number.isInteger(size) || size < 1 || size > 100_000))
    throw new UsageError(`TINYAGENT_BENCH_IO_MB must list sizes in MB from 1 to 100000, got '${raw}'`);
  const folder = mkdtempSync(join(tmpdir(), 'bench-io-'));
  const figures: Record<string, number | string> = {};
  const rng = new Rng('bench/io');
  try {
    for (const size of sizes) {
      const path = join(folder, `bench-${size}.eval`);
      const { samples, bytes } = writeEval(path, size * MB, rng);
      // tsx resolved from this file, so that the child starts from any working folder
      const output = execFileSync(
        process.execPath,
        ['--import', import.meta.resolve('tsx'), fileURLToPath(import.meta.url), path],
        { encoding: 'utf8' },
      );
      const { rows, baseline, peak, seconds } = JSON.parse(output) as Record<
        'rows' | 'baseline' | 'peak' | 'seconds',
        number
      >;
      rmSync(path);
      say(
        `.eval ${(bytes / MB).toFixed(0)} MB, ${samples} samples (${rows} rows): peak RSS ${(peak / MB).toFixed(0)} MB, ${((peak - baseline) / MB).toFixed(0)} MB above the process before reading, ${seconds.toFixed(1)} s`,
      );
      figures[`evalMB_${size}`] = Math.round(bytes / MB);
      figures[`evalSamples_${size}`] = samples;
      figures[`evalRows_${size}`] = rows;
      figures[`evalPeakRssMB_${size}`] = Math.round(peak / MB);
      figures[`evalRssAboveBaselineMB_${size}`] = Math.round((peak - baseline) / MB);
      figures[`evalReadSeconds_${size}`] = seconds;
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  return figures;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] !== undefined)
  await readAndReport(process.argv[2]);
