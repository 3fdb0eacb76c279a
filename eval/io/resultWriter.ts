import { writeFileAtomic } from '../../lib/atomic.ts';
import type { ResultRow } from './resultFile.ts';

/** One sample as written: the reader's row without its bookkeeping (line number, extra fields). */
export type ResultSample = Omit<ResultRow, 'line' | 'extra'>;

/**
 * Writes an evaluation's samples in the result-file format that `tinyagent metrics`, `compare`
 * and `diagnose` read (docs/METRICS.md): JSONL, a first line `{"harness": {...}}` recording the
 * harness and provenance, then one row per sample. Written atomically.
 */
export function writeResultFile(path: string, rows: readonly ResultSample[], header: Record<string, unknown> & { harness: unknown }): void {
  const { harness, ...rest } = header;
  const lines = [JSON.stringify({ harness, ...rest }), ...rows.map((row) => JSON.stringify(row))];
  writeFileAtomic(path, `${lines.join('\n')}\n`);
}
