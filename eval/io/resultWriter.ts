import { writeFileAtomic } from '../../lib/atomic.ts';

/** What an episode record must carry to become a result-file row. */
interface EpisodeRow {
  task: string;
  sample: number;
  success: boolean;
}

/**
 * Writes an evaluation (agent/evaluate.ts's `Evaluation`) as a result file (docs/METRICS.md,
 * "Result files"), atomically: the provenance header line, then one row per episode record:
 * `task`, `sample`, `passed` (the episode's success) first, then every other field as it is.
 */
export function writeEvaluation(
  path: string,
  evaluation: { records: readonly EpisodeRow[]; provenance: { harness: unknown } & object },
): void {
  const { harness, ...provenance } = evaluation.provenance;
  const rows = evaluation.records.map(({ task, sample, success, ...rest }) => ({
    task,
    sample,
    passed: success,
    ...rest,
  }));
  const lines = [JSON.stringify({ harness, provenance }), ...rows.map((row) => JSON.stringify(row))];
  writeFileAtomic(path, `${lines.join('\n')}\n`);
}
