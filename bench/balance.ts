// The two-thread GRPO gradient, split as `planJob(job, 2)` does (each thread its own share, one
// tape) against work stealing (the rows in parts of CHUNK rows, longest first, each thread
// claiming the next unclaimed part through a shared counter), in turn with one thread, medians
// of ROUNDS. Also checks that per-part gradients added from the last part to the first equal a
// share's one-tape gradient bit for bit. Work stealing regroups the rows, so it moves float
// rounding; this only times it. `node --import tsx bench/balance.ts [checkpoint]`, with CHUNK
// and ROUNDS in the environment (defaults 20 and 10); no checkpoint: the bench's untrained policy.
import * as tf from '@tensorflow/tfjs';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { loadavg } from 'node:os';
import { episodeSpecs, makeTasks, pickHarness } from '../gym/index.ts';
import {
  buildTokenizer,
  createModel,
  defaultModelConfig,
  getWeights,
  initBackend,
  loadAgent,
  modelFromWeights,
  rollout,
  type PolicyModel,
} from '../agent/index.ts';
import { defaultRLConfig, padBatch, planJob, selectRows, type LossJob } from '../train/index.ts';
import { partsGradients, type JobPart } from '../train/losses.ts';
import { Rng } from '../lib/rng.ts';

type Grads = Float32Array[];

function gradsOf(model: PolicyModel, parts: readonly JobPart[]): Grads {
  const { grads } = partsGradients(model, parts);
  const out = model.variables().map((v) => Float32Array.from(grads[v.name]!.dataSync()));
  tf.dispose(Object.values(grads));
  return out;
}

/** The parts' gradient, one tape per part, added last part first (the same bits as one tape). */
function perPartGradsOf(model: PolicyModel, parts: readonly JobPart[]): Grads {
  return [...parts]
    .reverse()
    .reduce<Grads | undefined>((acc, part) => addInto(acc, gradsOf(model, [part])), undefined)!;
}

/** How many values of `a` differ from `b`'s (bit for bit; the same order of variables). */
function differing(a: Grads, b: Grads): number {
  return a.reduce((n, g, i) => n + g.reduce((k, x, j) => k + (x === b[i]![j] ? 0 : 1), 0), 0);
}

function addInto(acc: Grads | undefined, g: Grads): Grads {
  if (acc === undefined) return g;
  acc.forEach((x, i) => {
    const y = g[i]!;
    for (let j = 0; j < x.length; j += 1) x[j]! += y[j]!;
  });
  return acc;
}

