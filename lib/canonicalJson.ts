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
