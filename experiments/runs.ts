import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  evaluate,
  fingerprint,
  fingerprintDifferences,
  initBackend,
  type EvaluateOptions,
  type Evaluation,
} from '../agent/index.ts';
import { openRunLog } from '../lib/log.ts';
import {
  checkRunFolder,
  checkRunSnapshots,
  configDifferences,
  defaultRLConfig,
  playOnTwoCores,
  seedRunDir,
  SMOKE_CONFIG,
  snapshotDir,
  trainSnapshots,
} from '../train/index.ts';
import { InputError } from '../lib/errors.ts';
import { readRegularFile } from '../lib/files.ts';
import { parseExperimentFlags, type BatchResults } from './common.ts';
import { ROOT } from '../lib/paths.ts';
import { fingerprintOf, sayBackendNotice } from './contract.ts';

/**
 * What the experiments on trained checkpoints share: their command-line options, the training
 * run they read (trained first when its checkpoints are missing), and where they write.
 */
export interface RunOptions {
  /** The training run whose checkpoints are measured (default runs/default). */
  run: string;
  /** Seed of the experiment's own draws (evaluation episodes, bootstraps). */
  seed: number;
  /** A seconds-long version: a tiny training run (snapshots every step to step 8) and few episodes. */
  smoke: boolean;
  /** Where results go: results/ for runs/default, results/<run name>/ for any other run. */
  outDir: string;
  /** In a batch, the sections it has run so far: a section quotes their files (`resultsToQuote`). */
  batch?: BatchResults;
}

const DEFAULT_RUN = 'runs/default';

/** An experiment's options before its own defaults: without `--seed` each experiment draws with the seed its committed results were made with. */
export type ExperimentOptions = Omit<RunOptions, 'seed'> & { seed?: number };

/**
 * Parses `--run DIR --seed S --smoke --out DIR`; a bad flag is a UsageError (`runScript` reports
 * it in one line, exit 2). `--out` puts the results in another folder than the run's. The seed is
 * left out unless given: each experiment has its own default.
 */
export function parseRunOptions(argv: string[]): ExperimentOptions {
  const values = parseExperimentFlags(argv, { run: true });
  const smoke = values.smoke === true;
  const run = `${values.run ?? DEFAULT_RUN}${smoke ? '-smoke' : ''}`;
  const outDir = values.out !== undefined ? resolve(values.out) : resultsDir(run);
  return { run, smoke, outDir, ...(values.seed !== undefined ? { seed: values.seed } : {}) };
}

/**
 * Fills the defaults: runs/default, seed 1, full size, the run's results folder. A smoke run from
 * the command line trains and reads `<run>-smoke` and writes `results/<run name>-smoke/`, so it
 * never touches a real run or the committed results.
 */
export function runOptions(options: Partial<RunOptions> = {}): RunOptions {
  const smoke = options.smoke ?? false;
  const run = options.run ?? DEFAULT_RUN;
  return {
    run,
    seed: options.seed ?? 1,
    smoke,
    outDir: options.outDir ?? resultsDir(run),
    ...(options.batch !== undefined ? { batch: options.batch } : {}),
  };
}

/** The training seed of a run that has to be trained: the N of a folder named seed-N or seedN, else 0 (the default run's). */
export function trainingSeedOf(run: string): number {
  const match = /seed-?(\d+)(-smoke)?$/.exec(basename(run));
  return match === null ? 0 : Number(match[1]);
}

/** results/ for the default run, results/<run name>/ for another, so a seed rerun never overwrites the defaults. */
export function resultsDir(run: string): string {
  return resolve(run) === resolve(DEFAULT_RUN) || resolve(run) === resolve(ROOT, DEFAULT_RUN)
    ? join(ROOT, 'results')
    : join(ROOT, 'results', basename(run));
}

/** The checkpoint step that stands for the chapter's `step` (smoke runs are ten times shorter). */
export function stepOf(step: number, smoke: boolean): number {
  return smoke ? step / 10 : step;
}

/** The recipe of a run: the default training run's, or the smoke one. */
function runConfig(options: {
  seed: number;
  smoke: boolean;
  overrides?: Record<string, unknown> | undefined;
}) {
  const { seed, smoke, overrides = {} } = options;
  return defaultRLConfig({ seed, ...overrides, ...(smoke ? SMOKE_CONFIG : {}) });
}

/**
 * The folder of the run's checkpoint at the chapter's `step`s, training the run first (with the
 * progress bar and log of `npm run train`) when any of them is missing. Training resumes from
 * what is there. The training seed is the one the folder's name gives (`trainingSeedOf`) unless
 * `seed` says otherwise.
 */
