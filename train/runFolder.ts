import { existsSync, readdirSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { CHECKPOINT_FORMAT } from '../agent/index.ts';
import { InputError } from '../lib/errors.ts';
import { fileKind, readRegularFile } from '../lib/files.ts';
import { configDifferences, type RLConfig } from './config.ts';
import { RunFolderError } from './runLock.ts';

/**
 * What a training writes into its run folder: its config, log, summary and lock, the `step-N`
 * snapshots, and the temporaries of interrupted writes (`removeStaleTemporaries` clears those).
 */
const RUN_ENTRY = /^(config\.json|log\.jsonl|summary\.json|\.lock|step-\d+|\.[^/]+\.tmp(\.old)?)$/;

/**
 * Refuses a path that training must not write into: anything but a folder (a file, a FIFO, a
 * symlink loop), or a folder that holds something no training writes (a checkpoint folder given
 * as `--run`, a results folder, a source tree). A missing folder or an empty one is fine: the
 * run starts there. Called before the lock is taken, so a refused folder gets nothing written.
 */
export function checkRunFolder(runDir: string): void {
  let stats: Stats;
  try {
    stats = statSync(runDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    throw new RunFolderError(`${runDir}: cannot use as a run folder (${code ?? (error as Error).message})`);
  }
  if (!stats.isDirectory())
    throw new RunFolderError(`${runDir} is ${fileKind(stats)}, not a run folder; give a folder's path`);
  const foreign = readdirSync(runDir).filter((name) => !RUN_ENTRY.test(name));
  if (foreign.length === 0) return;
  const checkpoint = foreign.includes('manifest.json') || foreign.includes('weights.bin');
  throw new RunFolderError(
    `${runDir} is not a training run's folder: it holds ${foreign.slice(0, 4).join(', ')}` +
      `${foreign.length > 4 ? ', ...' : ''}${checkpoint ? ' (a checkpoint folder)' : ''}; ` +
      'give a run folder (one that holds config.json and step-N snapshots, e.g. runs/default) or a new path',
  );
}

/** The fields of a snapshot's manifest that tie it to its run. */
interface SnapshotFields {
  format?: unknown;
  step?: unknown;
  seed?: unknown;
  config?: unknown;
}

/** The first `shown` fields in which a recorded config differs from the run's (`configDifferences`), or undefined. */
function differences(
  before: Record<string, unknown>,
  config: RLConfig,
  { shown, nowLabel }: { shown: number; nowLabel: string },
): string | undefined {
  const now = config as unknown as Record<string, unknown>;
  const differing = configDifferences(before, now);
  if (differing.length === 0) return undefined;
  const listed = differing
    .slice(0, shown)
    .map((key) => `${key} ${JSON.stringify(before[key])} there, ${JSON.stringify(now[key])} ${nowLabel}`);
  return `${listed.join('; ')}${differing.length > shown ? '; ...' : ''}`;
}

/** The config recorded in a run's config.json (parsed as `value`); a RunFolderError when it holds none. */
function recordedConfig(value: unknown, configPath: string): Record<string, unknown> {
  const config = (value as { config?: unknown } | null)?.config;
  if (config === null || typeof config !== 'object')
    throw new RunFolderError(
      `${configPath} is not a run's config; delete the folder or choose another (train's --name, an experiment's --run)`,
    );
  return config as Record<string, unknown>;
}

/** Refuses (RunFolderError) a run folder whose config.json holds another recipe, naming the differing fields. */
export function refuseOtherRecipe(runDir: string, config: RLConfig): void {
  const configPath = join(runDir, 'config.json');
  if (!existsSync(configPath)) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readRegularFile(configPath, configPath));
  } catch (error) {
    if (error instanceof InputError) throw error; // a FIFO or an unreadable file
    // not JSON: reported by recordedConfig
  }
  const differing = differences(recordedConfig(parsed, configPath), config, { shown: 4, nowLabel: 'here' });
  if (differing !== undefined)
    throw new RunFolderError(
      `${runDir} holds a run with another config (${differing}); choose another folder (train's --name, an experiment's --run) or delete the folder`,
    );
}

/**
 * Why the snapshot `step-N` of a run of `config` is not that run's, or undefined when it is: its
 * manifest must give that step, the run's seed and the run's config (but for `steps`). A snapshot
 * copied in from another run would otherwise be resumed from or measured as this run's.
 */
export function snapshotMismatch(
  manifest: SnapshotFields,
  config: RLConfig,
  step: number,
): string | undefined {
  if (manifest.step !== step) return `it is step ${JSON.stringify(manifest.step)}, not ${step}`;
  if (manifest.seed !== config.seed)
    return `its seed is ${JSON.stringify(manifest.seed)}, the run's is ${config.seed}`;
  if (manifest.config === null || typeof manifest.config !== 'object')
    return 'its manifest records no config';
  const differing = differences(manifest.config as Record<string, unknown>, config, {
    shown: 3,
    nowLabel: 'in the run',
  });
  return differing === undefined ? undefined : `it was trained with another config (${differing})`;
}

/** The refusal of a snapshot that is not its run's, naming it and what to do. */
export function foreignSnapshotError(dir: string, reason: string): RunFolderError {
  return new RunFolderError(
    `${dir} is not a snapshot of this run: ${reason}; delete it (the run retrains it) or use its own run`,
  );
}

/**
 * Checks that each of the run's snapshots at `steps` is the run's own (`snapshotMismatch`
 * against the run's config.json), reading only the manifests. Throws a RunFolderError naming
 * the first foreign snapshot.
 */
export function checkRunSnapshots(runDir: string, steps: readonly number[]): void {
  const configPath = join(runDir, 'config.json');
  if (!existsSync(configPath))
    throw new RunFolderError(
      `${runDir} holds snapshots but no config.json: not a training run's folder (train one with npm run train, or give its folder)`,
    );
  const config = recordedConfig(parseJson(readRegularFile(configPath, configPath), configPath), configPath);
  for (const step of steps) {
    const dir = join(runDir, `step-${step}`);
    const manifestPath = join(dir, 'manifest.json');
    const manifest = parseJson(readRegularFile(manifestPath, manifestPath), manifestPath) as SnapshotFields;
    // A manifest that is no checkpoint's at all is the loader's to report (as corrupt), not a foreign snapshot.
    if (manifest?.format !== CHECKPOINT_FORMAT) continue;
    const reason = snapshotMismatch(manifest ?? {}, config as RLConfig, step);
    if (reason !== undefined) throw foreignSnapshotError(dir, reason);
  }
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RunFolderError(`${path} is not valid JSON; delete it (the run retrains it)`);
  }
}
