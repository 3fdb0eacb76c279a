/** A long text cut to `maxLength` characters for a message, `...` marking the cut. */
export function clip(text: string, maxLength = 40): string {
  return text.length > maxLength ? `${text.slice(0, maxLength)}...` : text;
}

/** A message as one line of bounded length: whitespace runs (newlines too) become one space. */
export function oneLine(message: string, maxLength = 500): string {
  return clip(message.replace(/\s+/g, ' ').trim(), maxLength);
}

/**
 * Text read from a file others write (a lock's host, a failure note) made safe to print on a
 * terminal: control characters (C0, DEL, C1) and the Unicode line separators are shown escaped
 * as in JSON (`\n`, `\u001b`, `\u0085`), so that no escape sequence reaches the terminal.
 */
export function printable(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]/gu, (char) => {
    const json = JSON.stringify(char).slice(1, -1);
    return json !== char ? json : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
