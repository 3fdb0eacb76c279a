/** A record of one value per key, computed in the keys' order. */
export function recordOf<Key extends PropertyKey, Value>(
  keys: readonly Key[],
  value: (key: Key) => Value,
): Record<Key, Value> {
  return Object.fromEntries(keys.map((key) => [key, value(key)])) as Record<Key, Value>;
}

/** `map`'s value at `key` (a Map or a WeakMap), made and added by `make` when absent. */
export function getOrAdd<Key, Value>(
  map: { get(key: Key): Value | undefined; set(key: Key, value: Value): unknown },
  key: Key,
  make: () => Value,
): Value {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}
