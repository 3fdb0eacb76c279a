/**
 * JSON with object keys sorted at every depth and no spaces, so the text depends on the content
 * alone: what the harness hash (gym/config.ts) and a checkpoint's `manifestChecksum`
 * (agent/checkpoint.ts) hash. As `JSON.stringify` does, fields whose value is undefined are left
 * out, and an undefined value elsewhere (an array item, the whole value) is written `null`.
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
