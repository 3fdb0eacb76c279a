import v8 from 'node:v8';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '../agent/backend.ts';
import {
  checkProductBounds,
  kernelsModuleText,
  PRODUCT_KERNEL,
  productsInstalled,
  selfTest,
  tilesOf,
  useBoundsChecks,
  withTiles,
  type ProductGeometry,
} from '../agent/kernels/index.ts';
import { createModel, sampleToken, type PolicyModel } from '../agent/model.ts';
import { Rng } from '../lib/rng.ts';
import { trainingModelConfig } from '../train/run.ts';
import { fastest, fastestInTurn, timed } from './best.ts';

/**
 * Model benchmark: the policy every training builds (the project's vocabulary) on the active
 * backend, one thread: where a training step's time goes (`stepProfile`), sampling
 * (`samplingRate`), peak memory, what our kernels' safety costs (`kernelSafety`) and what fused
 * multiply-adds would gain (`fusedMultiplyAdd`).
 */
export async function run(say: (line: string) => void): Promise<Record<string, number | string>> {
  const backend = await initBackend();
  const model = createModel(trainingModelConfig(), new Rng('bench/model'));
  let peakRss = process.memoryUsage().rss;
  let peakTensorBytes = tf.memory().numBytes;
  const sampleMemory = () => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    peakTensorBytes = Math.max(peakTensorBytes, tf.memory().numBytes);
  };
  try {
    say(`backend            ${backend}`);
    say(`parameters         ${model.parameterCount().toLocaleString('en-US')}`);

    const profile = await stepProfile(model, 64, 96, sampleMemory);
    say(
      `step profile       64 x 96 tokens, one thread: kernels ${profile.forwardMs.toFixed(0)} ms forward, ${profile.backwardMs.toFixed(0)} ms backward + Adam`,
    );
    say(`  op type                  forward ms  backward+Adam ms  calls`);
    for (const row of profile.rows)
      say(
        `  ${row.op.padEnd(24)} ${row.forwardMs.toFixed(1).padStart(10)}  ${row.backwardMs.toFixed(1).padStart(16)}  ${String(row.calls).padStart(5)}`,
      );

    const sampling = fastest(
      Array.from({ length: 3 }, () => samplingRate(model, 160, sampleMemory)),
      (run) => 1 / run.tokensPerSecond,
    );
    say(
      `sampling           ${sampling.tokensPerSecond.toFixed(0)} tokens/s fed, ${sampling.sampledPerSecond.toFixed(0)} sampled tokens/s  (batch 160, ragged chunks, KV cache, one thread, best of 3)`,
    );
    sampleMemory();
    const kernels = productsInstalled() ? await kernelFigures(model, say) : {};
    say(
      `peak memory        rss ${(peakRss / 2 ** 20).toFixed(0)} MiB, tf tensors ${(peakTensorBytes / 2 ** 20).toFixed(1)} MiB`,
    );
    return {
      backend,
      parameters: model.parameterCount(),
      profileForwardMs: round(profile.forwardMs),
      profileBackwardMs: round(profile.backwardMs),
      // The profile's rows, as printed: `profile/<op type>/forwardMs`, `.../backwardMs`, `.../calls`.
      ...Object.fromEntries(
        profile.rows.flatMap((row) => [
          [`profile/${row.op}/forwardMs`, round(row.forwardMs)],
          [`profile/${row.op}/backwardMs`, round(row.backwardMs)],
          [`profile/${row.op}/calls`, row.calls],
        ]),
      ),
      samplingTokensPerSecond: round(sampling.tokensPerSecond),
      sampledTokensPerSecond: round(sampling.sampledPerSecond),
      ...kernels,
      peakRssMiB: round(peakRss / 2 ** 20),
      peakTensorMiB: round(peakTensorBytes / 2 ** 20),
    };
  } finally {
    model.dispose();
  }
}

/**
 * Our kernels' figures on one training step of 64 x 96 tokens, said and returned: what their
 * safety costs (`kernelSafety`) and what fused multiply-adds would gain (`fusedMultiplyAdd`).
 */
