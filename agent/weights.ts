import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../lib/rng.ts';
import { INIT_STD, PolicyModel, type ModelConfig } from './model.ts';

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
export function modelFromWeights(config: ModelConfig, weights: readonly Float32Array[]): PolicyModel {
  return new PolicyModel(config, [...weights]);
}

/**
 * A new model with `model`'s weights but the embedding rows of the word ids `rows` drawn anew
 * from createModel's initialiser, N(0, INIT_STD^2), from `rng` in ascending id order: the agent
 * with another random initialisation of words training never updates. `model` is unchanged.
 */
export function withRedrawnEmbeddings(model: PolicyModel, rows: readonly number[], rng: Rng): PolicyModel {
  const { vocabSize, dModel } = model.config;
  const ids = [...new Set(rows)].sort((a, b) => a - b);
  for (const id of ids)
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize)
      throw new RangeError(`withRedrawnEmbeddings: word id ${id} is not in [0, ${vocabSize})`);
  const weights = getWeights(model);
  const table = weights[model.variableNames().indexOf('wte')]!;
  for (const id of ids) for (let j = 0; j < dModel; j += 1) table[id * dModel + j] = rng.normal() * INIT_STD;
  return modelFromWeights(model.config, weights);
}
