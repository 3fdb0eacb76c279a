import type { EpisodeSpec, Harness, Task } from '../gym/index.ts';
import { activeBackend, rollout, type Agent, type EpisodeRecord } from '../agent/index.ts';
import {
  partsGradients,
  type JobPart,
  type LossJob,
  type PaddedBatch,
  type PartsGradients,
} from './losses.ts';
import type { Optimizer } from './optimizer.ts';
import { DataParallelWorker } from './worker.ts';

/**
 * Where training's heavy work runs: on this thread (`oneThread`), or on this thread and a worker
 * thread, one per core (`twoThreads`). Made once per run and passed to every step, so the
 * training code never asks how many threads there are. Either way rollouts give the same
 * records (agent/rollout.ts plays the same batches), and gradients are computed over length
 * buckets (`planJob`); one thread and two differ only by float rounding in the gradients.
 */
export interface Compute {
  /** Plays the specs at the harness temperature. Records in spec order. */
  rollout(
    agent: Agent,
    harness: Harness,
    tasks: readonly Task[],
    specs: readonly EpisodeSpec[],
  ): Promise<EpisodeRecord[]>;
  /** Loss and gradient of the job's mean loss, its rows split between the threads in length buckets. */
  gradients(agent: Agent, job: LossJob): Promise<PartsGradients>;
  /** Tells the other thread, if any, that the agent's weights changed (after an optimizer step); its next job sees them. */
  weightsChanged(agent: Agent): Promise<void>;
  /** Ends the worker thread, if any. */
  close(): Promise<void>;
}

