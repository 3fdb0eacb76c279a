// Thread against child-process worker, in turn with one thread, best of N (argv[2], default 5): wall ms,
// CPU ms of the process and its children, and the main thread's CPU ms. `node --import tsx bench/workerVia.ts 6`.
import * as tf from '@tensorflow/tfjs';
import { episodeSpecs, makeTasks, pickHarness } from '../gym/index.ts';
import {
  attentionModeFor,
  buildTokenizer,
  createModel,
  defaultModelConfig,
  initBackend,
  rollout,
  type Agent,
} from '../agent/index.ts';
import {
  defaultRLConfig,
  oneThread,
  optimizerStep,
  padBatch,
  twoThreads,
  type Compute,
  type LossJob,
} from '../train/index.ts';
import { Rng } from '../lib/rng.ts';
import { loadavg } from 'node:os';
import { readFileSync, readdirSync } from 'node:fs';
const childCpuMs = () => {
  let ticks = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    let kids = '';
    try {
      kids = readFileSync(`/proc/self/task/${tid}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const pid of kids.trim().split(/\s+/).filter(Boolean)) {
      try {
        const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        ticks += Number(f[11]) + Number(f[12]);
      } catch {}
    }
  }
  return ticks * 10;
};
const mainCpuMs = () => {
  const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000 + childCpuMs();
};

const N = Number(process.argv[2] ?? 5);
const backend = await initBackend();
const tokenizer = buildTokenizer(makeTasks('all'));
const agent: Agent = {
  model: createModel(defaultModelConfig(tokenizer.words.length), new Rng('bench/train'), {
    attention: attentionModeFor(backend),
  }),
  tokenizer,
};
const config = defaultRLConfig();
const harness = pickHarness(config);
const train = makeTasks('train');
const heldOut = makeTasks('heldout');
const computes: Record<string, Compute> = {
  one: oneThread(),
  thread: twoThreads({ backend, via: 'thread' }),
  process: twoThreads({ backend, via: 'process' }),
};
const rng = new Rng('bench/train/data');
const step: LossJob = {
  kind: 'bc',
  batch: padBatch(
    Array.from({ length: 64 }, () => ({
      tokens: Array.from({ length: 96 }, () => rng.int(agent.model.config.vocabSize)),
      actionMask: new Array<number>(96).fill(1),
    })),
    tokenizer.padId,
  ),
};
const grpoSpecs = episodeSpecs(train, config.groupSize, new Rng('bench'));
const job: LossJob = {
  kind: 'grpo',
  batch: padBatch(rollout(agent, harness, train, grpoSpecs), tokenizer.padId),
  advantages: Float32Array.from(grpoSpecs, (_, i) => (i % 2 === 0 ? 1 : -1)),
  clipEpsilon: config.clipEpsilon,
  klCoef: 0,
  entropyCoef: config.entropyCoef,
};
const rollSpecs = episodeSpecs(heldOut, 32, new Rng('bench'));
const tests: Record<string, (c: Compute) => Promise<number>> = {
  step: async (c) => {
    const o = tf.train.adam(1e-4);
    await optimizerStep(agent, o, step, { compute: c, maxGradNorm: 1 });
    const t = performance.now();
    for (let i = 0; i < 3; i++) await optimizerStep(agent, o, step, { compute: c, maxGradNorm: 1 });
    const ms = (performance.now() - t) / 3;
    o.dispose();
    return ms;
  },
  rollout: async (c) => {
    const t = performance.now();
    await c.rollout(agent, harness, heldOut, rollSpecs);
    return performance.now() - t;
  },
  grpoUpdates: async (c) => {
    const o = tf.train.adam(1e-3);
    const t = performance.now();
    for (let e = 0; e < 4; e++) await optimizerStep(agent, o, job, { compute: c, maxGradNorm: 1 });
    const ms = performance.now() - t;
    o.dispose();
    return ms;
  },
};
console.log(`load ${loadavg()[0]!.toFixed(2)}; best of ${N}`);
for (const [name, test] of Object.entries(tests)) {
  const best: Record<string, number> = {};
  const cpu: Record<string, number> = {};
  const main: Record<string, number> = {};
  for (const c of Object.keys(computes)) await test(computes[c]!); // warm
  for (let i = 0; i < N; i++)
    for (const c of Object.keys(computes)) {
      const m0 = mainCpuMs();
      const c0 = cpuMs();
      const ms = await test(computes[c]!);
      cpu[c] = (cpu[c] ?? 0) + (cpuMs() - c0) / N;
      main[c] = (main[c] ?? 0) + (mainCpuMs() - m0) / N;
      best[c] = Math.min(best[c] ?? Infinity, ms);
    }
  console.log(
    `${name.padEnd(12)} one ${best.one!.toFixed(0)} ms  thread ${best.thread!.toFixed(0)} ms  process ${best.process!.toFixed(0)} ms  thread/process ${(best.thread! / best.process!).toFixed(3)}  one/process ${(best.one! / best.process!).toFixed(2)}  one/thread ${(best.one! / best.thread!).toFixed(2)}`,
  );
  console.log(
    `${''.padEnd(12)} cpu per run: one ${cpu.one!.toFixed(0)} ms  thread ${cpu.thread!.toFixed(0)} ms  process ${cpu.process!.toFixed(0)} ms  thread/process ${(cpu.thread! / cpu.process!).toFixed(3)}`,
  );
  console.log(
    `${''.padEnd(12)} main thread cpu per run: one ${main.one!.toFixed(0)} ms  thread ${main.thread!.toFixed(0)} ms  process ${main.process!.toFixed(0)} ms  thread/process ${(main.thread! / main.process!).toFixed(3)}`,
  );
}
console.log(`load ${loadavg()[0]!.toFixed(2)}`);
for (const c of Object.values(computes)) await c.close();
agent.model.dispose();
