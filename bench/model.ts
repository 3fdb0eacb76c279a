import * as tf from '@tensorflow/tfjs';
import { initBackend } from '../agent/backend.ts';
import { attentionModeFor, createModel, defaultModelConfig, sampleToken, type PolicyModel } from '../agent/model.ts';
import { Rng } from '../lib/rng.ts';

/**
 * Model benchmark: the default policy (vocab 250) on the active backend.
 *
 * - training step: forward + backward + Adam on 64 sequences of 96 tokens, loss = mean
 *   negative tokenLogProbs (a cross-entropy), median of 5 timed steps after 2 warm-up steps;
 * - GFLOP/s = (6 * P * N + 12 * L * T * d * N) / step time, with P parameters, N = 64 * 95
 *   predicted positions, T = 95 positions per sequence, L layers, d width (the usual 6PN for a
 *   dense forward+backward, plus causal attention's QK^T and AV products, not halved for the mask);
 * - sampling: a 160-row session fed ragged chunks (a 20-40 token prompt per row, then one sampled
 *   token per step, with a 5-15 token "observation" after every ~10 tokens), up to 120 tokens per
 *   row; tokens/s counts every token fed;
 * - memory: peak process RSS and tfjs's live tensor bytes.
 */
export async function run(say: (line: string) => void): Promise<Record<string, number | string>> {
  const backend = await initBackend();
  const cfg = defaultModelConfig(250);
  const model = createModel(cfg, new Rng('bench/model'), { attention: attentionModeFor(backend) });
  let peakRss = process.memoryUsage().rss;
  let peakTensorBytes = tf.memory().numBytes;
  const sampleMemory = () => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    peakTensorBytes = Math.max(peakTensorBytes, tf.memory().numBytes);
  };
  try {
    say(`backend            ${backend}  (attention: ${model.attentionMode})`);
    say(`parameters         ${model.parameterCount().toLocaleString('en-US')}`);

    const stepMs = trainingStepMs(model, 64, 96, sampleMemory);
    const positions = 64 * 95;
    const flops = 6 * model.parameterCount() * positions + 12 * cfg.nLayers * 95 * cfg.dModel * positions;
    const gflops = flops / (stepMs / 1000) / 1e9;
    say(`train step         ${stepMs.toFixed(0)} ms  (64 x 96 tokens, forward+backward+Adam, median of 5)`);
    say(`throughput         ${gflops.toFixed(2)} GFLOP/s  (${(flops / 1e9).toFixed(2)} GFLOP per step)`);

    const sampling = samplingRate(model, 160, sampleMemory);
    say(`sampling           ${sampling.tokensPerSecond.toFixed(0)} tokens/s fed, ${sampling.sampledPerSecond.toFixed(0)} sampled tokens/s  (batch 160, ragged chunks, KV cache)`);
    sampleMemory();
    say(`peak memory        rss ${(peakRss / 2 ** 20).toFixed(0)} MiB, tf tensors ${(peakTensorBytes / 2 ** 20).toFixed(1)} MiB`);
    return {
      backend,
      parameters: model.parameterCount(),
      trainStepMs: round(stepMs),
      gflopsPerSecond: round(gflops),
      samplingTokensPerSecond: round(sampling.tokensPerSecond),
      sampledTokensPerSecond: round(sampling.sampledPerSecond),
      peakRssMiB: round(peakRss / 2 ** 20),
      peakTensorMiB: round(peakTensorBytes / 2 ** 20),
    };
  } finally {
    model.dispose();
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function trainingStepMs(model: PolicyModel, batch: number, length: number, sampleMemory: () => void): number {
  const rng = new Rng('bench/model/data');
  const ids = tf.tensor2d(Int32Array.from({ length: batch * length }, () => rng.int(model.config.vocabSize)), [batch, length], 'int32');
  const optimizer = tf.train.adam(1e-3);
  const step = () => {
    const loss = optimizer.minimize(() => tf.neg(tf.mean(model.tokenLogProbs(ids))) as tf.Scalar, true, model.variables());
    loss?.dataSync();
    loss?.dispose();
  };
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const start = performance.now();
    step();
    if (i >= 2) times.push(performance.now() - start);
    sampleMemory();
  }
  ids.dispose();
  optimizer.dispose();
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

function samplingRate(model: PolicyModel, batch: number, sampleMemory: () => void): { tokensPerSecond: number; sampledPerSecond: number } {
  const rng = new Rng('bench/model/sampling');
  const vocab = model.config.vocabSize;
  const limit = 120;
  const session = model.startSession(batch);
  let fedTokens = 0;
  let sampled = 0;
  const start = performance.now();
  try {
    let chunks = Array.from({ length: batch }, () => Array.from({ length: 20 + rng.int(21) }, () => rng.int(vocab)));
    const untilObservation = Array.from({ length: batch }, () => 5 + rng.int(10));
    for (;;) {
      fedTokens += chunks.reduce((total, chunk) => total + chunk.length, 0);
      const logits = session.feed(chunks);
      sampleMemory();
      chunks = chunks.map((_, b) => {
        const room = limit - session.tokensFed(b);
        if (room <= 0) return [];
        const token = sampleToken(logits, vocab, b, 1, rng);
        sampled++;
        untilObservation[b] = (untilObservation[b] as number) - 1;
        if ((untilObservation[b] as number) > 0) return [token];
        untilObservation[b] = 5 + rng.int(10);
        const observation = Array.from({ length: Math.min(room - 1, 5 + rng.int(11)) }, () => rng.int(vocab));
        return [token, ...observation];
      });
      if (chunks.every((chunk) => chunk.length === 0)) break;
    }
  } finally {
    session.dispose();
  }
  const seconds = (performance.now() - start) / 1000;
  return { tokensPerSecond: fedTokens / seconds, sampledPerSecond: sampled / seconds };
}
