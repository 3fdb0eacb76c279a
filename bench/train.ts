import * as tf from '@tensorflow/tfjs';
import { makeTasks } from '../gym/index.ts';
import { buildTokenizer, createModel, defaultModelConfig, episodeSpecs, initBackend, rollout, type Agent } from '../agent/index.ts';
import { defaultRLConfig, grpoStep, harnessOf } from '../train/index.ts';
import { TwinWorker } from '../train/twin.ts';
import { Rng } from '../lib/rng.ts';

/**
 * Training benchmark on the real gym with the default model and harness:
 * - rollout episodes/s: 320 held-out episodes (32 per task) played in lockstep with the key/value
 *   cache, one thread;
 * - one default GRPO step (20 training tasks x group 8, 4 update epochs), on one thread and on
 *   two (the worker thread `npm run train` uses), split into rollout and update seconds.
 * The policy is untrained, so episodes are a little longer than a trained agent's.
 */
export async function run(say: (line: string) => void): Promise<Record<string, number | string>> {
  const backend = await initBackend();
  const tokenizer = buildTokenizer(makeTasks('all'));
  const agent: Agent = { model: createModel(defaultModelConfig(tokenizer.words.length), new Rng('bench/train')), tokenizer };
  const config = defaultRLConfig();
  const harness = harnessOf(config);
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

    const timeStep = async (twin?: TwinWorker) => {
      const optimizer = tf.train.adam(config.learningRate);
      await grpoStep(agent, optimizer, config, harness, train, new Rng('bench/warm'), { twin });
      const stats = await grpoStep(agent, optimizer, config, harness, train, new Rng('bench/step'), { twin });
      optimizer.dispose();
      return stats;
    };
    const single = await timeStep();
    say(`GRPO step, 1 thread   ${(single.rolloutSeconds + single.updateSeconds).toFixed(2)} s  (rollouts ${single.rolloutSeconds.toFixed(2)} s, ${config.updateEpochs} updates ${single.updateSeconds.toFixed(2)} s)`);
    const twin = await TwinWorker.start(agent, backend);
    const double = await timeStep(twin);
    await twin.close();
    say(`GRPO step, 2 threads  ${(double.rolloutSeconds + double.updateSeconds).toFixed(2)} s  (rollouts ${double.rolloutSeconds.toFixed(2)} s, ${config.updateEpochs} updates ${double.updateSeconds.toFixed(2)} s)`);
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
