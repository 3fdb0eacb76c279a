/**
 * Words: the unit the policy reads and writes, and the unit the edit ops rewrite.
 *
 * A word is an identifier, a number, a single-quoted string literal, one of the multi-character
 * operators `===`, `!==`, `==`, `!=`, `<=`, `>=`, `=>`, `&&`, `||`, or any other single
 * non-space character. Working on words rather than characters makes the op site rules exact:
 * `- 1` is the word `-` followed by the word `1` (so `- 10` is not a site) and `!` is never part
 * of `!==`.
 */

const WORD_PATTERN = /[A-Za-z_$][A-Za-z0-9_$]*|\d+(?:\.\d+)?|'[^']*'|===|!==|==|!=|<=|>=|=>|&&|\|\||\S/g;

/** Marker words framing the transcript. */
export const MARKERS = ['<task>', '</task>', '<act>', '<end>', '<obs>', '</obs>'] as const;
export const TOOLS = ['read', 'edit', 'test', 'submit'] as const;
export type Tool = (typeof TOOLS)[number];

/** Every word an observation can hold besides the source's own words. */
export const OBSERVATION_WORDS: readonly string[] = [
  ...'edited no site refused error bad action tests of passed submitted'.split(' '),
  ...'0123456789',
];

const splitCache = new Map<string, readonly string[]>();

/**
 * `cache`'s value for `key`, made by `make` and kept when missing. A cache that already holds
 * `limit` entries is emptied first, so it never holds more; the gym's caches only save time, so
 * dropping them is safe.
 */
export function cached<K, V>(cache: Map<K, V>, key: K, limit: number, make: () => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    if (cache.size >= limit) cache.clear();
    cache.set(key, value);
  }
  return value;
}

/**
 * Splits text into words (see the module comment). Cached by text: the env splits the same few
 * sources over and over, and the returned arrays are frozen so the cache cannot be corrupted.
 *
 * @example splitWords('return n - 1;') // ['return', 'n', '-', '1', ';']
 */
export function splitWords(text: string): readonly string[] {
  return cached(splitCache, text, 200_000, () => Object.freeze(text.match(WORD_PATTERN) ?? []));
}

/** Spec text is lowercased before splitting, so `Sum` and `sum` are one word. */
export function specWords(text: string): readonly string[] {
  return splitWords(text.toLowerCase());
}

const KEYWORDS = new Set(['return', 'if', 'const', 'function', 'else', 'let']);
const NO_SPACE_BEFORE = new Set([')', ']', ',', ';', '.']);
const NO_SPACE_AFTER = new Set(['(', '[', '.', '!']);
export const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Joins words into readable JavaScript (`s.slice(0, n - 1)` rather than `s . slice ( 0 , n - 1 )`)
 * such that `splitWords(renderWords(w))` gives `w` back. Sources are stored in this canonical
 * form, so one program has one text and one sandbox cache entry.
 */
export function renderWords(words: readonly string[]): string {
  let text = '';
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] as string;
    if (i > 0) {
      const previous = words[i - 1] as string;
      const call = (word === '(' || word === '[') && IDENTIFIER.test(previous) && !KEYWORDS.has(previous);
      if (!(NO_SPACE_BEFORE.has(word) || NO_SPACE_AFTER.has(previous) || call)) text += ' ';
    }
    text += word;
  }
  return text;
}
