import { applyOp } from './ops.ts';
import { NAME_POOL } from './tasks.ts';
import { EDIT_OPS, type Task } from './types.ts';
import { SURFACE_WORDS } from './surface.ts';
import { MARKERS, OBSERVATION_WORDS, TOOLS, specWords, splitWords } from './words.ts';

/**
 * Every word that can appear in a transcript for these tasks, sorted and deduplicated: the
 * tokenizer is built from `vocabularyWords(makeTasks('all'))`.
 *
 * Why this is complete: a transcript holds markers, tool and op words, fixed observation words,
 * the header (a pool name and spec words) and the words of sources reachable by edits. Renaming
 * only swaps the function name for a pool name. Ops either delete words, replace them with
 * fixed words (`<=`, `>=`, `max`), or insert words drawn from a fixed set plus the parameter
 * names and the public tests' literals, which no op changes; so the words of every op applied
 * once to the original source cover every stack of ops. (A test checks random stacks.)
 * Including held-out tasks' words is the chapter's "vocabulary leak", kept on purpose.
 */
export function vocabularyWords(tasks: readonly Task[]): string[] {
  const words = new Set<string>([
    ...MARKERS,
    ...TOOLS,
    ...EDIT_OPS,
    ...OBSERVATION_WORDS,
    ':',
    ...NAME_POOL,
    ...SURFACE_WORDS,
  ]);
  for (const task of tasks) {
    for (const word of splitWords(task.source)) words.add(word);
    for (const word of specWords(task.spec)) words.add(word);
    for (const op of EDIT_OPS) {
      for (const word of splitWords(applyOp(task.source, op, { publicTests: task.publicTests }).source))
        words.add(word);
    }
  }
  return [...words].sort();
}

/**
 * The words of `tasks`' vocabulary that `others`' vocabulary lacks, in sorted order: with the
 * held-out tasks and the training tasks, the words only held-out tasks use (the rename pool's
 * names are in every vocabulary), which training never shows.
 */
export function wordsOnlyIn(tasks: readonly Task[], others: readonly Task[]): string[] {
  const seen = new Set(vocabularyWords(others));
  return vocabularyWords(tasks).filter((word) => !seen.has(word));
}
