import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { scaledDifference } from './closeness.ts';
import { episodeSpecs, makeTasks, pickHarness } from '../gym/index.ts';
import {
  buildTokenizer,
  createModel,
  defaultModelConfig,
  getWeights,
  initBackend,
  productsInstalled,
  rollout,
  setWeights,
  useOwnProducts,
  type Agent,
  type BackendPreference,
} from '../agent/index.ts';
import {
  adam,
  defaultRLConfig,
  oneThread,
  optimizerStep,
  padBatch,
  twoThreads,
  type Compute,
  type LossJob,
} from '../train/index.ts';
import { Rng } from '../lib/rng.ts';
import { fastestAlternating, fastestInTurn, leastOf, timedAsync, type Figures } from './best.ts';
import { startTorchStep } from './torchReference.ts';
import type { BesideWork } from './beside.ts';

/** Each figure is the best of this many timed runs, one- and two-thread runs alternating (the machine is shared and noisy). */
const REPEATS = 5;

/**
 * Training benchmark on the real gym with the default model and harness, one thread against two
 * (the data-parallel worker of `npm run train`), runs alternating, best of `REPEATS`: the training
 * step (`trainStepBench`), rollouts (`rolloutBench`) and a GRPO step's work (`grpoBench`), with the
 * untrained policy. With `torchPython` (`--torch`), PyTorch's step too: the `torch` field.
 */