if (!isMainThread) {
  await initBackend({ preference: 'wasm' });
  let model: PolicyModel | undefined;
  parentPort!.on('message', (m) => {
    if (m.type === 'init') {
      model = modelFromWeights(m.config, m.weights, { attention: 'depthwise' });
      parentPort!.postMessage({ type: 'ready' });
    } else if (m.type === 'claim') {
      const flags = new Int32Array(m.flags);
      for (const i of m.order as number[])
        if (Atomics.compareExchange(flags, i, 0, 1) === 0)
          parentPort!.postMessage({ type: 'part', index: i, grads: gradsOf(model!, [m.parts[i]]) });
      parentPort!.postMessage({ type: 'done' });
    } else if (m.type === 'perPart') {
      parentPort!.postMessage({ type: 'done', grads: perPartGradsOf(model!, m.parts) });
    } else if (m.type === 'share') {
      parentPort!.postMessage({ type: 'done', grads: gradsOf(model!, m.parts) });
    } else {
      const claimed = new Int32Array(m.counter);
      for (let i = Atomics.add(claimed, 0, 1); i < m.parts.length; i = Atomics.add(claimed, 0, 1))
        parentPort!.postMessage({ type: 'part', grads: gradsOf(model!, [m.parts[i]]) });
      parentPort!.postMessage({ type: 'done' });
    }
  });
} else {
  await initBackend({ preference: 'wasm' });
  const checkpoint = process.argv[2];
  const tokenizer = buildTokenizer(makeTasks('all'));
  const agent =
    checkpoint !== undefined
      ? (await loadAgent(checkpoint, { attention: 'depthwise' })).agent
      : {
          model: createModel(defaultModelConfig(tokenizer.words.length), new Rng('bench/train'), {
            attention: 'depthwise',
          }),
          tokenizer,
        };
  const train = makeTasks('train');
  const specs = episodeSpecs(train, 8, new Rng('bench'));
  const job: LossJob = {
    kind: 'grpo',
    batch: padBatch(rollout(agent, pickHarness(defaultRLConfig()), train, specs), agent.tokenizer.padId),
    advantages: Float32Array.from(specs, (_, i) => (i % 2 === 0 ? 1 : -1)),
    clipEpsilon: 0.2,
    klCoef: 0,
    entropyCoef: 0.01,
  };
  const model = agent.model;
  const [whole] = planJob(job, 1);
  const [mine, theirs] = planJob(job, 2);
  const shape = (parts: readonly JobPart[]) =>
    parts.map((p) => `${p.job.batch.batchSize}x${p.job.batch.length}`).join(' ');

  // Per-part gradients, added last part first, against the share's one tape.
  const tape = gradsOf(model, mine!);
  const folded = perPartGradsOf(model, mine!);
  const differ = differing(tape, folded);
  console.log(
    `shares: ${shape(mine!)} | ${shape(theirs!)}; per-part gradients added last part first: ${differ} of the share's gradient values differ`,
  );

  const chunk = Number(process.env.CHUNK ?? 20);
  const longestFirst = Array.from({ length: job.batch.batchSize }, (_, r) => r).sort(
    (a, b) => job.batch.lengths[b]! - job.batch.lengths[a]! || a - b,
  );
  const fine: JobPart[] = [];
  for (let s = 0; s < longestFirst.length; s += chunk) {
    const rows = longestFirst.slice(s, s + chunk);
    fine.push({ job: selectRows(job, rows), weight: rows.length / job.batch.batchSize });
  }
  console.log(`stealing parts: ${shape(fine)}`);

  // The thread needs its own TypeScript loader, as train/worker-entry.js registers.
  const entry = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(entry, { eval: true });
  let onPart: (grads: Grads, index: number) => void = () => undefined;
  let onDone: (m: { grads?: Grads }) => void = () => undefined;
  worker.on('message', (m) => (m.type === 'part' ? onPart(m.grads, m.index) : onDone(m)));
  const request = (m: object) =>
    new Promise<{ grads?: Grads }>((resolve) => {
      onDone = resolve;
      worker.postMessage(m);
    });
  await request({ type: 'init', config: model.config, weights: getWeights(model) });

  const timed = (f: () => Grads | Promise<Grads>) => {
    const run = async () => {
      const start = performance.now();
      await f();
      return performance.now() - start;
    };
    return Object.assign(run, { result: async () => await f() });
  };
  const runs = {
    oneThread: timed(() => gradsOf(model, whole!)),
    split: timed(async () => {
      const theirsDone = request({ type: 'share', parts: theirs });
      const acc = gradsOf(model, mine!);
      return addInto(acc, (await theirsDone).grads!);
    }),
    onePerPart: timed(() => perPartGradsOf(model, whole!)),
    splitPerPart: timed(async () => {
      const theirsDone = request({ type: 'perPart', parts: theirs });
      const acc = perPartGradsOf(model, mine!);
      return addInto(acc, (await theirsDone).grads!);
    }),
    stealingTheParts: timed(async () => {
      // The split's own parts, the worker's share first; each thread takes its own parts, costliest
      // first, then the other's, cheapest first. Each share's parts are added last part first.
      const pool = [...theirs!, ...mine!];
      const cost = (i: number) => {
        const b = pool[i]!.job.batch;
        return b.batchSize * b.length * (1 + b.length / 220) + 128;
      };
      const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
      const own = (ids_: number[]) => [...ids_].sort((a, b) => cost(b) - cost(a));
      const other = (ids_: number[]) => [...ids_].sort((a, b) => cost(a) - cost(b));
      const theirsIds = ids(0, theirs!.length);
      const mineIds = ids(theirs!.length, pool.length);
      const flags = new Int32Array(new SharedArrayBuffer(4 * pool.length));
      const got: Grads[] = [];
      onPart = (grads, index) => {
        got[index] = grads;
      };
      const done = request({
        type: 'claim',
        parts: pool,
        flags: flags.buffer,
        order: [...own(theirsIds), ...other(mineIds)],
      });
      for (const i of [...own(mineIds), ...other(theirsIds)])
        if (Atomics.compareExchange(flags, i, 0, 1) === 0) got[i] = gradsOf(model, [pool[i]!]);
      await done;
      const fold = (ids_: number[]) =>
        [...ids_].reverse().reduce<Grads | undefined>((acc, i) => addInto(acc, got[i]!), undefined)!;
      return addInto(fold(theirsIds), fold(mineIds));
    }),
    stealing: timed(async () => {
      const counter = new SharedArrayBuffer(4);
      const claimed = new Int32Array(counter);
      const arrived: Grads[] = [];
      onPart = (grads) => arrived.push(grads);
      const done = request({ type: 'steal', parts: fine, counter });
      let acc: Grads | undefined;
      for (let i = Atomics.add(claimed, 0, 1); i < fine.length; i = Atomics.add(claimed, 0, 1))
        acc = addInto(acc, gradsOf(model, [fine[i]!]));
      await done;
      return arrived.reduce((sum, g) => addInto(sum, g), acc)!;
    }),
  };
  for (const run of Object.values(runs)) for (let i = 0; i < 2; i += 1) await run();
  const [splitGrads, theirGrads] = [await runs.split.result(), await runs.stealingTheParts.result()];
  console.log(
    `stealing the split's own parts: ${differing(splitGrads, theirGrads)} gradient values differ from the split's`,
  );
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(runs).map((name) => [name, []]));
  const rounds = Number(process.env.ROUNDS ?? 10);
  const load = loadavg()[0]!;
  for (let r = 0; r < rounds; r += 1)
    for (const [name, run] of Object.entries(runs)) times[name]!.push(await run());
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const one = median(times.oneThread!);
  console.log(
    `medians of ${rounds}, load ${load.toFixed(1)}: ` +
      Object.entries(times)
        .map(([name, xs]) => `${name} ${median(xs).toFixed(0)} ms (${(one / median(xs)).toFixed(2)}x)`)
        .join(', '),
  );
  await worker.terminate();
}
