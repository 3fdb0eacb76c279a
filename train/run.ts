import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { harnessHash, makeTasks, pickHarness, type Task } from '../gym/index.ts';
import {
  activeBackend,
  buildTokenizer,
  CheckpointError,
  createModel,
  defaultModelConfig,
  evaluate,
  recordedBackend,
  loadAgent,
  saveCheckpoint,
  type Agent,
  type ModelConfig,
  type Tokenizer,
  fingerprint,
} from '../agent/index.ts';
import { Rng } from '../lib/rng.ts';
import { writeJsonAtomic } from '../lib/atomic.ts';
import type { RunLog } from '../lib/log.ts';
import { splitTasks, type RLConfig } from './config.ts';
import { demoTranscripts } from './bc.ts';
import { padBatch } from './batch.ts';
import { grpoStep, stepTasks } from './grpo.ts';
import { oneThread, optimizerStep, twoSharesOneThread, twoThreads, type Compute } from './compute.ts';
import { adam } from './optimizer.ts';
import { acquireRunLock, removeStaleTemporaries } from './runLock.ts';
import { checkRunFolder, foreignSnapshotError, refuseOtherRecipe, snapshotMismatch } from './runFolder.ts';

export interface TrainSummary {
  runDir: string;
  snapshots: string[];
  evalPass: Array<{ step: number; evalPass: number }>;
  seconds: { bc: number; rollouts: number; updates: number; evals: number; total: number };
  parameterCount: number;
  backend: string;
  resumedFrom: number | null;
}

export function snapshotDir(runDir: string, step: number): string {
  return join(runDir, `step-${step}`);
}

/**
 * The snapshot in `dir`, or undefined when there is none or it cannot be loaded: a corrupt one
 * (a damaged file, a folder left by a kill) is reported in one line, and the run retrains it
 * from the last good snapshot; the new checkpoint replaces it atomically.
 */
async function tryLoad(dir: string, { log, config }: RunContext, step: number): Promise<Agent | undefined> {
  if (!existsSync(dir)) return undefined;
  let loaded;
  try {
    loaded = await loadAgent(dir);
  } catch (error) {
    if (!(error instanceof CheckpointError)) throw error;
    log.say(`resume: ${error.message}; retraining it from the last good snapshot`);
    log.record('run/corruptSnapshot', { dir, problem: error.message });
    return undefined;
  }
  // A sound checkpoint of another run (copied in by hand) is refused, not resumed from: the steps
  // after it would be labelled with this run's seed and config.
  const foreign = snapshotMismatch(loaded.manifest, config, step);
  if (foreign !== undefined) {
    loaded.agent.model.dispose();
    throw foreignSnapshotError(dir, foreign);
  }
  return loaded.agent;
}

/**
 * Where a run trains and logs, on how many threads (default 2), and another run's step-0 snapshot
 * to take as its own where it can stand in (`sharedBaseAgent`).
 */
export interface TrainOptions {
  runDir: string;
  log: RunLog;
  threads?: 1 | 2;
  baseAgent?: string | undefined;
}

/**
 * The default training run: behaviour cloning (step 0, the RL base agent), then GRPO in
 * segments of `segmentSteps` steps to `steps`, each segment with a fresh Adam and its own seed
 * (`seed/segment-k`), a frozen checkpoint after each: runDir/step-0, step-10, ..., step-80.
 * Because a segment depends only on the previous checkpoint and its own seed, a run that was
 * interrupted resumes from its last complete snapshot and ends with the same checkpoints.
 * `threads: 1` runs a `parallel` config's two shares on this thread alone (`twoSharesOneThread`),
 * with the same checkpoints as on two.
 */
export async function trainSnapshots(config: RLConfig, options: TrainOptions): Promise<TrainSummary> {
  const { runDir, log } = options;
  checkRunFolder(runDir);
  const release = acquireRunLock(runDir);
  try {
    const removed = removeStaleTemporaries(runDir);
    if (removed.length > 0) log.record('run/removedTemporaries', { names: removed });
    return await trainLocked(config, options);
  } finally {
    release();
  }
}

