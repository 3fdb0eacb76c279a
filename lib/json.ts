/**
 * The path of the first key written twice in one object of a valid JSON text (`harness.temperature`,
 * `rows[].task`), or undefined: JSON.parse keeps the last of two silently.
 */
export function duplicatedKeyPath(source: string): string | undefined {
  // One frame per open object or array: an object's keys so far and the key being read.
  const frames: Array<{ keys: Set<string> | undefined; key: string | undefined }> = [];
  const path = () =>
    frames
      .map(({ keys, key }) => (keys === undefined ? '[]' : `.${key ?? ''}`))
      .join('')
      .replace(/^\./, '');
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '"') {
      let end = i + 1;
      while (source[end] !== '"') end += source[end] === '\\' ? 2 : 1;
      const frame = frames.at(-1);
      // In valid JSON a string followed by a colon is a key, and only an object has keys.
      if (frame?.keys !== undefined && /^\s*:/.test(source.slice(end + 1, end + 64))) {
        const key = JSON.parse(source.slice(i, end + 1)) as string;
        frame.key = key;
        if (frame.keys.has(key)) return path();
        frame.keys.add(key);
      }
      i = end;
    } else if (char === '{') frames.push({ keys: new Set(), key: undefined });
    else if (char === '[') frames.push({ keys: undefined, key: undefined });
    else if (char === '}' || char === ']') frames.pop();
  }
  return undefined;
}

/**
 * JSON with keys sorted at every depth and no spaces, so the text depends on the content alone
 * (what the harness hash and `manifestChecksum` hash); undefined as `JSON.stringify` has it.
 *
 * @example canonicalJson({ b: [1, { d: 2, c: 'x' }], a: null }) // '{"a":null,"b":[1,{"c":"x","d":2}]}'
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
