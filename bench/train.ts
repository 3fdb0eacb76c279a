import * as tf from '@tensorflow/tfjs';
import { episodeSpecs, makeTasks, pickHarness } from '../gym/index.ts';
import { attentionModeFor, buildTokenizer, createModel, defaultModelConfig, initBackend, rollout, type Agent } from '../agent/index.ts';
import { defaultRLConfig, optimizerStep, padBatch, rolloutOnCores, DataParallelWorker, type LossJob } from '../train/index.ts';
import { Rng } from '../lib/rng.ts';

/**
 * Training benchmark on the real gym with the default model and harness:
 * - rollout episodes/s: 320 held-out episodes (32 per task) played in lockstep with the key/value
 *   cache, one thread;
 * - the work of one default GRPO step (160 episodes, then 4 Adam steps on their transcripts), on
 *   one thread and on two (the worker thread `npm run train` uses).
 * The policy is untrained, so episodes are a little longer than a trained agent's.
 */
export async function run(say: (line: string) => void): Promise<Record<string, number | string>> {
  const backend = await initBackend();
  const tokenizer = buildTokenizer(makeTasks('all'));
  const agent: Agent = { model: createModel(defaultModelConfig(tokenizer.words.length), new Rng('bench/train'), { attention: attentionModeFor(backend) }), tokenizer };
  const config = defaultRLConfig();
  const harness = pickHarness(config);
  const heldOut = makeTasks('heldout');
  const train = makeTasks('train');
  try {
    rollout(agent, harness, heldOut, episodeSpecs(heldOut, 2, new Rng('warm')));
    const started = performance.now();
    const records = rollout(agent, harness, heldOut, episodeSpecs(heldOut, 32, new Rng('bench')));
    const rolloutSeconds = (performance.now() - started) / 1000;
    const episodesPerSecond = records.length / rolloutSeconds;
    const meanTokens = records.reduce((sum, record) => sum + record.tokens.length, 0) / records.length;
    say(`rollouts           ${episodesPerSecond.toFixed(0)} episodes/s  (${records.length} episodes, ${meanTokens.toFixed(0)} tokens each on average, one thread, ${backend})`);

    // One default GRPO step's work: 160 episodes (20 training tasks x group 8), then 4 Adam
    // steps on their transcripts. The untrained policy earns no reward, so the advantages are
    // set to +-1 here to time the update the real step would make.
    const specs = episodeSpecs(train, config.groupSize, new Rng('bench'));
    const job: LossJob = {
      kind: 'grpo', batch: padBatch(rollout(agent, harness, train, specs), tokenizer.padId),
      advantages: Float32Array.from(specs, (_, i) => (i % 2 === 0 ? 1 : -1)), clipEpsilon: config.clipEpsilon, klCoef: 0,
    };
    const timeStep = async (worker?: DataParallelWorker) => {
      const optimizer = tf.train.adam(config.learningRate);
      await optimizerStep(agent, optimizer, job, { maxGradNorm: config.maxGradNorm, worker });
      const rolloutStart = performance.now();
      await rolloutOnCores(agent, harness, train, specs, worker);
      const updateStart = performance.now();
      for (let epoch = 0; epoch < config.updateEpochs; epoch += 1) await optimizerStep(agent, optimizer, job, { maxGradNorm: config.maxGradNorm, worker });
      const done = performance.now();
      optimizer.dispose();
      return { rolloutSeconds: (updateStart - rolloutStart) / 1000, updateSeconds: (done - updateStart) / 1000 };
    };
    const single = await timeStep();
    say(`GRPO step, 1 thread   ${(single.rolloutSeconds + single.updateSeconds).toFixed(2)} s  (160 rollouts ${single.rolloutSeconds.toFixed(2)} s, ${config.updateEpochs} updates on ${job.batch.batchSize} x ${job.batch.length} tokens ${single.updateSeconds.toFixed(2)} s)`);
    const worker = await DataParallelWorker.start(agent, backend);
    const double = await timeStep(worker);
    await worker.close();
    say(`GRPO step, 2 threads  ${(double.rolloutSeconds + double.updateSeconds).toFixed(2)} s  (160 rollouts ${double.rolloutSeconds.toFixed(2)} s, ${config.updateEpochs} updates ${double.updateSeconds.toFixed(2)} s)`);
    say(`peak memory        rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
    return {
      backend,
      rolloutEpisodesPerSecond: episodesPerSecond,
      grpoStepSecondsOneThread: single.rolloutSeconds + single.updateSeconds,
      grpoStepSecondsTwoThreads: double.rolloutSeconds + double.updateSeconds,
      rssMiB: process.memoryUsage().rss / 2 ** 20,
    };
  } finally {
    agent.model.dispose();
  }
}
