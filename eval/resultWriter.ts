import { writeFileAtomic } from '../lib/atomic.ts';

export interface ResultRow {
  task: string;
  sample: number;
  passed: boolean;
  turn?: number;
  run?: string;
}

/**
 * Writes an evaluation's samples in the result-file format that `tinyagent metrics`, `compare`
 * and `diagnose` read (docs/METRICS.md): JSONL, a first line `{"harness": {...}}` recording the
 * harness and provenance, then one row per sample. Written atomically.
 */
export function writeResultFile(path: string, rows: readonly ResultRow[], header: Record<string, unknown> & { harness: unknown }): void {
  const { harness, ...rest } = header;
  const lines = [JSON.stringify({ harness, ...rest }), ...rows.map((row) => JSON.stringify(row))];
  writeFileAtomic(path, `${lines.join('\n')}\n`);
}
