import { buildTokenizer, createModel, defaultModelConfig, saveCheckpoint } from '../../agent/index.ts';
import { makeTasks, trainingHarness } from '../../gym/index.ts';
import { Rng } from '../../lib/rng.ts';

/**
 * Saves a sound checkpoint of an untrained model (the project's tokenizer, the training
 * harness) into `dir`, to evaluate or to break on purpose. Needs a backend (`initBackend`).
 */
export function saveUntrainedCheckpoint(dir: string): void {
  const tokenizer = buildTokenizer(makeTasks('all'));
  const model = createModel(defaultModelConfig(tokenizer.words.length), new Rng('untrained-checkpoint'));
  try {
    saveCheckpoint(dir, model, { step: 0, seed: 0, harness: trainingHarness(), tokenizer: tokenizer.words });
  } finally {
    model.dispose();
  }
}
