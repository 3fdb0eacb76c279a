import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  backendFlag,
  boolFlag,
  configFlags,
  configFlagValues,
  fieldSchemas,
  InputError,
  intListFlag,
  printJson,
  readJsonFile,
  stringFlag,
  switchFlag,
  UsageError,
  valueFlag,
  type Command,
  type FieldSchema,
} from '../args.ts';
import {
  BACKEND_PREFERENCES,
  checkpointChecksum,
  initBackend,
  productKernelProblem,
  recordedBackend,
} from '../../agent/index.ts';
import {
  measuresDevSplit,
  snapshotDir,
  parseRLConfig,
  RLConfigSchema,
  seedRunDir,
  seedTable,
  TrainSchema,
  trainSeeds,
  trainSnapshots,
  type RLConfig,
  type SeedResult,
  type TrainSummary,
} from '../../train/index.ts';
import { assertRunFolderFree } from '../../train/runLock.ts';
import { harnessHash, trainingHarness, type TaskCount } from '../../gym/index.ts';
import { fileSystemError } from '../../lib/files.ts';
import { openRunLog } from '../../lib/log.ts';
import { ROOT } from '../../lib/paths.ts';
import { sayBackendNotice } from '../../experiments/contract.ts';
import { commandLine, noteMachine, outFlag, readSections, writeSection } from '../measurementRecord.ts';

/**
 * The training fields that are also flags (`bcSteps` is `--bc-steps`): description, default and
 * range come from the schema in train/config.ts. Every other field is set with --config FILE.
 */
const CONFIG_FLAGS = configFlags(TrainSchema, ['seed', 'steps', 'bcSteps']);
/** The held-out measurement after `--seeds`: the same episodes for every seed. */
const SEEDS_EVAL = { episodes: 32, seed: 21 };

/** Successes per task, keyed by task name (the episodes per task are the section's). */
function successesByTask(perTask: readonly TaskCount[]): Record<string, number> {
  return Object.fromEntries(perTask.map((count) => [count.name, count.successes]));
}

/**
 * The `run` section of `--out FILE`: one run trained from step 0 in this call, its time by
 * phase, size, backend, the checksum of every snapshot and its held-out evalPass per step.
 */
function runSection(config: RLConfig, summary: TrainSummary) {
  return {
    runDir: summary.runDir,
    backend: summary.backend,
    threads: config.parallel ? 2 : 1,
    parameterCount: summary.parameterCount,
    seconds: summary.seconds,
    evalPass: summary.evalPass,
    evalEpisodesPerTask: config.evalEpisodesPerTask,
    checksums: Object.fromEntries(
      summary.snapshots.map((dir) => [dir.slice(summary.runDir.length + 1), checkpointChecksum(dir)]),
    ),
    harnessHash: harnessHash(trainingHarness()),
    config,
  };
}

/** The `seeds` section of `--out FILE`: the per-seed table with the evaluation that measured it. */
function seedsSection(config: RLConfig, results: readonly SeedResult[], split: string) {
  const rates = results.map((result) => result.passAt1);
  const baseRates = results.map((result) => result.base.passAt1);
  return {
    split,
    step: config.steps,
    evaluation: { seed: SEEDS_EVAL.seed, episodesPerTask: SEEDS_EVAL.episodes, harness: 'training' },
    rows: results.map((result) => ({
      seed: result.seed,
      runDir: result.runDir,
      checksum: result.checksum,
      passAt1: result.passAt1,
      successes: successesByTask(result.perTask),
      firstEdit: result.firstEdit,
      base: {
        checksum: result.base.checksum,
        passAt1: result.base.passAt1,
        successes: successesByTask(result.base.perTask),
      },
    })),
    spread: Math.max(...rates) - Math.min(...rates),
    mean: rates.reduce((sum, rate) => sum + rate, 0) / rates.length,
    base: { min: Math.min(...baseRates), max: Math.max(...baseRates) },
    config: { ...config, seed: null },
  };
}

