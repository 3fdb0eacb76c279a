import { vocabularyWords, type Task } from '../gym/index.ts';

/**
 * Word-level tokenizer: every word that can appear in a transcript of the given tasks (the gym's
 * `vocabularyWords`, which explains the "vocabulary leak" of building it from all 30), preceded
 * by two specials, `<pad>` (id 0) and `<unk>` (id 1).
 */
export const PAD = '<pad>';
export const UNK = '<unk>';

export interface Tokenizer {
  /** id -> word */
  readonly words: readonly string[];
  readonly padId: number;
  readonly unkId: number;
  encode(words: readonly string[]): number[];
  decode(ids: readonly number[]): string[];
  id(word: string): number;
}

/** A tokenizer from a word list (as stored in a checkpoint manifest). Specials first. */
export function tokenizerFromWords(wordList: readonly string[]): Tokenizer {
  const words = [PAD, UNK, ...wordList.filter((word) => word !== PAD && word !== UNK)];
  const index = new Map<string, number>();
  words.forEach((word, id) => {
    if (index.has(word)) throw new Error(`tokenizer: duplicate word '${word}'`);
    index.set(word, id);
  });
  const unkId = 1;
  const id = (word: string) => index.get(word) ?? unkId;
  return {
    words,
    padId: 0,
    unkId,
    id,
    encode: (list) => list.map(id),
    decode: (ids) => ids.map((token) => words[token] ?? UNK),
  };
}

/** The project's tokenizer: built from every word the given tasks can produce. */
export function buildTokenizer(tasks: readonly Task[]): Tokenizer {
  return tokenizerFromWords(vocabularyWords(tasks));
}
