import { writeFileAtomic } from '../../lib/atomic.ts';
import type { ResultRow } from './resultFile.ts';

/** One sample as written: the reader's row without its bookkeeping (line number, extra fields), plus any extra fields. */
export type ResultSample = Omit<ResultRow, 'line' | 'extra'> & Record<string, unknown>;

/** What an episode record must carry to become a result-file row. */
export interface EpisodeRow {
  task: string;
  sample: number;
  success: boolean;
}

/**
 * The one conversion from episode records to result-file rows: `task`, `sample`, `passed` (the
 * episode's success) first, then every other field of the record as it is (env seed, sampling
 * key, reward, submitted, public and hidden outcome, first edit op, turns, read calls, ...).
 */
export function resultRows<T extends EpisodeRow>(records: readonly T[]): ResultSample[] {
  return records.map(({ task, sample, success, ...rest }) => ({ task, sample, passed: success, ...rest }));
}

/** Writes samples as a result file (docs/METRICS.md, "Result files"), atomically: the harness header line, then one row per sample. */
export function writeResultFile(
  path: string,
  rows: readonly ResultSample[],
  header: Record<string, unknown> & { harness: unknown },
): void {
  const { harness, ...rest } = header;
  const lines = [JSON.stringify({ harness, ...rest }), ...rows.map((row) => JSON.stringify(row))];
  writeFileAtomic(path, `${lines.join('\n')}\n`);
}

/** What `writeEvaluation` needs of an evaluation (agent/evaluate.ts's `Evaluation`): its episode records and provenance. */
export interface EvaluationLike {
  records: readonly EpisodeRow[];
  provenance: { harness: unknown } & object;
}

/** Writes an evaluation as a result file: the provenance header, then one row per episode with every field of its record. */
export function writeEvaluation(path: string, evaluation: EvaluationLike): void {
  const { harness, ...provenance } = evaluation.provenance;
  writeResultFile(path, resultRows(evaluation.records), { harness, provenance });
}