/** What both phases of a run share: its config, folder, log, tasks, random source and compute, and the totals they add to. */
interface RunContext {
  config: RLConfig;
  runDir: string;
  log: RunLog;
  harness: ReturnType<typeof pickHarness>;
  train: Task[];
  /** The RL seed's stream: task order, segments, evaluations after step 0. */
  rng: Rng;
  /** The base agent's stream (`baseSeed`, else `rng`): initial weights, demonstrations, step 0's evaluation. */
  baseRng: Rng;
  compute: Compute;
  /** The backend as the records name it: the build too (wasm without SIMD gives other numbers). */
  recordedBackend: string;
  /** Saves `agent` as the checkpoint of `step` in `dir`, with its held-out pass rate. */
  save: (dir: string, step: number, agent: Agent, evalPass: number | null) => void;
  /** The held-out pass rate of `agent` at `step` (its random stream `eval/<step>`), its time added to `seconds.evals`. */
  evalOn: (agent: Agent, step: number) => Promise<number>;
  seconds: TrainSummary['seconds'];
  evalHistory: TrainSummary['evalPass'];
}

async function trainLocked(
  config: RLConfig,
  { runDir, log, threads = 2, baseAgent }: TrainOptions,
): Promise<TrainSummary> {
  const started = performance.now();
  const harness = pickHarness(config);
  const hash = harnessHash(harness);
  const recorded = recordedBackend() ?? 'none';
  const { train, heldOut } = splitTasks(config);
  const rng = new Rng(config.seed);
  // The RL base agent's stream: its own seed, or the run's (docs/TRAINING-DESIGN.md).
  const baseRng = config.baseSeed === undefined ? rng : new Rng(config.baseSeed);

  refuseOtherRecipe(runDir, config);
  writeJsonAtomic(join(runDir, 'config.json'), { config, harnessHash: hash, fingerprint: fingerprint() });
  log.record('run/start', { runDir, backend: recorded, harnessHash: hash, config });

  const compute = !config.parallel
    ? oneThread()
    : threads === 1
      ? twoSharesOneThread()
      : twoThreads({ backend: activeBackend() ?? 'none' });
  const run: RunContext = {
    config,
    runDir,
    log,
    harness,
    train,
    rng,
    baseRng,
    compute,
    recordedBackend: recorded,
    // Every snapshot records what made its bits (docs/CONTRACT.md).
    save: (dir, step, agent, evalPass) =>
      saveCheckpoint(dir, agent.model, {
        step,
        seed: config.seed,
        harness,
        harnessHash: hash,
        config,
        fingerprint: fingerprint(),
        tokenizer: agent.tokenizer.words,
        evalPass,
      }),
    evalOn: async (agent, step) => {
      const evalStart = performance.now();
      const { passAt1 } = await evaluate({
        agent,
        harness,
        tasks: heldOut,
        episodes: config.evalEpisodesPerTask,
        seed: (step === 0 ? baseRng : rng).fork(`eval/${step}`).key,
        play: compute.rollout,
      });
      run.seconds.evals += (performance.now() - evalStart) / 1000;
      return passAt1;
    },
    seconds: { bc: 0, rollouts: 0, updates: 0, evals: 0, total: 0 },
    evalHistory: [],
  };

  // Step 0: the saved base agent, another run's that stands in for it, or behaviour cloning.
  let resumedFrom: number | null = null;
  const snapshots = [snapshotDir(runDir, 0)];
  let agent = await tryLoad(snapshotDir(runDir, 0), run, 0);
  try {
    if (agent !== undefined) resumedFrom = 0;
    else
      agent =
        (baseAgent === undefined ? undefined : await sharedBaseAgent(run, baseAgent)) ??
        (await behaviourCloning(run));

    // GRPO, segment by segment: a fresh Adam and a checkpoint for each.
    const reference = config.klCoef > 0 ? await tryLoad(snapshotDir(runDir, 0), run, 0) : undefined;
    const segments = Math.ceil(config.steps / config.segmentSteps);
    for (let segment = 1; segment <= segments; segment += 1) {
      const endStep = Math.min(segment * config.segmentSteps, config.steps);
      const dir = snapshotDir(runDir, endStep);
      const saved = await tryLoad(dir, run, endStep);
      if (saved !== undefined) {
        agent.model.dispose();
        agent = saved;
        resumedFrom = endStep;
      } else await grpoSegment(run, agent, { segment, endStep, dir, reference });
      snapshots.push(dir);
    }
    reference?.model.dispose();
  } finally {
    await compute.close();
  }
  run.seconds.total = (performance.now() - started) / 1000;
  const summary: TrainSummary = {
    runDir,
    snapshots,
    evalPass: run.evalHistory,
    seconds: run.seconds,
    parameterCount: agent.model.parameterCount(),
    backend: recorded,
    resumedFrom,
  };
  writeJsonAtomic(join(runDir, 'summary.json'), summary);
  log.record('run/done', { ...summary });
  agent.model.dispose();
  return summary;
}