/** One line per RLConfig field: its type, accepted range or values, default and what it does (from the zod schema itself). */
function configFieldsHelp(): string {
  const properties = fieldSchemas(RLConfigSchema);
  const describe = (field: FieldSchema): string => {
    if (field.anyOf !== undefined) return field.anyOf.map(describe).join(' or ');
    if (field.enum !== undefined) return field.enum.map(String).join(' | ');
    if (field.type === 'null') return 'null';
    if (field.type === 'integer' || field.type === 'number') {
      const low =
        field.exclusiveMinimum !== undefined ? `(${field.exclusiveMinimum}` : `[${field.minimum ?? '-inf'}`;
      return `${field.type} ${low}..${field.maximum ?? 'inf'}]`;
    }
    return field.type ?? 'any';
  };
  const entries = Object.entries(properties);
  const width = Math.max(...entries.map(([name]) => name.length));
  return [
    'Config fields (--config FILE; docs/TRAINING.md and docs/GYM.md say why each default):',
    ...entries.map(
      ([name, field]) =>
        `  ${name.padEnd(width + 2)}${describe(field)} (${field.default === undefined ? 'optional' : `default: ${JSON.stringify(field.default)}`}): ${field.description ?? ''}`,
    ),
  ].join('\n');
}

/** Reads `--config FILE` (a JSON object of RLConfig fields) and applies the flag overrides on top. */
function configFromArgs(configFile: string | undefined, overrides: Record<string, unknown>) {
  // The flags were range-checked already, so without a file every field is valid.
  if (configFile === undefined) return parseRLConfig({ ...trainingHarness(), ...overrides });
  const parsed = readJsonFile(configFile, '--config');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InputError(`${configFile}: expected a JSON object of config fields`);
  // The file is checked on its own first: a flag that overrides a field must not hide that the
  // file's value was invalid (`{"steps": 1.5}` with --steps 0).
  let fromFile: RLConfig;
  try {
    fromFile = parseRLConfig({ ...trainingHarness(), ...parsed });
  } catch (error) {
    throw new InputError(`${configFile}: ${(error as Error).message}`);
  }
  return parseRLConfig({ ...fromFile, ...overrides });
}

