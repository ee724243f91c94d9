/**
 * Objects read from a request are indexed by keys the request chose. `record["__proto__"]` on a plain
 * object is its prototype, and assigning it replaces the prototype instead of adding a key: a
 * `__proto__` key would vanish from what the rules see (and hide what it holds), or a lookup in a
 * schema would find `Object.prototype` as the schema of a field. These judge such keys (`__proto__`,
 * `constructor`, `prototype`) like any other.
 */

/** `record[key]` if it is the record's own property, else undefined. */
export function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Sets `record[key]` as an own, enumerable property of a plain object, whatever the key. Only
 * `__proto__` needs defining: assigning any other key to a plain object creates its own property
 * (and is several times faster than defineProperty).
 */
export function setOwn(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    record[key] = value;
  }
}
