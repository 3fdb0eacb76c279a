import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';

/**
 * A run's logger: JSON lines (pino) into `<runDir>/log.jsonl`, and short human lines on
 * stderr via `say`. With no run folder, only the human lines are written.
 */
export interface RunLog {
  /** Structured record, namespaced keys such as `losses/policy` or `charts/passRate`. */
  record(event: string, fields: Record<string, unknown>): void;
  /** A short line for the person at the terminal (stderr, so stdout stays machine-readable). */
  say(line: string): void;
  close(): void;
}

export function openRunLog(runDir: string | undefined, { quiet = false }: { quiet?: boolean } = {}): RunLog {
  let logger: Logger | undefined;
  let destination: ReturnType<typeof pino.destination> | undefined;
  if (runDir !== undefined) {
    mkdirSync(runDir, { recursive: true });
    destination = pino.destination({ dest: join(runDir, 'log.jsonl'), sync: true, append: true });
    logger = pino({ base: null, timestamp: pino.stdTimeFunctions.isoTime }, destination);
  }
  return {
    record(event, fields) {
      logger?.info({ event, ...fields });
    },
    say(line) {
      if (!quiet) process.stderr.write(`${line}\n`);
      logger?.info({ event: 'say', line });
    },
    close() {
      destination?.flushSync();
    },
  };
}