export const command: Command = {
  name: 'train',
  summary: 'Behaviour cloning then GRPO to step 80, a frozen checkpoint every 10 steps (runs/<name>/step-N)',
  usage:
    'tinyagent train [--seed S | --seeds 0,1,2,3] [--name NAME] [--steps N] [--bc-steps N] [--config FILE] [--backend B] [--out FILE] [--json]',
  flags: {
    [CONFIG_FLAGS.seed.flag]: CONFIG_FLAGS.seed.spec,
    seeds: valueFlag(
      `several seeds, one after another, each into runs/seed-N (each resumes like a single run; with a baseSeed, the seeds after the first take its base agent instead of cloning); then every final checkpoint and its base agent (step 0) on the held-out tasks (${SEEDS_EVAL.episodes} episodes per task, eval seed ${SEEDS_EVAL.seed}) as a per-seed table`,
    ),
    name: valueFlag('run name: checkpoints go to runs/<name>', {
      default: 'default, or seed-S with --seed S',
    }),
    [CONFIG_FLAGS.steps.flag]: CONFIG_FLAGS.steps.spec,
    [CONFIG_FLAGS.bcSteps.flag]: CONFIG_FLAGS.bcSteps.spec,
    config: valueFlag('JSON file of RLConfig fields, each within its range (see docs/TRAINING.md)'),
    'runs-dir': valueFlag('folder that holds the runs', { default: 'runs' }),
    backend: valueFlag(`tfjs backend: ${BACKEND_PREFERENCES.join(', ')} (env TINYAGENT_BACKEND)`, {
      default: 'auto',
    }),
    out: valueFlag(
      'also write the figures into this JSON file (results/train.json is the one the docs quote): a run trained from step 0 as its `run` section, a --seeds table as its `seeds` section; the other section is kept',
    ),
    json: switchFlag('print the summary as JSON on stdout'),
    quiet: switchFlag('no progress lines on stderr'),
  },
  moreHelp: configFieldsHelp,
  async run(args) {
    const overrides = configFlagValues(args, CONFIG_FLAGS);
    const seeds = intListFlag(args, 'seeds', undefined, CONFIG_FLAGS.seed.spec.range);
    if (seeds !== undefined && (args.flags.seed !== undefined || args.flags.name !== undefined))
      throw new UsageError('--seeds trains into runs/seed-N: it takes neither --seed nor --name');
    const name =
      stringFlag(args, 'name') ?? (overrides.seed !== undefined ? `seed-${overrides.seed}` : 'default');
    if (!/^[\w.-]{1,100}$/.test(name) || /^\.+$/.test(name))
      throw new UsageError(
        `--name must be 1 to 100 letters, digits, '.', '-' or '_' (not only dots), got '${name.slice(0, 100)}'`,
      );
    const preference = backendFlag(args, BACKEND_PREFERENCES, 'auto');
    const config = configFromArgs(stringFlag(args, 'config'), overrides);
    const runsDir = stringFlag(args, 'runs-dir') ?? 'runs';
    const runDir = seeds !== undefined ? seedRunDir(runsDir, seeds[0] as number) : join(runsDir, name);
    const out = outFlag(args);
    if (out !== undefined) readSections(out); // a file that is not a JSON object is refused before training
    // A resumed run's times are the resume's, not a training's: `run` records only a run trained from step 0.
    if (out !== undefined && seeds === undefined && existsSync(snapshotDir(runDir, 0)))
      throw new UsageError(
        `--out records a run trained from step 0, and ${runDir} already holds step-0: train into a new folder with --name`,
      );
    const machine = noteMachine();
    const command = commandLine('train', args);
    const quiet = boolFlag(args, 'quiet');
    try {
      // Refused before anything is written into the folder of a run in progress.
      for (const dir of seeds?.map((seed) => seedRunDir(runsDir, seed)) ?? [runDir]) assertRunFolderFree(dir);
      await initBackend({ preference });
      sayBackendNotice(join(ROOT, 'results'));
      if (seeds !== undefined) {
        const results = await trainSeeds(config, seeds, {
          runsDir,
          openLog: (dir) => openRunLog(dir, { quiet }),
          episodes: SEEDS_EVAL.episodes,
          evalSeed: SEEDS_EVAL.seed,
        });
        const split = measuresDevSplit(config) ? 'development-split' : 'held-out';
        if (out !== undefined)
          writeSection(out, 'seeds', {
            command,
            machine: machine(),
            ...seedsSection(config, results, split),
          });
        if (boolFlag(args, 'json'))
          printJson(
            results.map(({ seed, runDir: dir, step, passAt1, perTask, base, summary }) => ({
              seed,
              runDir: dir,
              step,
              passAt1,
              perTask,
              base: { passAt1: base.passAt1, perTask: base.perTask },
              seconds: summary.seconds,
            })),
          );
        else process.stdout.write(`${seedTable(results, { split })}\n`);
        if (out !== undefined) process.stderr.write(`wrote the seed table to ${out} (section seeds)\n`);
        return;
      }
      const backend = recordedBackend();
      const log = openRunLog(runDir, { quiet });
      try {
        log.say(`training ${runDir} on backend ${backend} (seed ${config.seed})`);
        const problem = productKernelProblem();
        if (backend === 'wasm-no-simd')
          log.say(
            `no WebAssembly SIMD: tfjs runs its wasm build without SIMD, whose numbers differ from the SIMD build's (other checkpoints for the same seed; recorded as backend wasm-no-simd), and the products run on its own kernels (${problem})`,
          );
        else if (problem !== undefined)
          log.say(`products on tfjs's own kernels (the same numbers, slower): ${problem}`);
        const summary = await trainSnapshots(config, { runDir, log });
        const s = summary.seconds;
        log.say(
          `done in ${s.total.toFixed(0)}s (bc ${s.bc.toFixed(0)}s, rollouts ${s.rollouts.toFixed(0)}s, updates ${s.updates.toFixed(0)}s, evals ${s.evals.toFixed(0)}s); ` +
            `checkpoints ${summary.snapshots.length} in ${runDir}`,
        );
        if (out !== undefined) {
          writeSection(out, 'run', { command, machine: machine(), ...runSection(config, summary) });
          log.say(`wrote the run's times, size and checksums to ${out} (section run)`);
        }
        if (boolFlag(args, 'json')) printJson(summary);
      } finally {
        log.close();
      }
    } catch (error) {
      // A run folder in use, a bad checkpoint or backend is reported as it is (lib/errors.ts says
      // which exit code); a file system refusal (a --runs-dir that is a file, no space, no
      // permission) is the user's to fix, and names the run folder.
      throw fileSystemError(error, runDir);
    }
  },
};
