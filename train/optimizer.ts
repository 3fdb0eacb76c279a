import * as tf from '@tensorflow/tfjs';
import { adamUpdate, productsInstalled, sumOfSquares, type AdamScalars } from '../agent/index.ts';

/**
 * Adam (Kingma & Ba 2015) with global-norm gradient clipping, the optimizer of every training
 * step. On wasm with our kernels (`productsInstalled()` when it is made), one pass per variable
 * on our SIMD kernel; elsewhere tf.train.adam and tfjs ops. Both give the same bits on wasm:
 * the kernel does tf.train.adam's float32 operations in its order (`test/train-optimizer.test.ts`
 * compares them).
 */
export interface Optimizer {
  /**
   * Clips `grads` (by variable name) to a global L2 norm of `maxGradNorm` (Pascanu et al. 2013;
   * `torch.nn.utils.clip_grad_norm_`; TRL's default max_grad_norm = 1.0) and applies one Adam
   * step to the variables they name. Disposes the gradients. Returns the norm before clipping.
   */
  applyClipped(grads: tf.NamedTensorMap, maxGradNorm: number): number;
  dispose(): void;
}

/** tf.train.adam's defaults (tfjs-core 4.22): β1 0.9, β2 0.999, ε the backend's float epsilon. */
const BETA1 = 0.9;
const BETA2 = 0.999;

/** Adam at `learningRate`, on our kernel where it runs. */
export function adam(learningRate: number): Optimizer {
  return productsInstalled()
    ? new KernelAdam(learningRate)
    : new TfjsAdam(tf.train.adam(learningRate, BETA1, BETA2));
}

/** The clip's scale for a norm: maxGradNorm / (norm + 1e-6) above the bound, else 1. */
function clipScale(gradNorm: number, maxGradNorm: number): number {
  return gradNorm > maxGradNorm ? maxGradNorm / (gradNorm + 1e-6) : 1;
}

class TfjsAdam implements Optimizer {
  constructor(private readonly optimizer: tf.Optimizer) {}

  applyClipped(grads: tf.NamedTensorMap, maxGradNorm: number): number {
    const gradNorm = tf.tidy(
      () => tf.sqrt(tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g))))).dataSync()[0]!,
    );
    const scale = clipScale(gradNorm, maxGradNorm);
    tf.tidy(() => {
      const clipped: tf.NamedTensorMap = {};
      for (const [name, g] of Object.entries(grads)) clipped[name] = scale === 1 ? g : tf.mul(g, scale);
      this.optimizer.applyGradients(clipped);
    });
    tf.dispose(Object.values(grads));
    return gradNorm;
  }

  dispose(): void {
    this.optimizer.dispose();
  }
}

/**
 * The same Adam on our kernel. Its float32 scalars are tf.train.adam's: β and 1 - β as tfjs
 * rounds the JavaScript numbers it is given, β^t kept in float32 and multiplied by β after each
 * step (its accBeta variables), 1 - β^t as a float32 subtraction. The norm is each gradient's
 * sum of squares in order, those sums added in order, and a float32 square root, as tfjs's
 * `sqrt(addN(sum(square(g))))` computes it on wasm.
 */
class KernelAdam implements Optimizer {
  private readonly moments = new Map<string, { m: tf.Tensor; v: tf.Tensor }>();
  private powBeta1 = Math.fround(BETA1);
  private powBeta2 = Math.fround(BETA2);
  private readonly epsilon = tf.backend().epsilon();

  constructor(private readonly learningRate: number) {}

  applyClipped(grads: tf.NamedTensorMap, maxGradNorm: number): number {
    const f = Math.fround;
    const names = Object.keys(grads);
    let squares = 0;
    for (const name of names) squares = f(squares + sumOfSquares(grads[name]!));
    const gradNorm = f(Math.sqrt(squares));
    const scalars: AdamScalars = {
      scale: clipScale(gradNorm, maxGradNorm),
      beta1: BETA1,
      oneMinusBeta1: 1 - BETA1,
      beta2: BETA2,
      oneMinusBeta2: 1 - BETA2,
      debias1: f(1 - this.powBeta1),
      debias2: f(1 - this.powBeta2),
      epsilon: this.epsilon,
      step: -this.learningRate,
    };
    for (const name of names) {
      const variable = tf.engine().registeredVariables[name];
      if (variable === undefined) throw new Error(`Adam: no variable named ${name}`);
      let slot = this.moments.get(name);
      if (slot === undefined) {
        slot = { m: tf.zerosLike(variable), v: tf.zerosLike(variable) };
        this.moments.set(name, slot);
      }
      const next = adamUpdate(variable, grads[name]!, slot.m, slot.v, scalars);
      variable.assign(next);
      next.dispose();
    }
    this.powBeta1 = f(this.powBeta1 * f(BETA1));
    this.powBeta2 = f(this.powBeta2 * f(BETA2));
    tf.dispose(Object.values(grads));
    return gradNorm;
  }

  dispose(): void {
    for (const { m, v } of this.moments.values()) tf.dispose([m, v]);
    this.moments.clear();
  }
}
