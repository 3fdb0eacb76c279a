/** One harness field that differs between two results; `undefined` = absent on that side. */
export type HarnessDifference = { field: string; a: unknown; b: unknown };

/** Nested objects flattened to dotted names, e.g. `generation.temperature`, in the order they appear. */
function flatten(value: unknown, prefix = '', into = new Map<string, unknown>()): Map<string, unknown> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value))
      flatten(inner, prefix === '' ? key : `${prefix}.${key}`, into);
  } else into.set(prefix, value);
  return into;
}

/** Field-by-field differences of two recorded harnesses (`flatten`ed), in the order the fields first appear. */
export function harnessDifferences(
  a: Record<string, unknown> | undefined,
  b: Record<string, unknown> | undefined,
): HarnessDifference[] {
  const left = flatten(a ?? {});
  const right = flatten(b ?? {});
  const fields = [...new Set([...left.keys(), ...right.keys()])];
  return fields
    .filter((field) => JSON.stringify(left.get(field)) !== JSON.stringify(right.get(field)))
    .map((field) => ({ field, a: left.get(field), b: right.get(field) }));
}

/** Fields that change which decoding policy is measured (METRICS.md, diagnosis item 3). */
export const GENERATION_FIELD =
  /temperature|top_?p|top_?k|greedy|do_?sample|sampl|beam|max_?(new_)?tokens|max_?turns|turn|budget|stop|template|prompt|model|checkpoint|seed|decod/i;

export function formatHarnessValue(value: unknown): string {
  return value === undefined ? '(absent)' : JSON.stringify(value);
}
