import { EDIT_OPS, type EditOp, type Tool } from '../gym/index.ts';
import { initBackend } from './backend.ts';
import { loadAgent } from './load.ts';
import { logSoftmaxAt } from './model.ts';
import { ROLLOUT_BATCH, type Agent, type TranscriptTurn } from './rollout.ts';

const EDIT: Tool = 'edit';

/**
 * The words the policy had read when it chose the op of its first edit: every turn before the
 * first action that starts with `edit`, that turn's observation, and the `edit` itself. Null
 * when the transcript holds no edit (the episode submitted without one, or its record stopped at
 * a context truncation before it).
 */
export function firstEditPrefix(turns: readonly TranscriptTurn[]): string[] | null {
  const index = turns.findIndex((turn) => turn.action[0] === EDIT);
  if (index < 0) return null;
  return [
    ...turns.slice(0, index).flatMap((turn) => [...turn.observation, ...turn.action]),
    ...(turns[index] as TranscriptTurn).observation,
    EDIT,
  ];
}

/**
 * The policy's probability of each edit op at the decision of an episode's first edit: the
 * next-token distribution after the `edit` it wrote first (`firstEditPrefix`), at `temperature`
 * (the evaluation's, so that it is the distribution the op was sampled from), read off a
 * key/value session as the rollout reads its logits (`Session.feed`, `logSoftmaxAt`). The six
 * values are shares of the whole vocabulary, so they sum to at most 1 (what is missing went to
 * words that are no op: a malformed edit). Null for an episode without an edit.
 *
 * @throws RangeError on a temperature below 0.
 * @example opProbabilitiesAtFirstEdit(agent, evaluation.records.map((r) => r.transcript!), { temperature: 1 })
 */
export function opProbabilitiesAtFirstEdit(
  agent: Agent,
  transcripts: readonly (readonly TranscriptTurn[])[],
  { temperature }: { temperature: number },
): Array<Record<EditOp, number> | null> {
  if (!(temperature >= 0)) throw new RangeError(`temperature must be >= 0, got ${temperature}`);
  const { model, tokenizer } = agent;
  const prefixes = transcripts.map((turns) => {
    const prefix = firstEditPrefix(turns);
    return prefix === null ? null : tokenizer.encode(prefix);
  });
  const result: Array<Record<EditOp, number> | null> = prefixes.map(() => null);
  for (let start = 0; start < prefixes.length; start += ROLLOUT_BATCH) {
    const chunks = prefixes.slice(start, start + ROLLOUT_BATCH).map((prefix) => prefix ?? []);
    const session = model.startSession(chunks.length);
    try {
      const logits = session.feed(chunks); // [B*V], each row's at its last token
      chunks.forEach((chunk, row) => {
        if (chunk.length === 0) return;
        result[start + row] = Object.fromEntries(
          EDIT_OPS.map((op) => [
            op,
            Math.exp(logSoftmaxAt(logits, model.config.vocabSize, row, temperature, tokenizer.id(op))),
          ]),
        ) as Record<EditOp, number>;
      });
    } finally {
      session.dispose();
    }
  }
  return result;
}

/**
 * `opProbabilitiesAtFirstEdit` for a checkpoint folder: loads its agent (on the running backend,
 * or the one `initBackend` picks), measures, and frees it.
 */
export async function checkpointOpProbabilitiesAtFirstEdit(
  checkpoint: string,
  transcripts: readonly (readonly TranscriptTurn[])[],
  options: { temperature: number },
): Promise<Array<Record<EditOp, number> | null>> {
  await initBackend({ preference: 'auto' });
  const { agent } = await loadAgent(checkpoint);
  try {
    return opProbabilitiesAtFirstEdit(agent, transcripts, options);
  } finally {
    agent.model.dispose();
  }
}