/**
 * A turn of the event loop between optimizer steps: on one thread a step never waits on anything,
 * so without it a signal (a scheduler's cancel, Ctrl-C) would be handled only once the training
 * has ended. Changes no number.
 */
const betweenSteps = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The model every training builds: the default architecture over the project's vocabulary (a study plans its checkpoints' size by it). */
export function trainingModelConfig(tokenizer: Tokenizer = buildTokenizer(makeTasks('all'))): ModelConfig {
  return defaultModelConfig(tokenizer.words.length);
}

/**
 * Step 0: a fresh model (`init` stream) trained by behaviour cloning on the scripted demos (`bc`
 * stream), evaluated and saved as runDir/step-0, the RL base agent.
 */
async function behaviourCloning(run: RunContext): Promise<Agent> {
  const { config, log, compute, seconds } = run;
  const bcStart = performance.now();
  const tokenizer = buildTokenizer(makeTasks('all'));
  const model = createModel(trainingModelConfig(tokenizer), run.baseRng.fork('init'));
  const agent = { model, tokenizer };
  log.say(
    `backend ${run.recordedBackend}; model ${model.parameterCount()} parameters; vocabulary ${tokenizer.words.length} words; ${compute.name}`,
  );
  const optimizer = adam(config.bcLearningRate);
  const demoRng = run.baseRng.fork('bc');
  const bar = log.progress('behaviour cloning', config.bcSteps);
  let loss = NaN;
  for (let step = 1; step <= config.bcSteps; step += 1) {
    await betweenSteps();
    const demos = demoTranscripts(run.harness, run.train, config.bcBatchSize, demoRng, tokenizer, {
      readTwice: config.demoReadTwice,
      skipTest: config.demoSkipTest,
    });
    const job = { kind: 'bc', batch: padBatch(demos, tokenizer.padId) } as const;
    loss = (await optimizerStep(agent, optimizer, job, { compute, maxGradNorm: config.maxGradNorm })).loss;
    if (step % 10 === 0) log.record('bc/step', { step, 'losses/bc': loss });
    bar.tick(step, `loss ${loss.toFixed(3)}`);
  }
  bar.done(`loss ${loss.toFixed(3)}`);
  optimizer.dispose();
  seconds.bc = (performance.now() - bcStart) / 1000;
  const pass = await run.evalOn(agent, 0);
  run.save(snapshotDir(run.runDir, 0), 0, agent, pass);
  log.record('bc/done', { 'losses/bc': loss, 'charts/evalPass': pass, seconds: seconds.bc });
  log.say(
    `step 0 (behaviour cloning, ${config.bcSteps} steps, ${seconds.bc.toFixed(0)}s): loss ${loss.toFixed(3)}, held-out evalPass ${pass.toFixed(3)}`,
  );
  return agent;
}

/**
 * Step 0 taken from another run's step-0 snapshot `from` instead of behaviour cloning. Where this
 * run has a `baseSeed`, and that snapshot was made with the same config but for `seed` by the same
 * code (fingerprint), it is the base agent this run's behaviour cloning would make, byte for byte,
 * and so is its step-0 evaluation (both draw from `baseSeed`'s stream). It is saved as this run's
 * step 0, with this run's seed and config. Where it cannot stand in, a line says why and the run
 * clones its own (undefined).
 */
