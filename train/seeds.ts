import { join } from 'node:path';
import { firstEditCounts, type TaskCount } from '../gym/index.ts';
import { evaluate } from '../agent/index.ts';
import type { RunLog } from '../lib/log.ts';
import { splitTasks, type RLConfig } from './config.ts';
import { snapshotDir, trainSnapshots, type TrainSummary } from './run.ts';

/** One checkpoint of a seed's run, measured on the held-out tasks. */
export interface SeedCheckpoint {
  step: number;
  checksum: string;
  passAt1: number;
  perTask: TaskCount[];
  /** Each task's first edits (op -> episodes), keyed by task name: which repair a task's episodes try. */
  firstEdit: Record<string, Record<string, number>>;
}

/** The held-out measurement of one seed's final checkpoint, and of its base agent (step 0) on the same episodes. */
export interface SeedResult extends SeedCheckpoint {
  seed: number;
  runDir: string;
  summary: TrainSummary;
  base: SeedCheckpoint;
}

export interface SeedsOptions {
  runsDir: string;
  openLog: (runDir: string) => RunLog;
  /** Episodes per held-out task in the final measurement. */
  episodes: number;
  /** Seed of the final measurement's episodes (the same for every run, so the runs are paired). */
  evalSeed: number;
}

/** The run folder of seed `seed` when several seeds are trained: `runs/seed-N`. */
export function seedRunDir(runsDir: string, seed: number): string {
  return join(runsDir, `seed-${seed}`);
}

/**
 * Trains the recipe once per seed, one after another, each into `runs/seed-N` (each resumes
 * like a single run; with a `baseSeed`, each after the first takes the first's step 0 instead of
 * behaviour cloning, the same bytes), then measures every final checkpoint and its base agent
 * (step 0) through `evaluate` on the tasks a run's `evalPass` measures (`splitTasks`: the
 * held-out tasks, or the development split under `devSplit`) with one evaluation seed, so the
 * seeds are compared on the same episodes.
 */
export async function trainSeeds(
  config: RLConfig,
  seeds: readonly number[],
  options: SeedsOptions,
): Promise<SeedResult[]> {
  const results: SeedResult[] = [];
  const { heldOut } = splitTasks(config);
  for (const seed of seeds) {
    const runDir = seedRunDir(options.runsDir, seed);
    const log = options.openLog(runDir);
    let summary: TrainSummary;
    try {
      log.say(`seed ${seed} of ${seeds.join(', ')}: training ${runDir}`);
      // Seeds of one baseSeed share the first seed's base agent instead of each cloning its own.
      const shared = config.baseSeed === undefined ? undefined : results[0]?.runDir;
      summary = await trainSnapshots(
        { ...config, seed },
        { runDir, log, baseAgent: shared === undefined ? undefined : snapshotDir(shared, 0) },
      );
    } finally {
      log.close();
    }
    const measure = async (step: number): Promise<SeedCheckpoint> => {
      const { passAt1, perTask, provenance, records } = await evaluate({
        checkpoint: snapshotDir(runDir, step),
        tasks: heldOut,
        episodes: options.episodes,
        seed: options.evalSeed,
      });
      const firstEdit = Object.fromEntries(
        perTask.map((count) => [
          count.name,
          firstEditCounts(records.filter((record) => record.task === count.name)),
        ]),
      );
      return { step, checksum: provenance.checkpoint?.checksum ?? '', passAt1, perTask, firstEdit };
    };
    results.push({ seed, runDir, summary, ...(await measure(config.steps)), base: await measure(0) });
  }
  return results;
}

/** The per-seed table: pass@1 and each task's count, the base agent's pass@1, the spread (max - min) at the end. */
export function seedTable(results: readonly SeedResult[], { split }: { split: string }): string {
  if (results.length === 0) return 'no seeds';
  const tasks = results[0]!.perTask.map((count) => count.name);
  const width = Math.max(...tasks.map((task) => task.length), 4);
  const lines = [
    `${split} pass@1 at step ${results[0]!.step}, ${results[0]!.perTask[0]?.episodes ?? 0} episodes per task:`,
    `${'seed'.padEnd(6)}${'pass@1'.padEnd(8)}${tasks.map((task) => task.padEnd(width + 1)).join('')}base (step 0)`,
    ...results.map(
      (result) =>
        `${String(result.seed).padEnd(6)}${result.passAt1.toFixed(3).padEnd(8)}${result.perTask.map((count) => String(count.successes).padEnd(width + 1)).join('')}${result.base.passAt1.toFixed(3)}`,
    ),
  ];
  const rates = results.map((result) => result.passAt1);
  lines.push(
    `spread (max - min) ${(Math.max(...rates) - Math.min(...rates)).toFixed(3)}; mean ${(rates.reduce((sum, rate) => sum + rate, 0) / rates.length).toFixed(3)}`,
  );
  return lines.join('\n');
}
