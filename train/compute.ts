import { activeBackend, rollout, type Agent, type EpisodeRecord, type Play } from '../agent/index.ts';
import {
  addShares,
  nonEmpty,
  partsGradients,
  planJob,
  shareGradients,
  type LossJob,
  type PartsGradients,
} from './gradients.ts';
import type { Optimizer } from './optimizer.ts';
import { DataParallelWorker } from './dataParallel.ts';
import type { UpdateResult } from './grpo.ts';

/**
 * Where training's heavy work runs: on this thread (`oneThread`), or on this thread and a worker
 * thread, one per core (`twoThreads`). Made once per run and passed to every step, so the
 * training code never asks how many threads there are. Either way rollouts give the same
 * records (agent/rollout.ts plays the same batches), and gradients are computed over length
 * buckets (`planJob`); one thread and two differ only by float rounding in the gradients.
 */
export interface Compute {
  /** Where it runs, for the log: 'one thread', 'two threads', or two threads' shares on one. */
  name: string;
  /** Plays the specs at the harness temperature. Records in spec order. */
  rollout(...args: Parameters<Play>): Promise<EpisodeRecord[]>;
  /** Loss and gradient of the job's mean loss, its rows split between the threads in length buckets (`planJob`). */
  gradients(agent: Agent, job: LossJob): Promise<PartsGradients>;
  /** Tells the other thread, if any, that the agent's weights changed (after an optimizer step); its next job sees them. */
  weightsChanged(agent: Agent): Promise<void>;
  /** Resolves once every thread works on jobs for `agent` (a benchmark's timing starts then). */
  started(agent: Agent): Promise<void>;
  close(): Promise<void>;
}

export function oneThread(): Compute {
  return {
    name: 'one thread',
    rollout: (agent, harness, tasks, specs) => Promise.resolve(rollout(agent, harness, tasks, specs)),
    gradients: async (agent, job) => partsGradients(agent.model, planJob(job, 1)[0]!),
    weightsChanged: () => Promise.resolve(),
    started: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

/**
 * Two threads' arithmetic on this thread alone: each gradient's two shares (`planJob(job, 2)`)
 * one after the other, added as `twoThreads` adds them (`addShares`), and the rollouts as either
 * plays them; so the checkpoints are `twoThreads`' bit for bit, on one core. A study with two
 * CPU slots runs two such trainings side by side (docs/STUDIES.md).
 */
export function twoSharesOneThread(): Compute {
  return {
    ...oneThread(),
    name: "two threads' shares on one thread",
    gradients: async (agent, job) => {
      const [first, second] = planJob(job, 2).map(nonEmpty);
      return addShares(
        agent.model,
        first && shareGradients(agent.model, first),
        second && partsGradients(agent.model, second),
      );
    },
  };
}

/**
 * Training on both cores: a `DataParallelWorker` started on first use with the agent at hand
 * (so a run whose snapshots all exist starts no thread), given every new agent and every weight
 * update. Each rollout and gradient is split in two shares, one per thread. Until the thread
 * has started (it loads its own copy of the code and tfjs, seconds), this thread plays and
 * computes both shares alone as `twoSharesOneThread` does, with the same bits, instead of
 * waiting; the thread then takes the weights of the moment and its share of the next job.
 */
export function twoThreads({ backend }: { backend: string }): Compute {
  const alone = twoSharesOneThread();
  let starting: Promise<DataParallelWorker | undefined> | undefined;
  let ready: DataParallelWorker | undefined;
  let failure: { error: unknown } | undefined;
  // Agents whose weights changed while the thread was starting: it may hold them as they were.
  const changed = new Set<Agent>();
  const start = (agent: Agent) =>
    (starting ??= DataParallelWorker.start(agent, backend).then(
      (thread) => (ready = thread),
      (error: unknown) => void (failure = { error }),
    ));
  const worker = async (agent: Agent): Promise<DataParallelWorker | undefined> => {
    void start(agent);
    if (failure !== undefined) throw failure.error;
    if (ready === undefined) return undefined;
    for (const stale of changed) ready.forget(stale);
    changed.clear();
    await ready.holdAgent(agent);
    return ready;
  };
  return {
    name: 'two threads',
    rollout: async (agent, harness, tasks, specs) =>
      (await worker(agent))?.rollout(agent, harness, tasks, specs) ??
      alone.rollout(agent, harness, tasks, specs),
    gradients: async (agent, job) =>
      (await worker(agent))?.gradients(agent, planJob(job, 2)) ?? alone.gradients(agent, job),
    weightsChanged: async (agent) => {
      if (ready !== undefined) ready.sendWeights(agent);
      else if (starting !== undefined) changed.add(agent);
    },
    started: async (agent) => {
      await start(agent);
      await worker(agent);
    },
    close: async () => {
      const thread = starting;
      starting = undefined;
      ready = undefined;
      failure = undefined;
      changed.clear();
      await (await thread)?.close();
    },
  };
}

let shared: Compute | undefined;

/**
 * A `play` for `evaluate` on both cores: one `twoThreads` compute for the whole process, its
 * worker started on first use and kept (idle, it does not keep the process alive). The batches
 * are the ones `rollout` plays on one thread, so the records are the same either way.
 */
export const playOnTwoCores: Play = (...args) => {
  const backend = activeBackend();
  if (backend === undefined) throw new Error('playOnTwoCores: no backend started (initBackend first)');
  shared ??= twoThreads({ backend });
  return shared.rollout(...args);
};

/** One optimizer step on the job's loss: gradients from `compute`, clipped, Adam, and the new weights to every thread. */
export async function optimizerStep(
  agent: Agent,
  optimizer: Optimizer,
  job: LossJob,
  { compute, maxGradNorm }: { compute: Compute; maxGradNorm: number },
): Promise<UpdateResult> {
  const { loss, grads, clippedTokens, policyTokens } = await compute.gradients(agent, job);
  const gradNorm = optimizer.applyClipped(grads, maxGradNorm);
  await compute.weightsChanged(agent);
  return { loss, gradNorm, clippedTokens, policyTokens };
}