/** Training on this thread alone. */
export function oneThread(): Compute {
  return {
    rollout: (agent, harness, tasks, specs) => Promise.resolve(rollout(agent, harness, tasks, specs)),
    gradients: async (agent, job) => {
      const [parts] = planJob(job, 1);
      return partsGradients(agent.model, parts!);
    },
    weightsChanged: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

/**
 * Training on both cores: a `DataParallelWorker` started on first use with the agent at hand
 * (so a run whose snapshots all exist starts no thread), given every new agent and every weight
 * update. Each rollout and gradient is split in two shares, one per thread.
 */
export function twoThreads({ backend }: { backend: string }): Compute {
  let started: Promise<DataParallelWorker> | undefined;
  const holding = async (agent: Agent) => {
    started ??= DataParallelWorker.start(agent, backend);
    const worker = await started;
    await worker.holdAgent(agent);
    return worker;
  };
  return {
    rollout: async (agent, harness, tasks, specs) =>
      (await holding(agent)).rollout(agent, harness, tasks, specs),
    gradients: async (agent, job) => (await holding(agent)).gradients(agent, planJob(job, 2)),
    weightsChanged: async (agent) => {
      if (started !== undefined) (await started).sendWeights(agent);
    },
    close: async () => {
      const worker = started;
      started = undefined;
      await (await worker?.catch(() => undefined))?.close();
    },
  };
}

let shared: Compute | undefined;

/**
 * A `play` for `evaluate` on both cores: one `twoThreads` compute for the whole process, its
 * worker started on first use and kept (idle, it does not keep the process alive). The batches
 * are the ones `rollout` plays on one thread, so the records are the same either way.
 */
export function playOnTwoCores(
  agent: Agent,
  harness: Harness,
  tasks: readonly Task[],
  specs: readonly EpisodeSpec[],
): Promise<EpisodeRecord[]> {
  const backend = activeBackend();
  if (backend === undefined) throw new Error('playOnTwoCores: no backend started (initBackend first)');
  shared ??= twoThreads({ backend });
  return shared.rollout(agent, harness, tasks, specs);
}

/** One optimizer step's numbers for the log. */
export interface StepResult {
  loss: number;
  gradNorm: number;
  /** Policy tokens the clip bound on in this step's forward pass, and all policy tokens. */
  clippedTokens: number;
  policyTokens: number;
}

/** One optimizer step on the job's loss: gradients from `compute`, clipped, Adam, and the new weights to every thread. */
export async function optimizerStep(
  agent: Agent,
  optimizer: Optimizer,
  job: LossJob,
  { compute, maxGradNorm }: { compute: Compute; maxGradNorm: number },
): Promise<StepResult> {
  const { loss, grads, clippedTokens, policyTokens } = await compute.gradients(agent, job);
  const gradNorm = optimizer.applyClipped(grads, maxGradNorm);
  await compute.weightsChanged(agent);
  return { loss, gradNorm, clippedTokens, policyTokens };
}

/**
 * The job restricted to `rows` (indices into its batch, in that order), padded only to the
 * longest of them. Padding never reaches a loss (mask 0) and attention is causal, so a row's
 * terms do not depend on how far the batch around it is padded (up to float rounding).
 */
export function selectRows<Job extends LossJob>(job: Job, rows: readonly number[]): Job {
  const { batchSize, length: from } = job.batch;
  if (rows.length === 0) throw new RangeError('selectRows: no rows');
  for (const row of rows)
    if (!Number.isInteger(row) || row < 0 || row >= batchSize)
      throw new RangeError(`selectRows: row ${row} outside [0, ${batchSize})`);
  const length = Math.max(2, ...rows.map((row) => job.batch.lengths[row]!));
  const pick = <T extends Float32Array | Int32Array>(
    source: T,
    make: (size: number) => T,
    width: number,
    sourceWidth: number,
  ): T => {
    const out = make(rows.length * width);
    rows.forEach((row, i) =>
      out.set(source.subarray(row * sourceWidth, row * sourceWidth + width), i * width),
    );
    return out;
  };
  const batch: PaddedBatch = {
    ids: pick(job.batch.ids, (n) => new Int32Array(n), length, from),
    targetMask: pick(job.batch.targetMask, (n) => new Float32Array(n), length - 1, from - 1),
    oldPerTokenLogps: pick(job.batch.oldPerTokenLogps, (n) => new Float32Array(n), length - 1, from - 1),
    lengths: Int32Array.from(rows, (row) => job.batch.lengths[row]!),
    batchSize: rows.length,
    length,
  };
  const part: LossJob =
    job.kind === 'bc'
      ? { kind: 'bc', batch }
      : {
          kind: 'grpo',
          batch,
          clipEpsilon: job.clipEpsilon,
          klCoef: job.klCoef,
          ...(job.entropyCoef !== undefined ? { entropyCoef: job.entropyCoef } : {}),
          advantages: Float32Array.from(rows, (row) => job.advantages[row]!),
          ...(job.refLogProbs !== undefined
            ? { refLogProbs: pick(job.refLogProbs, (n) => new Float32Array(n), length - 1, from - 1) }
            : {}),
        };
  return part as Job; // of the job's own kind
}

/**
 * How the cost of a forward and backward pass grows, in tokens, measured on wasm (bench/model.ts
 * shapes): a pass over R rows of T tokens costs about R * T * (1 + T / 220) (attention's share
 * grows with T), plus about 128 tokens' worth of fixed cost per pass (kernel dispatch and
 * allocation). These only decide how rows are grouped, which moves results by float rounding.
 */
const BUCKET_COST = { attentionTokens: 220, passTokens: 128 } as const;

function passCost(rows: number, length: number): number {
  return rows * length * (1 + length / BUCKET_COST.attentionTokens) + BUCKET_COST.passTokens;
}

/**
 * Splits rows sorted by length into contiguous buckets that minimise the summed `passCost`
 * (dynamic programming over the cut points). Returns the buckets, shortest rows first.
 */
export function lengthBuckets(sortedRows: readonly number[], lengths: ArrayLike<number>): number[][] {
  const n = sortedRows.length;
  if (n === 0) return [];
  const best = new Float64Array(n + 1).fill(Infinity);
  const cut = new Int32Array(n + 1);
  best[0] = 0;
  for (let end = 1; end <= n; end += 1) {
    const longest = Math.max(2, lengths[sortedRows[end - 1]!]!);
    for (let start = 0; start < end; start += 1) {
      const cost = best[start]! + passCost(end - start, longest);
      if (cost < best[end]!) {
        best[end] = cost;
        cut[end] = start;
      }
    }
  }
  const buckets: number[][] = [];
  for (let end = n; end > 0; end = cut[end]!) buckets.unshift(sortedRows.slice(cut[end]!, end));
  return buckets;
}

/**
 * The work of a job, planned for `shards` threads: rows are sorted by length (ties by index)
 * and dealt in turn to the shards, so each shard gets a like mix of lengths; each shard's rows
 * are then grouped into length buckets, each padded only to its own longest row, which removes
 * the work (not just the time) that padding to the batch's longest row costs. The weights of
 * all parts sum to 1, so the weighted sum of the parts' mean losses is the job's mean loss.
 * A fixed function of the job (planning 160 rows takes well under a millisecond, so it is
 * planned anew for each optimizer step), so a run stays deterministic.
 */
export function planJob(job: LossJob, shards: number): JobPart[][] {
  if (!Number.isInteger(shards) || shards < 1)
    throw new RangeError(`planJob: shards must be a positive integer, got ${shards}`);
  const { batchSize, lengths } = job.batch;
  const sorted = Array.from({ length: batchSize }, (_, row) => row).sort(
    (a, b) => lengths[a]! - lengths[b]! || a - b,
  );
  return Array.from({ length: shards }, (_, shard) => {
    const mine = sorted.filter((_, rank) => rank % shards === shard);
    return lengthBuckets(mine, lengths).map((rows) => ({
      job: selectRows(job, rows),
      weight: rows.length / batchSize,
    }));
  });
}