async function sharedBaseAgent(run: RunContext, from: string): Promise<Agent | undefined> {
  const { config, log } = run;
  const notUsed = (reason: string) => {
    log.say(`base agent: ${from} not used (${reason}); behaviour cloning instead`);
    return undefined;
  };
  if (config.baseSeed === undefined) return notUsed('the run has no baseSeed: its seed draws its base agent');
  let loaded;
  try {
    loaded = await loadAgent(from);
  } catch (error) {
    if (!(error instanceof CheckpointError)) throw error;
    return notUsed(error.message);
  }
  const { agent, manifest } = loaded;
  const reason =
    snapshotMismatch(manifest, { ...config, seed: manifest['seed'] as number }, 0) ??
    (JSON.stringify(manifest['fingerprint']) !== JSON.stringify(fingerprint())
      ? "it was made by other code (its fingerprint is not this process's)"
      : typeof manifest['evalPass'] !== 'number'
        ? 'it records no step-0 evaluation'
        : undefined);
  if (reason !== undefined) {
    agent.model.dispose();
    return notUsed(reason);
  }
  const evalPass = manifest['evalPass'] as number;
  run.save(snapshotDir(run.runDir, 0), 0, agent, evalPass);
  log.record('bc/shared', { from, 'charts/evalPass': evalPass });
  log.say(
    `step 0: the base agent of ${from} (baseSeed ${config.baseSeed}, the bytes behaviour cloning would give), held-out evalPass ${evalPass.toFixed(3)}`,
  );
  return agent;
}

/**
 * One GRPO segment, the steps after (segment - 1)·segmentSteps to `endStep`: a fresh Adam, the
 * segment's own stream (`segment-k`, one fork per step), a held-out eval every `evalEvery`
 * steps, and the agent saved in `dir` at the end. Trains `agent` in place.
 */
async function grpoSegment(
  run: RunContext,
  agent: Agent,
  {
    segment,
    endStep,
    dir,
    reference,
  }: { segment: number; endStep: number; dir: string; reference: Agent | undefined },
): Promise<void> {
  const { config, log, compute, seconds, evalHistory } = run;
  const segmentRng = run.rng.fork(`segment-${segment}`);
  const optimizer = adam(config.learningRate);
  const startStep = (segment - 1) * config.segmentSteps;
  const bar = log.progress(`grpo ${startStep}->${endStep}`, endStep - startStep);
  let last = { meanReward: 0, zeroAdvantageGroups: 0, firstEditEntropy: 0 };
  for (let step = startStep + 1; step <= endStep; step += 1) {
    await betweenSteps();
    const tasks = stepTasks(run.train, config.tasksPerStep, run.rng, step);
    const stats = await grpoStep(agent, config, run.harness, tasks, segmentRng.fork(`step-${step}`), {
      reference,
      play: compute.rollout,
      update: (job) => optimizerStep(agent, optimizer, job, { compute, maxGradNorm: config.maxGradNorm }),
    });
    seconds.rollouts += stats.rolloutSeconds;
    seconds.updates += stats.updateSeconds;
    last = stats;
    const fields: Record<string, number | null> = {
      step,
      'charts/meanReward': stats.meanReward,
      'charts/zeroAdvantageGroups': stats.zeroAdvantageGroups,
      'losses/policy': stats.loss,
      'losses/kl': stats.kl,
      'losses/gradNorm': stats.gradNorm,
      'losses/clipRatio': stats.clipRatio,
      'charts/firstEditEntropy': stats.firstEditEntropy,
    };
    if (step % config.evalEvery === 0) {
      const pass = await run.evalOn(agent, step);
      fields['charts/evalPass'] = pass;
      evalHistory.push({ step, evalPass: pass });
    }
    log.record('grpo/step', fields);
    bar.tick(step - startStep, `reward ${stats.meanReward.toFixed(2)}`);
  }
  bar.done(`reward ${last.meanReward.toFixed(2)}`);
  optimizer.dispose();
  const pass = evalHistory.find((entry) => entry.step === endStep)?.evalPass ?? null;
  run.save(dir, endStep, agent, pass);
  log.say(
    `step ${endStep}: reward ${last.meanReward.toFixed(3)}, zero-advantage groups ${last.zeroAdvantageGroups.toFixed(2)}, ` +
      `first-edit entropy ${last.firstEditEntropy.toFixed(2)}, held-out evalPass ${pass === null ? 'n/a' : pass.toFixed(3)}`,
  );
}
