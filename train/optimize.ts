import * as tf from '@tensorflow/tfjs';
import type { Agent } from '../agent/index.ts';
import { partsLoss, planJob, type LossJob } from './jobs.ts';
import type { DataParallelWorker } from './dataParallel.ts';

/**
 * Clips `grads` to a global L2 norm of `maxGradNorm` (Pascanu et al. 2013;
 * `torch.nn.utils.clip_grad_norm_`; TRL's default max_grad_norm = 1.0) and applies them.
 * Disposes the gradients. Returns the norm before clipping.
 */
export function applyClipped(optimizer: tf.Optimizer, grads: tf.NamedTensorMap, maxGradNorm: number): number {
  const gradNorm = tf.tidy(() => tf.sqrt(tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g))))).dataSync()[0]!);
  const scale = gradNorm > maxGradNorm ? maxGradNorm / (gradNorm + 1e-6) : 1;
  tf.tidy(() => {
    const clipped: tf.NamedTensorMap = {};
    for (const [name, g] of Object.entries(grads)) clipped[name] = scale === 1 ? g : tf.mul(g, scale);
    optimizer.applyGradients(clipped);
  });
  for (const g of Object.values(grads)) g.dispose();
  return gradNorm;
}

/**
 * One optimizer step on the job's loss: gradients on this thread, or split with the
 * data-parallel worker when there is one (then the worker gets the new weights before its next
 * job). Either way the rows are grouped into length buckets (`planJob`), so padding costs little.
 */
export async function optimizerStep(agent: Agent, optimizer: tf.Optimizer, job: LossJob, { maxGradNorm, worker }: { maxGradNorm: number; worker?: DataParallelWorker | undefined }): Promise<{ loss: number; gradNorm: number }> {
  let loss: number;
  let grads: tf.NamedTensorMap;
  if (worker !== undefined) {
    ({ loss, grads } = await worker.gradients(agent, planJob(job, 2)));
  } else {
    const [parts] = planJob(job, 1);
    const result = tf.variableGrads(() => partsLoss(agent.model, parts!), agent.model.variables());
    loss = result.value.dataSync()[0]!;
    result.value.dispose();
    grads = result.grads;
  }
  const gradNorm = applyClipped(optimizer, grads, maxGradNorm);
  if (worker !== undefined) await worker.syncWeights(agent);
  return { loss, gradNorm };
}