async function kernelFigures(model: PolicyModel, say: (line: string) => void) {
  const { step, dispose } = trainingStep(model, 64, 96);
  try {
    const safety = await kernelSafety(model, step, 64, 96);
    say(`kernel self-test   ${safety.selfTestMs.toFixed(2)} ms  (once at start, best of 5)`);
    say(
      `bounds checks      step ${safety.checkedMs.toFixed(0)} ms with, ${safety.uncheckedMs.toFixed(0)} ms without (in turn, best of 5); ${safety.productCalls} product calls, ${safety.checkUs.toFixed(3)} µs per check alone`,
    );
    const fused = await fusedMultiplyAdd(step);
    say(
      'separateMs' in fused
        ? `fused multiply-add step ${fused.fusedMs.toFixed(0)} ms with the tiles' f32x4.relaxed_madd, ${fused.separateMs.toFixed(0)} ms with a multiply and an add (in turn, best of 5): ${(fused.separateMs / fused.fusedMs).toFixed(2)}x; other bits, so training does not use it`
        : `fused multiply-add not measured: ${fused.unavailable}`,
    );
    return {
      'kernels/selfTestMs': round(safety.selfTestMs),
      'kernels/stepMsBoundsChecked': round(safety.checkedMs),
      'kernels/stepMsUnchecked': round(safety.uncheckedMs),
      'kernels/productCallsPerStep': safety.productCalls,
      'kernels/boundsCheckMicroseconds': Math.round(safety.checkUs * 1000) / 1000,
      ...('separateMs' in fused
        ? {
            'kernels/stepMsFusedMultiplyAdd': round(fused.fusedMs),
            'kernels/stepMsSeparateMultiplyAdd': round(fused.separateMs),
          }
        : {}),
    };
  } finally {
    dispose();
  }
}

const round = (value: number): number => Math.round(value * 100) / 100;

/** One training step on random tokens (loss: mean negative tokenLogProbs): forward + backward + Adam, and the forward alone. */
function trainingStep(model: PolicyModel, batch: number, length: number) {
  const rng = new Rng('bench/model/data');
  const ids = tf.tensor2d(
    Int32Array.from({ length: batch * length }, () => rng.int(model.config.vocabSize)),
    [batch, length],
    'int32',
  );
  const optimizer = tf.train.adam(1e-3);
  const step = () => {
    const loss = optimizer.minimize(
      () => tf.neg(tf.mean(model.tokenLogProbs(ids))) as tf.Scalar,
      true,
      model.variables(),
    );
    loss?.dataSync();
    loss?.dispose();
  };
  const forward = () =>
    tf.tidy(() => {
      model.tokenLogProbs(ids).dataSync();
    });
  const dispose = () => {
    ids.dispose();
    optimizer.dispose();
  };
  return { step, forward, dispose };
}

/**
 * What our kernels' safety costs: the self-test's time (best of 5); the training step with the
 * bounds checks on and off, in turn (best of 5 each), its product calls; and one check alone
 * (the attention form's geometry, best of 3 runs of 100,000 calls).
 */
async function kernelSafety(model: PolicyModel, step: () => void, batch: number, length: number) {
  const selfTestMs = Math.min(...Array.from({ length: 5 }, () => timed(() => selfTest()).ms));
  const productCalls = (await tf.profile(step)).kernels.filter((k) => k.name === PRODUCT_KERNEL).length;
  const stepWith = (checks: boolean) => async () => {
    useBoundsChecks(checks);
    try {
      return timed(step).ms;
    } finally {
      useBoundsChecks(true);
    }
  };
  const [checkedMs, uncheckedMs] = await fastestInTurn([stepWith(true), stepWith(false)], (ms) => ms, {
    repeats: 5,
    warmUps: 1,
  });
  const heads = model.config.nHeads;
  const width = model.config.dModel / heads;
  const geometry: ProductGeometry = {
    rows: length,
    depth: width,
    cols: length,
    batch,
    heads,
    aStrides: [length * 3 * model.config.dModel, width, 3 * model.config.dModel, 1],
    bStrides: [heads * width * length, width * length, length],
    cStrides: [heads * length * length, length * length, length],
    outShape: [batch, heads, length, length],
  };
  const sizes = {
    a: batch * length * 3 * model.config.dModel,
    b: batch * heads * width * length,
    out: batch * heads * length * length,
  };
  const calls = 100_000;
  const checkAll = () => {
    for (let i = 0; i < calls; i++) checkProductBounds(PRODUCT_KERNEL, geometry, sizes);
  };
  const checkMs = Math.min(...Array.from({ length: 3 }, () => timed(checkAll).ms));
  return {
    selfTestMs,
    checkedMs: checkedMs!,
    uncheckedMs: uncheckedMs!,
    productCalls,
    checkUs: (1000 * checkMs) / calls,
  };
}

/**
 * What fused multiply-adds would gain: the training step with the tiles of
 * `kernelsModuleText({ fused: true })` against the kernels in use, in turn, best of 5 each. Node
 * 20 compiles relaxed SIMD only under V8's --experimental-wasm-relaxed-simd, which this sets for
 * the bench's process.
 */