export async function run(
  say: (line: string) => void,
  { torchPython }: { torchPython?: string | undefined } = {},
): Promise<Figures> {
  const backend = await initBackend();
  const tokenizer = buildTokenizer(makeTasks('all'));
  const agent: Agent = {
    model: createModel(defaultModelConfig(tokenizer.words.length), new Rng('bench/train')),
    tokenizer,
  };
  const one = oneThread();
  const worker = twoThreads({ backend });
  try {
    say(`backend ${backend}; each figure the best of ${REPEATS} runs, one- and two-thread runs alternating`);
    await worker.started(agent); // timed runs use both threads from the first
    const step = await trainStepBench(agent, { one, worker, say, torchPython });
    // Every run below starts from these weights on both threads, so each run does the same work.
    const start = getWeights(agent.model);
    const fromStart = async () => {
      setWeights(agent.model, start);
      await worker.weightsChanged(agent);
    };
    const rollouts = await rolloutBench(agent, { one, worker, say, fromStart });
    const grpo = await grpoBench(agent, { backend, one, worker, say, fromStart });
    say(`peak memory            rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
    return {
      backend,
      repeats: REPEATS,
      parameters: agent.model.parameterCount(),
      ...step.figures,
      ...rollouts,
      ...grpo,
      rssMiB: process.memoryUsage().rss / 2 ** 20,
      ...(step.torch !== undefined ? { torch: step.torch } : {}),
    };
  } finally {
    await worker.close();
    agent.model.dispose();
  }
}

/** The threads a timed function runs on, and where its lines go. */
interface Bench {
  one: Compute;
  worker: ReturnType<typeof twoThreads>;
  say: (line: string) => void;
}

/**
 * The training step (`optimizerStep`: split gradients, clipping, Adam) on 64 x 96 random tokens,
 * a cloning loss; GFLOP/s = (6 P N + 12 L T d N) / time, P parameters, N = 64 x 95 predicted
 * positions, T = 95, L layers, d width (dense forward and backward, and attention's two products).
 */
async function trainStepBench(
  agent: Agent,
  { one, worker, say, torchPython }: Bench & { torchPython: string | undefined },
) {
  const { config: cfg } = agent.model;
  const rng = new Rng('bench/train/data');
  const [rows, length] = [64, 96];
  const step: LossJob = {
    kind: 'bc',
    batch: padBatch(
      Array.from({ length: rows }, () => ({
        tokens: Array.from({ length }, () => rng.int(cfg.vocabSize)),
        actionMask: new Array<number>(length).fill(1),
      })),
      agent.tokenizer.padId,
    ),
  };
  const positions = rows * (length - 1);
  const flops =
    6 * agent.model.parameterCount() * positions + 12 * cfg.nLayers * (length - 1) * cfg.dModel * positions;
  const optimizer = adam(1e-4);
  const timeStep = async (compute: Compute = one) =>
    (await timedAsync(() => optimizerStep(agent, optimizer, step, { compute, maxGradNorm: 1 }))).ms;
  const stepMs = await fastestAlternating(timeStep, worker, (ms) => ms, { repeats: REPEATS, warmUps: 2 });
  const gflops = (ms: number) => flops / (ms / 1000) / 1e9;
  say(
    `train step 1 thread    ${stepMs.one.toFixed(0)} ms  ${gflops(stepMs.one).toFixed(1)} GFLOP/s  (64 x 96 tokens, forward+backward+clip+Adam, ${(flops / 1e9).toFixed(2)} GFLOP)`,
  );
  say(
    `train step 2 threads   ${stepMs.two.toFixed(0)} ms  ${gflops(stepMs.two).toFixed(1)} GFLOP/s  (${(stepMs.one / stepMs.two).toFixed(2)}x one thread)`,
  );
  const torch =
    torchPython === undefined
      ? undefined
      : await torchReference(torchPython, agent, say, { rows, length, ours: () => timeStep(worker) });
  optimizer.dispose();
  return {
    figures: {
      trainStepGflop: flops / 1e9,
      trainStepMsOneThread: stepMs.one,
      trainStepMsTwoThreads: stepMs.two,
      trainStepGflopsOneThread: gflops(stepMs.one),
      trainStepGflopsTwoThreads: gflops(stepMs.two),
      trainStepTwoThreadsSpeedup: stepMs.one / stepMs.two,
    },
    torch,
  };
}

/** Rollouts: 320 held-out episodes (32 per task), the same records on one thread and on two. */
async function rolloutBench(
  agent: Agent,
  { one, worker, say, fromStart }: Bench & { fromStart: () => Promise<void> },
) {
  const harness = pickHarness(defaultRLConfig());
  const heldOut = makeTasks('heldout');
  await fromStart();
  const specs = episodeSpecs(heldOut, 32, new Rng('bench'));
  await worker.rollout(agent, harness, heldOut, episodeSpecs(heldOut, 2, new Rng('warm')));
  rollout(agent, harness, heldOut, episodeSpecs(heldOut, 2, new Rng('warm')));
  const timeRollout = (compute: Compute = one) =>
    timedAsync(() => compute.rollout(agent, harness, heldOut, specs));
  const roll = await fastestAlternating(timeRollout, worker, (run) => run.seconds, { repeats: REPEATS });
  // The same records on every run, on one thread or two (agent/rollout.ts plays the same batches).
  const records = roll.one.value;
  if (JSON.stringify(roll.two.value.map((r) => r.tokens)) !== JSON.stringify(records.map((r) => r.tokens)))
    throw new Error('bench train: the two-thread rollouts played other episodes than one thread');
  const tokens = records.reduce((sum, record) => sum + record.tokens.length, 0);
  say(
    `rollouts 1 thread      ${(records.length / roll.one.seconds).toFixed(0)} episodes/s  ${(tokens / roll.one.seconds).toFixed(0)} tokens/s  (${records.length} episodes, ${(tokens / records.length).toFixed(0)} tokens each on average)`,
  );
  say(
    `rollouts 2 threads     ${(records.length / roll.two.seconds).toFixed(0)} episodes/s  ${(tokens / roll.two.seconds).toFixed(0)} tokens/s  (${(roll.one.seconds / roll.two.seconds).toFixed(2)}x one thread)`,
  );
  return {
    rolloutEpisodes: records.length,
    rolloutTokensPerEpisode: tokens / records.length,
    rolloutEpisodesPerSecondOneThread: records.length / roll.one.seconds,
    rolloutEpisodesPerSecondTwoThreads: records.length / roll.two.seconds,
    rolloutTokensPerSecondOneThread: tokens / roll.one.seconds,
    rolloutTokensPerSecondTwoThreads: tokens / roll.two.seconds,
    rolloutTwoThreadsSpeedup: roll.one.seconds / roll.two.seconds,
  };
}

/**
 * One default GRPO step's work: 160 episodes (20 training tasks x group 8), then the updates on
 * their transcripts (advantages set to +-1: the untrained policy earns no reward), on one thread
 * and on two; the updates on one thread alone and beside a copy of themselves in another process
 * (`besideCopy`: how much two cores slow each other down); and on our products against tfjs's.
 */
async function grpoBench(
  agent: Agent,
  { backend, one, worker, say, fromStart }: Bench & { backend: string; fromStart: () => Promise<void> },
) {
  const config = defaultRLConfig();
  const harness = pickHarness(config);
  const train = makeTasks('train');
  const grpoSpecs = episodeSpecs(train, config.groupSize, new Rng('bench'));
  const batch = padBatch(rollout(agent, harness, train, grpoSpecs), agent.tokenizer.padId);
  batch.advantages = Float32Array.from(grpoSpecs, (_, i) => (i % 2 === 0 ? 1 : -1));
  const { clipEpsilon, entropyCoef, updateEpochs: epochs, learningRate, maxGradNorm } = config;
  const job: LossJob = { kind: 'grpo', batch, options: { clipEpsilon, klCoef: 0, entropyCoef } };
  const timeGrpo = async (compute: Compute = one) => {
    await fromStart();
    const grpoOptimizer = adam(learningRate);
    const rolloutStart = performance.now();
    await compute.rollout(agent, harness, train, grpoSpecs);
    const updateStart = performance.now();
    for (let epoch = 0; epoch < epochs; epoch += 1)
      await optimizerStep(agent, grpoOptimizer, job, { compute, maxGradNorm });
    const done = performance.now();
    grpoOptimizer.dispose();
    return {
      rollouts: (updateStart - rolloutStart) / 1000,
      updates: (done - updateStart) / 1000,
      total: (done - rolloutStart) / 1000,
    };
  };
  const grpo = await fastestAlternating(timeGrpo, worker, (run) => run.total, { repeats: REPEATS });
  const timeUpdates = async () => (await timeGrpo()).updates;
  const work: BesideWork = {
    backend: backend as BackendPreference,
    modelConfig: agent.model.config,
    words: [...agent.tokenizer.words],
    weights: getWeights(agent.model),
    job,
    epochs,
    learningRate,
    maxGradNorm,
  };
  const beside = await besideCopy(work, timeUpdates);
  say(
    `GRPO step 1 thread     ${grpo.one.total.toFixed(2)} s  (160 rollouts ${grpo.one.rollouts.toFixed(2)} s, ${config.updateEpochs} updates on ${job.batch.batchSize} transcripts ${grpo.one.updates.toFixed(2)} s)`,
  );
  say(
    `GRPO step 2 threads    ${grpo.two.total.toFixed(2)} s  (160 rollouts ${grpo.two.rollouts.toFixed(2)} s, ${config.updateEpochs} updates ${grpo.two.updates.toFixed(2)} s; ${(grpo.one.total / grpo.two.total).toFixed(2)}x one thread)`,
  );
  say(
    `GRPO updates 1 thread  ${beside.alone.toFixed(2)} s alone, ${beside.beside.toFixed(2)} s beside a copy of themselves in another process (${(beside.beside / beside.alone).toFixed(2)}x slower, the copy ran ${beside.rounds} rounds; two cores can reach at most ${((2 * beside.alone) / beside.beside).toFixed(2)}x one on this work)`,
  );
  const products = productsInstalled() ? await ownProductsAgainstTfjs(agent, timeUpdates) : undefined;
  if (products !== undefined)
    say(
      `GRPO updates 1 thread  ${products.own.toFixed(2)} s on our products and Adam, ${products.tfjs.toFixed(2)} s on tfjs's (XNNPack, tf.train.adam), in turn: ${(products.tfjs / products.own).toFixed(2)}x; weights after them ${products.weightsDifference.toExponential(1)} apart (largest difference over largest weight)`,
    );
  return {
    grpoStepSecondsOneThread: grpo.one.total,
    grpoStepSecondsTwoThreads: grpo.two.total,
    grpoRolloutSecondsOneThread: grpo.one.rollouts,
    grpoRolloutSecondsTwoThreads: grpo.two.rollouts,
    grpoUpdatesSecondsOneThread: grpo.one.updates,
    grpoUpdatesSecondsTwoThreads: grpo.two.updates,
    grpoUpdateTranscripts: job.batch.batchSize,
    grpoStepTwoThreadsSpeedup: grpo.one.total / grpo.two.total,
    grpoUpdatesSecondsOneThreadAlone: beside.alone,
    grpoUpdatesSecondsOneThreadBesideCopy: beside.beside,
    grpoUpdatesTwoCoresCeiling: (2 * beside.alone) / beside.beside,
    ...(products !== undefined
      ? {
          grpoUpdatesSecondsOwnProducts: products.own,
          grpoUpdatesSecondsTfjsProducts: products.tfjs,
          ownProductsSpeedup: products.tfjs / products.own,
          ownProductsWeightsDifference: products.weightsDifference,
        }
      : {}),
  };
}

/**
 * The same GRPO updates (`timeUpdates`, one thread) on tfjs's products and Adam and on ours, in
 * turn, from the same weights, and how far apart the weights after them are: the largest |own -
 * tfjs| over the largest |tfjs| weight (float rounding of other sums of products, grown by 4 Adam
 * steps; test/agent-products.test.ts checks the products themselves within 1e-5).
 */
async function ownProductsAgainstTfjs(
  agent: Agent,
  timeUpdates: () => Promise<number>,
): Promise<{ own: number; tfjs: number; weightsDifference: number }> {
  const start = getWeights(agent.model);
  const on = (own: boolean) => async () => {
    useOwnProducts(own);
    setWeights(agent.model, start);
    const seconds = await timeUpdates();
    return { seconds, weights: getWeights(agent.model) };
  };
  try {
    const [tfjs, own] = await fastestInTurn([on(false), on(true)], (run) => run.seconds, {
      repeats: REPEATS,
    });
    const all = (weights: Float32Array[]) => Float32Array.from(weights.flatMap((w) => Array.from(w)));
    const weightsDifference = scaledDifference(all(own!.weights), all(tfjs!.weights), { floor: 0 });
    return { own: own!.seconds, tfjs: tfjs!.seconds, weightsDifference };
  } finally {
    useOwnProducts(true);
    setWeights(agent.model, start);
  }
}

/** `time` (best of `REPEATS`) alone, beside bench/beside.ts running `work` in a process of its own, and alone again. */
async function besideCopy(
  work: BesideWork,
  time: () => Promise<number>,
): Promise<{ alone: number; beside: number; rounds: number }> {
  const best = () => leastOf(REPEATS, time);
  const before = await best();
  const child = fork(fileURLToPath(new URL('./beside.ts', import.meta.url)), {
    execArgv: ['--import', 'tsx'],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const next = (type: string) =>
    new Promise<number>((resolve, reject) => {
      const onMessage = (message: { type: string; rounds?: number }) => {
        if (message.type !== type) return;
        child.off('exit', onExit);
        child.off('message', onMessage);
        resolve(message.rounds ?? 0);
      };
      const onExit = (code: number | null) =>
        reject(new Error(`bench/beside.ts exited with ${code} before '${type}'`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  try {
    const ready = next('ready');
    child.send(work);
    await ready;
    const during = await best();
    const stopped = next('stopped');
    child.send({ type: 'stop' });
    const rounds = await stopped;
    return { alone: Math.min(before, await best()), beside: during, rounds };
  } finally {
    child.kill();
  }
}

/** PyTorch's step (bench/torch/step.py) on two threads and one, in turn with ours on two, and its parameter count. */
async function torchReference(
  python: string,
  { model }: Agent,
  say: (line: string) => void,
  { rows, length, ours }: { rows: number; length: number; ours: () => Promise<number> },
): Promise<Record<string, number | string>> {
  const [config, parameters] = [model.config, model.parameterCount()];
  const reference = await startTorchStep(python, config, { rows, length, threads: 2 });
  const single = await startTorchStep(python, config, { rows, length, threads: 1 }).catch(async (error) => {
    await reference.close();
    throw error;
  });
  try {
    const { info } = reference;
    const [oursMs, torchMs, torchOneMs] = await fastestInTurn(
      [ours, () => reference.step(), () => single.step()],
      (ms) => ms,
      { repeats: REPEATS, warmUps: 1 },
    );
    say(
      `PyTorch step 2 threads ${torchMs!.toFixed(0)} ms  (PyTorch ${info.torch}, ${info.threads} threads, ${info.parameters.toLocaleString('en-US')} parameters${info.parameters === parameters ? ', as ours' : `, ours ${parameters.toLocaleString('en-US')}`}; in turn with ours, best of ${REPEATS})`,
    );
    say(`PyTorch step 1 thread  ${torchOneMs!.toFixed(0)} ms  (in the same turns)`);
    say(
      `train step 2 threads   ${oursMs!.toFixed(0)} ms in the same turns: ${(oursMs! / torchMs!).toFixed(2)}x PyTorch's on 2 threads, ${(oursMs! / Math.min(torchMs!, torchOneMs!)).toFixed(2)}x its faster of 1 and 2`,
    );
    return {
      python,
      version: info.torch,
      threads: info.threads,
      parameters: info.parameters,
      stepMs: torchMs!,
      stepMsOneThread: torchOneMs!,
      oursStepMsTwoThreads: oursMs!,
      ratio: oursMs! / torchMs!,
      ratioToFaster: oursMs! / Math.min(torchMs!, torchOneMs!),
    };
  } finally {
    await Promise.all([reference.close(), single.close()]);
  }
}
