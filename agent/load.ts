import { z } from 'zod';
import { EDIT_OPS, HarnessSchema, MARKERS, TOOLS } from '../gym/index.ts';
import { CheckpointError, loadCheckpoint, schemaProblems, type CheckpointManifest } from './checkpoint.ts';
import type { ModelOptions } from './model.ts';
import type { Agent } from './rollout.ts';
import { tokenizerFromWords, type Tokenizer } from './tokenizer.ts';

export interface LoadedAgent {
  agent: Agent;
  manifest: Record<string, unknown> & { checksum: string; step?: number };
  dir: string;
}

/** The manifest fields an agent adds to a checkpoint's own (see `saveCheckpoint`'s `extra`). */
const AgentFieldsSchema = z
  .object({
    tokenizer: z.array(z.string()).min(1).max(100_000),
    step: z.number().int().min(0).optional(),
    seed: z.union([z.number(), z.string()]).optional(),
    harness: HarnessSchema.optional(),
    harnessHash: z.string().optional(),
    evalPass: z.number().min(0).max(1).nullable().optional(),
  })
  .loose();

/** Every word an action can need: without one of them the policy could never act. */
const ACTION_WORDS = [...TOOLS, ...EDIT_OPS, ...MARKERS];

/**
 * Loads a checkpoint folder as a ready agent: the model plus the tokenizer stored in its
 * manifest. Beyond `loadCheckpoint`'s checks, the agent's fields are validated: the tokenizer
 * is a list of distinct words that fills the model's vocabulary and holds every action word, and
 * a recorded harness is a valid one whose context fits the model's. Throws a CheckpointError.
 */
export async function loadAgent(dir: string, options: ModelOptions): Promise<LoadedAgent> {
  const { model, manifest } = await loadCheckpoint(dir, options);
  let tokenizer: Tokenizer;
  try {
    tokenizer = agentTokenizer(dir, manifest);
  } catch (error) {
    model.dispose();
    throw error;
  }
  return { agent: { model, tokenizer }, manifest: manifest as LoadedAgent['manifest'], dir };
}

function agentTokenizer(dir: string, manifest: CheckpointManifest): Tokenizer {
  const fail = (problem: string): never => {
    throw new CheckpointError(`checkpoint ${dir}: ${problem}`);
  };
  const checked = AgentFieldsSchema.safeParse(manifest);
  if (!checked.success) fail(`manifest.json: ${schemaProblems(checked.error.issues)}`);
  const fields = checked.data as z.infer<typeof AgentFieldsSchema>;
  let tokenizer: Tokenizer | undefined;
  try {
    tokenizer = tokenizerFromWords(fields.tokenizer);
  } catch (error) {
    fail(`manifest.json: tokenizer: ${(error as Error).message}`);
  }
  const { vocabSize, contextLength } = manifest.modelConfig;
  const words = (tokenizer as Tokenizer).words;
  if (words.length !== vocabSize)
    fail(
      `manifest.json: the tokenizer has ${words.length} words (specials included), the model's vocabulary ${vocabSize}`,
    );
  const missing = ACTION_WORDS.filter((word) => !words.includes(word));
  if (missing.length > 0) fail(`manifest.json: the tokenizer lacks the action words ${missing.join(', ')}`);
  const harness = fields.harness;
  if (harness !== undefined && harness.contextTokens + harness.maxActionTokens > contextLength) {
    fail(
      `manifest.json: harness contextTokens ${harness.contextTokens} plus maxActionTokens ${harness.maxActionTokens} exceeds the model's context length ${contextLength}`,
    );
  }
  return tokenizer as Tokenizer;
}
