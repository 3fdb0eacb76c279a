/** A long text cut to `maxLength` characters for a message, `...` marking the cut. */
export function clip(text: string, maxLength = 40): string {
  return text.length > maxLength ? `${text.slice(0, maxLength)}...` : text;
}

/** A message as one line of bounded length: whitespace runs (newlines too) become one space. */
export function oneLine(message: string, maxLength = 500): string {
  return clip(message.replace(/\s+/g, ' ').trim(), maxLength);
}
