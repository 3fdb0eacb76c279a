import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';

/**
 * Writes a file atomically: the content goes to a temporary file in the same folder, which is
 * then renamed over the target, so a reader never sees a half-written file and an interrupted
 * write leaves the old file (or none) in place.
 */
let writeCounter = 0;

export function writeFileAtomic(path: string, content: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  // pid and a counter: two writers (processes, or calls within one) never share a temporary file.
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${(writeCounter += 1)}.tmp`);
  try {
    writeFileSync(temporary, content);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Writes `value` as pretty JSON with a trailing newline, atomically. */
export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}
