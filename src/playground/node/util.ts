/**
 * node:util in the page: isDeepStrictEqual for what the engine compares, values read from YAML or JSON
 * (plain objects, arrays, strings, numbers, booleans, null): Object.is on primitives, the same own keys
 * and prototypes, item by item, without recursion.
 */
export function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  const pending: [unknown, unknown][] = [[a, b]];
  while (pending.length > 0) {
    const [x, y] = pending.pop() as [unknown, unknown];
    if (Object.is(x, y)) continue;
    if (x === null || y === null || typeof x !== "object" || typeof y !== "object") return false;
    if (Object.getPrototypeOf(x) !== Object.getPrototypeOf(y)) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(y, key)) return false;
      pending.push([(x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key]]);
    }
  }
  return true;
}
