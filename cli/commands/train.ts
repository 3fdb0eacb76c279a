import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { boolFlag, choiceFlag, InputError, intFlag, printJson, stringFlag, UsageError, type Command } from '../args.ts';
import { BACKEND_PREFERENCES, initBackend } from '../../agent/index.ts';
import { parseRLConfig, trainSnapshots } from '../../train/index.ts';
import { trainingHarness } from '../../gym/index.ts';
import { openRunLog } from '../../lib/log.ts';

/** Reads `--config FILE` (a JSON object of RLConfig fields) and applies the flag overrides on top. */
export function configFromArgs(configFile: string | undefined, overrides: Record<string, unknown>) {
  let fromFile: Record<string, unknown> = {};
  if (configFile !== undefined) {
    if (!existsSync(configFile)) throw new InputError(`--config: no such file '${configFile}'`);
    try {
      fromFile = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new InputError(`${configFile}: not valid JSON (${(error as Error).message})`);
    }
    if (typeof fromFile !== 'object' || fromFile === null || Array.isArray(fromFile)) throw new InputError(`${configFile}: expected a JSON object of config fields`);
  }
  try {
    return parseRLConfig({ ...trainingHarness(), ...fromFile, ...overrides }, configFile ?? 'config');
  } catch (error) {
    throw new InputError((error as Error).message);
  }
}

export const command: Command = {
  name: 'train',
  summary: 'Behaviour cloning then GRPO to step 80, a frozen checkpoint every 10 steps (runs/<name>/step-N)',
  usage: 'tinyagent train [--seed S] [--name NAME] [--steps N] [--bc-steps N] [--config FILE] [--backend B] [--json]',
  flags: {
    seed: { type: 'string', description: 'master seed of the run', default: '0' },
    name: { type: 'string', description: 'run name: checkpoints go to runs/<name>', default: 'default, or seedS with --seed S' },
    steps: { type: 'string', description: 'GRPO steps', default: '80' },
    'bc-steps': { type: 'string', description: 'behaviour-cloning steps', default: '80' },
    config: { type: 'string', description: 'JSON file of RLConfig fields (see docs/TRAINING.md)' },
    'runs-dir': { type: 'string', description: 'folder that holds the runs', default: 'runs' },
    backend: { type: 'string', description: `tfjs backend: ${BACKEND_PREFERENCES.join(', ')} (env TINYAGENT_BACKEND)`, default: 'auto' },
    json: { type: 'boolean', description: 'print the summary as JSON on stdout' },
    quiet: { type: 'boolean', description: 'no progress lines on stderr' },
  },
  async run(args) {
    const overrides: Record<string, unknown> = {};
    if (args.flags.seed !== undefined) overrides.seed = intFlag(args, 'seed', 0, { min: 0 });
    if (args.flags.steps !== undefined) overrides.steps = intFlag(args, 'steps', 80, { min: 0 });
    if (args.flags['bc-steps'] !== undefined) overrides.bcSteps = intFlag(args, 'bc-steps', 80, { min: 0 });
    const name = stringFlag(args, 'name') ?? (overrides.seed !== undefined ? `seed${overrides.seed}` : 'default');
    if (!/^[\w.-]+$/.test(name)) throw new UsageError(`--name must be letters, digits, '.', '-' or '_', got '${name}'`);
    const config = configFromArgs(stringFlag(args, 'config'), overrides);
    const backend = await initBackend({ preference: choiceFlag(args, 'backend', BACKEND_PREFERENCES, 'auto') });
    const runDir = join(stringFlag(args, 'runs-dir') ?? 'runs', name);
    const log = openRunLog(runDir, { quiet: boolFlag(args, 'quiet') });
    log.say(`training ${runDir} on backend ${backend} (seed ${config.seed})`);
    try {
      const summary = await trainSnapshots(config, { runDir, log });
      const s = summary.seconds;
      log.say(
        `done in ${s.total.toFixed(0)}s (bc ${s.bc.toFixed(0)}s, rollouts ${s.rollouts.toFixed(0)}s, updates ${s.updates.toFixed(0)}s, evals ${s.evals.toFixed(0)}s); ` +
          `checkpoints ${summary.snapshots.length} in ${runDir}`,
      );
      if (boolFlag(args, 'json')) printJson(summary);
    } finally {
      log.close();
    }
  },
};