async function fusedMultiplyAdd(
  step: () => void,
): Promise<{ separateMs: number; fusedMs: number } | { unavailable: string }> {
  v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
  const timedStep = async () => timed(step).ms;
  try {
    const fused = await tilesOf(kernelsModuleText({ fused: true }));
    const [separateMs, fusedMs] = await fastestInTurn(
      [timedStep, () => withTiles(fused, timedStep)],
      (ms) => ms,
      { repeats: 5, warmUps: 1 },
    );
    return { separateMs: separateMs!, fusedMs: fusedMs! };
  } catch (error) {
    return { unavailable: error instanceof Error ? error.message : String(error) };
  }
}

/** Kernel time per op type (tf.profile): the forward alone, then a whole step; backward + Adam is the difference. */
async function stepProfile(model: PolicyModel, batch: number, length: number, sampleMemory: () => void) {
  const { step, forward, dispose } = trainingStep(model, batch, length);
  for (let i = 0; i < 2; i++) {
    step();
    forward();
    sampleMemory();
  }
  // Scopes (customGrad's 'unnamed scope', fused ops' '__op') wrap kernels that are counted themselves.
  const byOp = (info: Awaited<ReturnType<typeof tf.profile>>) => {
    const totals = new Map<string, { ms: number; calls: number }>();
    for (const kernel of info.kernels) {
      if (kernel.name === 'unnamed scope' || kernel.name.endsWith('__op')) continue;
      const entry = totals.get(kernel.name) ?? { ms: 0, calls: 0 };
      entry.ms += Number(kernel.kernelTimeMs) || 0;
      entry.calls += 1;
      totals.set(kernel.name, entry);
    }
    return totals;
  };
  const forwardOps = byOp(await tf.profile(forward));
  const stepOps = byOp(await tf.profile(step));
  dispose();
  const rows = [...stepOps]
    .map(([op, { ms, calls }]) => {
      const fwd = forwardOps.get(op)?.ms ?? 0;
      return { op, forwardMs: fwd, backwardMs: Math.max(0, ms - fwd), calls };
    })
    .sort((a, b) => b.forwardMs + b.backwardMs - a.forwardMs - a.backwardMs);
  const sum = (some: typeof rows) => ({
    forwardMs: some.reduce((t, r) => t + r.forwardMs, 0),
    backwardMs: some.reduce((t, r) => t + r.backwardMs, 0),
    calls: some.reduce((t, r) => t + r.calls, 0),
  });
  const top = rows.slice(0, 12);
  const rest = rows.slice(12);
  if (rest.length > 0) top.push({ op: `other (${rest.length} op types)`, ...sum(rest) });
  const { forwardMs, backwardMs } = sum(rows);
  return { forwardMs, backwardMs, rows: top };
}

/**
 * Sampling: a `batch`-row session fed ragged chunks (a 20-40 token prompt, then one sampled token
 * a step, a 5-15 token "observation" every ~10 tokens), up to 120 tokens a row; every token fed counts.
 */
function samplingRate(model: PolicyModel, batch: number, sampleMemory: () => void) {
  const rng = new Rng('bench/model/sampling');
  const vocab = model.config.vocabSize;
  const limit = 120;
  const session = model.startSession(batch);
  let fedTokens = 0;
  let sampled = 0;
  const start = performance.now();
  try {
    let chunks = Array.from({ length: batch }, () =>
      Array.from({ length: 20 + rng.int(21) }, () => rng.int(vocab)),
    );
    const untilObservation = Array.from({ length: batch }, () => 5 + rng.int(10));
    do {
      fedTokens += chunks.reduce((total, chunk) => total + chunk.length, 0);
      const logits = session.feed(chunks);
      sampleMemory();
      chunks = chunks.map((_, b) => {
        const room = limit - session.tokensFed(b);
        if (room <= 0) return [];
        const token = sampleToken(logits, vocab, b, 1, rng);
        sampled++;
        untilObservation[b]! -= 1;
        if (untilObservation[b]! > 0) return [token];
        untilObservation[b] = 5 + rng.int(10);
        const observation = Array.from({ length: Math.min(room - 1, 5 + rng.int(11)) }, () => rng.int(vocab));
        return [token, ...observation];
      });
    } while (chunks.some((chunk) => chunk.length > 0));
  } finally {
    session.dispose();
  }
  const seconds = (performance.now() - start) / 1000;
  return { tokensPerSecond: fedTokens / seconds, sampledPerSecond: sampled / seconds };
}
