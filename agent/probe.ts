import { BUG_TYPES, firstEditCounts, makeTasks, type Task } from '../gym/index.ts';
import { evaluate } from './evaluate.ts';

/** One probed change of the task: its success count over the episodes and its first-edit op counts. */
export interface ProbeRow {
  change: string;
  successes: number;
  episodes: number;
  firstEdit: Record<string, number>;
}

/** Probe tasks get ids far from the 30 tasks', so that no cache keyed by id mixes them up. */
const PROBE_ID_BASE = 10_000;

/** The task as it is, under each other bug type's spec (its own type first), and with no spec; ids of their own. */
function probeVariants(task: Task): Array<{ change: string; task: Task }> {
  const pool = makeTasks('all');
  const variants: Array<{ change: string; task: Task }> = [
    { change: 'as it is', task: { ...task, id: PROBE_ID_BASE } },
  ];
  const types = [task.type, ...BUG_TYPES.filter((type) => type !== task.type)];
  for (const type of types) {
    const donor = pool.find(
      (other) => other.type === type && other.name !== task.name && other.split === 'train',
    );
    if (donor !== undefined)
      variants.push({
        change: `spec of ${donor.name} (${donor.type})`,
        task: { ...task, id: PROBE_ID_BASE + variants.length, spec: donor.spec },
      });
  }
  variants.push({ change: 'no spec', task: { ...task, id: PROBE_ID_BASE + variants.length, spec: '' } });
  return variants;
}

/**
 * Which surface features does a checkpoint key on? Plays one task under controlled changes of
 * what the policy reads, with surface variation off so that each change is exactly the one
 * named, and reports the success count and first-edit ops of each:
 * - the task as it is;
 * - its spec replaced by the spec of another task (one of each bug type, its own type first);
 * - no spec at all.
 * A policy that repairs by reading the bug site keeps its first edit when the spec changes; one
 * that memorised "this spec -> this op" follows the spec (docs/TRAINING.md reports both).
 */
export async function probeCheckpoint({
  checkpoint,
  task,
  episodes,
  seed,
}: {
  checkpoint: string;
  task: Task;
  episodes: number;
  seed: number;
}): Promise<ProbeRow[]> {
  const rows: ProbeRow[] = [];
  for (const variant of probeVariants(task)) {
    const result = await evaluate({
      checkpoint,
      harness: { varySurface: false },
      tasks: [variant.task],
      episodes,
      seed,
    });
    rows.push({
      change: variant.change,
      successes: result.perTask[0]!.successes,
      episodes,
      firstEdit: firstEditCounts(result.records),
    });
  }
  return rows;
}
