import { z } from 'zod';
import { EDIT_OPS, HarnessSchema, MARKERS, TOOLS, makeTasks } from '../gym/index.ts';
import { clip } from '../lib/text.ts';
import { formatZodIssues } from '../lib/zodIssues.ts';
import { CheckpointError, loadCheckpoint, type CheckpointManifest } from './checkpoint.ts';
import { defaultModelConfig, type ModelConfig } from './model.ts';
import { contextMisfit, type Agent } from './rollout.ts';
import { buildTokenizer, PAD, tokenizerFromWords, UNK, type Tokenizer } from './tokenizer.ts';

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
 * manifest. Beyond `loadCheckpoint`'s checks, the agent's fields are validated: the tokenizer is
 * a list of distinct words, the specials first, that fills the model's vocabulary, holds every
 * action word and is word for word the tokenizer the project trains with; the model config is the
 * one the project trains for that vocabulary; a recorded harness is a valid one whose context
 * fits the model's. Throws a CheckpointError.
 */
export async function loadAgent(dir: string): Promise<LoadedAgent> {
  const { model, manifest } = await loadCheckpoint(dir);
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
    throw new CheckpointError(`checkpoint ${dir}: manifest.json: ${problem}`);
  };
  const checked = AgentFieldsSchema.safeParse(manifest);
  if (!checked.success) fail(formatZodIssues(checked.error.issues));
  const fields = checked.data as z.infer<typeof AgentFieldsSchema>;
  const { modelConfig } = manifest;
  const problem =
    tokenizerProblem(fields.tokenizer, modelConfig.vocabSize) ??
    configProblem(modelConfig) ??
    (fields.harness && contextMisfit(fields.harness, modelConfig.contextLength));
  if (problem !== undefined) fail(problem);
  return tokenizerFromWords(fields.tokenizer);
}

/**
 * What is wrong with a stored tokenizer (id -> word), or undefined. Its ids are the ids the
 * weights were trained on, and training builds it as `buildTokenizer(makeTasks('all'))`, so it
 * must be that list in that order: a reordered list passes every other check, but the gym's
 * words would reach the model as other ids and the policy would read nonsense. The checks before
 * the comparison name a narrower fault where there is one.
 */
function tokenizerProblem(stored: readonly string[], vocabSize: number): string | undefined {
  const firstId = new Map<string, number>();
  for (const [id, word] of stored.entries()) {
    const earlier = firstId.get(word);
    if (earlier !== undefined) return `tokenizer: duplicate word ${shown(word)} (ids ${earlier} and ${id})`;
    firstId.set(word, id);
  }
  // `tokenizerFromWords` puts the specials first whatever the list: stored anywhere else, every id shifts.
  for (const [id, special] of [PAD, UNK].entries()) {
    if (stored[id] !== special)
      return `tokenizer word ${id} is ${shown(stored[id])}, expected the special ${shown(special)}`;
  }
  if (stored.length !== vocabSize)
    return `the tokenizer has ${stored.length} words (specials included), the model's vocabulary ${vocabSize}`;
  const missing = ACTION_WORDS.filter((word) => !firstId.has(word));
  if (missing.length > 0) return `the tokenizer lacks the action words ${missing.join(', ')}`;
  const project = buildTokenizer(makeTasks('all')).words;
  for (let id = 0; id < Math.max(stored.length, project.length); id++) {
    if (stored[id] !== project[id])
      return `tokenizer word ${id} is ${shown(stored[id])}, the project's vocabulary has ${shown(project[id])} there: the gym's words would reach the model as other ids than it was trained on (the checkpoint was edited or made for other tasks; retrain with \`npm run train\`)`;
  }
  return undefined;
}

/**
 * What differs between a checkpoint's model config and the one the project trains for its
 * vocabulary, or undefined. Shapes and parameter count do not depend on nHeads, so an edited
 * head count (8 for 4: it still divides dModel 64) loads and splits the weights into other heads
 * than they were trained with; only this comparison refuses it.
 */
function configProblem(config: ModelConfig): string | undefined {
  const project = defaultModelConfig(config.vocabSize);
  const keys = (Object.keys(project) as Array<keyof ModelConfig>).filter(
    (key) => config[key] !== project[key],
  );
  if (keys.length === 0) return undefined;
  const list = (cfg: ModelConfig) => keys.map((key) => `${key} ${cfg[key]}`).join(', ');
  return `modelConfig ${list(config)} differs from the model the project trains for ${config.vocabSize} words (${list(project)}): the weights would be read under another architecture; retrain with \`npm run train\``;
}

/** A word quoted for a message, cut short (a hostile manifest may hold any string). */
function shown(word: string | undefined): string {
  return word === undefined ? 'none' : `'${clip(word)}'`;
}
