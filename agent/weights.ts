import * as tf from '@tensorflow/tfjs';
import { PolicyModel, type ModelConfig, type ModelOptions } from './model.ts';

/** Copies of the model's weights, one Float32Array per variable in the fixed checkpoint order. */
export function getWeights(model: PolicyModel): Float32Array[] {
  return model.variables().map((variable) => Float32Array.from(variable.dataSync() as Float32Array));
}

/** Overwrites the model's weights in place (same order and sizes as `getWeights`). */
export function setWeights(model: PolicyModel, weights: readonly Float32Array[]): void {
  const variables = model.variables();
  if (weights.length !== variables.length)
    throw new Error(`setWeights: expected ${variables.length} arrays, got ${weights.length}`);
  variables.forEach((variable, i) => {
    const values = weights[i]!;
    if (values.length !== variable.size)
      throw new Error(`setWeights: ${variable.name} needs ${variable.size} values, got ${values.length}`);
    tf.tidy(() => variable.assign(tf.tensor(values, variable.shape, 'float32')));
  });
}

/** A model built from weights (for instance received from another thread). */
export function modelFromWeights(
  config: ModelConfig,
  weights: readonly Float32Array[],
  options: ModelOptions,
): PolicyModel {
  return new PolicyModel(config, [...weights], options);
}
