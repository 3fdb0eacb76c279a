import { closeSync, openSync, writeSync } from 'node:fs';
import { makeFolders } from './files.ts';
import { join } from 'node:path';
import pino from 'pino';
import { progressBar, type Progress } from './progress.ts';

/**
 * A run's logger: JSON lines (pino) into `<runDir>/log.jsonl` (`record`, keys such as
 * `losses/policy`), short lines on stderr (`say`), and a phase's `progress`.
 */
export interface RunLog {
  record(event: string, fields: Record<string, unknown>): void;
  say(line: string): void;
  progress(label: string, total: number): Progress;
  close(): void;
}

export function openRunLog(runDir: string, { quiet }: { quiet: boolean }): RunLog {
  makeFolders(runDir);
  const destination = syncFile(join(runDir, 'log.jsonl'));
  const logger = pino({ base: null, timestamp: pino.stdTimeFunctions.isoTime }, destination);
  return {
    record(event, fields) {
      logger.info({ event, ...fields });
    },
    say(line) {
      if (!quiet) process.stderr.write(`${line}\n`);
      logger.info({ event: 'say', line });
    },
    progress(label, total) {
      return progressBar(label, total, quiet ? { terminal: false } : { offTerminal: 'phases' });
    },
    close() {
      destination.close();
    },
  };
}

/**
 * pino's destination for a run log: each line written at once with `writeSync`, so that a failed
 * write (ENOSPC) fails the run; pino's own sync destination retries it for ever on a full disk.
 */
function syncFile(path: string) {
  let fd: number | undefined = openSync(path, 'a');
  return {
    write(line: string): void {
      if (fd === undefined) throw new Error(`${path}: the run log is closed`);
      const bytes = Buffer.from(line);
      for (let offset = 0; offset < bytes.length;) {
        const written = writeSync(fd, bytes, offset);
        if (written === 0) throw new Error(`${path}: the file system took no bytes of a log line`);
        offset += written;
      }
    },
    close(): void {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