export async function ensureRun(
  runDir: string,
  options: { seed?: number; smoke: boolean; steps: readonly number[]; overrides?: Record<string, unknown> },
): Promise<(step: number) => string> {
  const { seed = trainingSeedOf(runDir), smoke, steps, overrides } = options;
  // A smoke run never trains into a full run's folder (README: `runs/<name>-smoke`), whichever
  // experiment named the folder: every run an experiment trains comes through here.
  if (smoke && !basename(runDir).endsWith('-smoke'))
    throw new Error(`a smoke run trains only into a folder named <name>-smoke; ${runDir} is not one`);
  // Before anything is written: a checkpoint folder or a FIFO given as --run is refused, not trained into.
  checkRunFolder(runDir);
  await initBackend();
  sayBackendNotice(join(ROOT, 'results'));
  const at = (step: number) => snapshotDir(runDir, stepOf(step, smoke));
  const otherCode = otherCodeOf(steps.map(at));
  if (otherCode !== undefined) {
    if (retrainOtherCode) {
      await trainAgain(runDir, otherCode, () => ensureRun(runDir, options));
      return at;
    }
    if (!noticedRuns.has(runDir)) {
      noticedRuns.add(runDir);
      process.stderr.write(
        `notice: ${runDir} was trained by other code than this (${otherCode}); its checkpoints give that code's numbers (npm run test:repro -- --rebaseline trains it again)\n`,
      );
    }
  }
  if (steps.some((step) => !existsSync(join(at(step), 'manifest.json')))) {
    const log = openRunLog(runDir, { quiet: smoke });
    try {
      log.say(`${runDir}: checkpoints missing; training them first (seed ${seed})`);
      await trainSnapshots(runConfig({ seed, smoke, overrides }), { runDir, log });
    } finally {
      log.close();
    }
  }
  // Every snapshot measured must be the run's own: one copied in from another run is refused.
  checkRunSnapshots(
    runDir,
    steps.map((step) => stepOf(step, smoke)),
  );
  return at;
}

/**
 * --rebaseline: the run, trained by other code (`otherCode` says how), is trained again by this
 * code (`train`); the old one is set aside and goes only once the new one is made, and comes back
 * if training fails.
 */
async function trainAgain(runDir: string, otherCode: string, train: () => Promise<unknown>): Promise<void> {
  const aside = `${runDir}.other-code-${process.pid}`;
  process.stderr.write(`${runDir} was trained by other code (${otherCode}); training it again\n`);
  renameSync(runDir, aside);
  try {
    await train();
  } catch (error) {
    rmSync(runDir, { recursive: true, force: true });
    renameSync(aside, runDir);
    throw error;
  }
  rmSync(aside, { recursive: true, force: true });
}

let retrainOtherCode = false;
const noticedRuns = new Set<string>();

/**
 * Whether `ensureRun` trains again a run whose checkpoints were made by other code (their
 * manifests' fingerprints differ from this process's, or record none): `test:repro --rebaseline`
 * sets it; otherwise such a run is used as it is, with a notice.
 */
export function setRetrainOtherCode(retrain: boolean): void {
  retrainOtherCode = retrain;
}

/** How the existing checkpoints among `folders` differ from this process's fingerprint (the first that does), or undefined when none does. */
function otherCodeOf(folders: readonly string[]): string | undefined {
  const current = fingerprint();
  for (const folder of folders) {
    const path = join(folder, 'manifest.json');
    if (!existsSync(path)) continue;
    let manifest: unknown;
    try {
      manifest = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      continue; // a damaged manifest is checkRunSnapshots' to report
    }
    const recorded = fingerprintOf(manifest);
    if (recorded === undefined) return `${path} records no fingerprint`;
    const differs = fingerprintDifferences(recorded, current);
    if (differs.length > 0) return differs.join(', ');
  }
  return undefined;
}

/** The folder of a type-split run beside `run`: 17.6's `type-zero` for zero; smoke runs apart from full ones. */
export function typeRunDir(run: string, type: string, smoke: boolean): string {
  return join(dirname(run), `type-${type}${smoke ? '-smoke' : ''}`);
}

/**
 * The type-split run that holds out bug type `type` (17.6's and ex-4's: one folder, so one
 * definition), trained to step 30 with `run`'s training seed when its checkpoints are missing.
 */
export async function ensureTypeRun(
  run: string,
  type: string,
  smoke: boolean,
): Promise<{ dir: string; at: (step: number) => string }> {
  const dir = typeRunDir(run, type, smoke);
  const overrides = { split: 'type', heldOutType: type, steps: 30 };
  return { dir, at: await ensureRun(dir, { seed: trainingSeedOf(run), smoke, steps: [0, 30], overrides }) };
}

/**
 * The run of training seed `seed` among the seed runs beside `run` (`<runs>/seed-N`, as
 * `npm run train -- --seeds 0,1,2,3` writes them). When `run` is itself that seed's run of the
 * recipe (the default run is seed 0's: same seed, same config), it is used rather than trained
 * again: training is deterministic, so the two would hold the same checkpoints.
 */
export function seedRun(run: string, seed: number, smoke: boolean): string {
  // Smoke seed runs have folders of their own, as the smoke default run has (`<run>-smoke`), so
  // that a smoke study and a full one never meet in one folder.
  const besideRun = `${seedRunDir(dirname(run), seed)}${smoke ? '-smoke' : ''}`;
  if (seed !== trainingSeedOf(run)) return besideRun;
  const configPath = join(run, 'config.json');
  if (!existsSync(configPath)) return run; // trained by ensureRun with exactly this recipe
  let config: Record<string, unknown> | undefined;
  try {
    config = (JSON.parse(readRegularFile(configPath, configPath)) as { config?: Record<string, unknown> })
      .config;
  } catch (error) {
    if (error instanceof InputError) throw error; // a FIFO or an unreadable file: not to be guessed around
    return besideRun;
  }
  const same = config !== undefined && configDifferences(config, runConfig({ seed, smoke })).length === 0;
  return same ? run : besideRun;
}

/** `evaluate` with the episodes played on both cores (`playOnTwoCores`): the same records as on one; scripted players here. */
export function evaluateOnCores(options: EvaluateOptions): Promise<Evaluation> {
  return options.scripted !== undefined ? evaluate(options) : evaluate({ ...options, play: playOnTwoCores });
}
