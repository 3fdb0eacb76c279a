/** A long text cut to `maxLength` characters for a message, `...` marking the cut. */
export function clip(text: string, maxLength = 40): string {
  return text.length > maxLength ? `${text.slice(0, maxLength)}...` : text;
}

/** A message as one line of bounded length: whitespace runs (newlines too) become one space. */
export function oneLine(message: string, maxLength = 500): string {
  return clip(message.replace(/\s+/g, ' ').trim(), maxLength);
}

/** `1 sample`, `2 samples`: a count with its noun (`plural` when not the noun with an `s`). */
export function count(value: number, noun: string, plural = `${noun}s`): string {
  return `${value} ${value === 1 ? noun : plural}`;
}

/** The optimal string alignment distance (Levenshtein with adjacent transpositions): `sede` -> `seed` is 1. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known name a mistyped one most likely meant: the only name it starts, else the nearest within
 * 2 edits (1 for up to 4 letters); undefined when none is close or two are equally close.
 */
export function closestName(typed: string, names: Iterable<string>): string | undefined {
  const known = [...names];
  const starting = typed.length >= 2 ? known.filter((name) => name.startsWith(typed)) : [];
  if (starting.length === 1) return starting[0];
  const limit = typed.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  let tied = false;
  for (const name of known) {
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (distance < bestDistance) [best, bestDistance, tied] = [name, distance, false];
    else if (distance === bestDistance) tied = true;
  }
  return best !== undefined && !tied ? best : undefined;
}

/** Text others wrote (a lock's host, a failure note) safe for a terminal: control characters and line separators escaped as in JSON. */
export function printable(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]/gu, (char) => {
    const json = JSON.stringify(char).slice(1, -1);
    return json !== char ? json : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** A number written in decimal (`-1.5`, `.5`, `2e-3`): no hex, `Infinity`, `NaN` or blanks. */
export const DECIMAL_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
