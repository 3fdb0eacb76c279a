import { loadCheckpoint } from './checkpoint.ts';
import type { ModelOptions } from './model.ts';
import type { Agent } from './rollout.ts';
import { tokenizerFromWords } from './tokenizer.ts';

export interface LoadedAgent {
  agent: Agent;
  manifest: Record<string, unknown> & { checksum: string; step?: number };
  dir: string;
}

/** Loads a checkpoint folder as a ready agent (model plus the tokenizer stored in its manifest). */
export async function loadAgent(dir: string, options: ModelOptions): Promise<LoadedAgent> {
  const { model, manifest } = await loadCheckpoint(dir, options);
  const words = (manifest as Record<string, unknown>).tokenizer;
  if (!Array.isArray(words) || words.some((word) => typeof word !== 'string')) {
    model.dispose();
    throw new Error(`${dir}/manifest.json: field 'tokenizer' must be the list of vocabulary words`);
  }
  return { agent: { model, tokenizer: tokenizerFromWords(words as string[]) }, manifest: manifest as LoadedAgent['manifest'], dir };
}
