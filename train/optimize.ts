import * as tf from '@tensorflow/tfjs';
import type { Agent } from '../agent/index.ts';
import { partsLoss, planJob, type JobPart, type LossJob } from './jobs.ts';
import type { DataParallelWorker } from './dataParallel.ts';

/**
 * Clips `grads` to a global L2 norm of `maxGradNorm` (Pascanu et al. 2013;
 * `torch.nn.utils.clip_grad_norm_`; TRL's default max_grad_norm = 1.0) and applies them.
 * Disposes the gradients. Returns the norm before clipping.
 */
export function applyClipped(optimizer: tf.Optimizer, grads: tf.NamedTensorMap, maxGradNorm: number): number {
  const gradNorm = tf.tidy(
    () => tf.sqrt(tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g))))).dataSync()[0]!,
  );
  const scale = gradNorm > maxGradNorm ? maxGradNorm / (gradNorm + 1e-6) : 1;
  tf.tidy(() => {
    const clipped: tf.NamedTensorMap = {};
    for (const [name, g] of Object.entries(grads)) clipped[name] = scale === 1 ? g : tf.mul(g, scale);
    optimizer.applyGradients(clipped);
  });
  for (const g of Object.values(grads)) g.dispose();
  return gradNorm;
}

/** The job planned for the threads `optimizerStep` uses: two shards with a worker, one without. */
export function planStep(job: LossJob, worker?: DataParallelWorker): JobPart[][] {
  return planJob(job, worker !== undefined ? 2 : 1);
}

/**
 * One optimizer step on the job's loss: gradients on this thread, or split with the
 * data-parallel worker when there is one (then the worker gets the new weights before its next
 * job). Either way the rows are grouped into length buckets (`planJob`), so padding costs little.
 * Several steps on one job (GRPO's update epochs) pass its `planStep` as `plan`, so that it is
 * planned once; without it the job is planned here.
 */
export async function optimizerStep(
  agent: Agent,
  optimizer: tf.Optimizer,
  job: LossJob,
  {
    maxGradNorm,
    worker,
    plan = planStep(job, worker),
  }: { maxGradNorm: number; worker?: DataParallelWorker | undefined; plan?: JobPart[][] | undefined },
): Promise<{ loss: number; gradNorm: number }> {
  const shards = worker !== undefined ? 2 : 1;
  if (plan.length !== shards)
    throw new RangeError(
      `optimizerStep: a plan for ${plan.length} threads, but ${shards} compute the gradient`,
    );
  let loss: number;
  let grads: tf.NamedTensorMap;
  if (worker !== undefined) {
    ({ loss, grads } = await worker.gradients(agent, plan));
  } else {
    const [parts] = plan;
    const result = tf.variableGrads(() => partsLoss(agent.model, parts!), agent.model.variables());
    loss = result.value.dataSync()[0]!;
    result.value.dispose();
    grads = result.grads;
  }
  const gradNorm = applyClipped(optimizer, grads, maxGradNorm);
  if (worker !== undefined) await worker.syncWeights(agent);
  return { loss, gradNorm };
}
