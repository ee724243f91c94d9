/**
 * Go values as the template executor models them: only the types the Forkspacer operator's data and
 * text/template's built-ins can produce. A JS string is a Go string, a boolean a bool, a number an
 * int (always a safe integer), a bigint an int beyond 2^53-1 (an int64 the operator decoded from the
 * Module exactly: a config integer's default), a plain object a map[string]any, an array a []any;
 * the classes below stand for the rest. `undefined` is the invalid reflect.Value (a missing map key, untyped nil).
 */
export class GoFloat {
  constructor(readonly value: number) {}
}

export class GoComplex {
  constructor(
    readonly re: number,
    readonly im: number,
  ) {}
}

/** An unsigned integer (a byte from `index` on a string): `type` is Go's name for it. */
export class GoUint {
  constructor(
    readonly value: number,
    readonly type: "uint8" | "uint",
  ) {}
}

/**
 * A Go []string: a multipleOptions item's value as GetValidatedConfig returns it (its default; nil,
 * which prints `[]` and has no elements, when the item has none). Its elements are strings, not
 * interfaces: `index` and `range` give them as they are.
 */
export class GoStrings extends Array<string> {
  /** A nil slice (no default): `%#v` prints `[]string(nil)`, an empty one `[]string{}`. */
  nil = false;

  static holding(items: readonly string[] | undefined): GoStrings {
    const list = new GoStrings();
    if (items) list.push(...items);
    else list.nil = true;
    return list;
  }
}

/**
 * A value read out of an interface-typed container (an element of map[string]any or []any): reflect's
 * Interface kind. Go's messages name its type `interface {}` until a pipeline unwraps it. `null` is
 * the nil interface (a JSON null).
 */
export class Boxed {
  constructor(readonly value: GoValue | null) {}
}

export type GoMap = { [key: string]: GoValue | null };
export type GoValue =
  | string
  | number
  | bigint
  | boolean
  | GoFloat
  | GoComplex
  | GoUint
  | GoMap
  | (GoValue | null)[];
/** A reflect.Value: a Go value, a boxed one, or invalid (undefined). */
export type Value = GoValue | Boxed | undefined;

/** Thrown where the executor does not model what Go would do: the caller must not decide from it. */
export class Unsupported extends Error {
  constructor(what: string) {
    super(`not modelled: ${what}`);
    this.name = "Unsupported";
  }
}

/** reflect's `ValueOf(v.Interface())` for an Interface-kind value: the dynamic value, or invalid. */
export const unbox = (v: Value): Value => (v instanceof Boxed ? (v.value ?? undefined) : v);

export const isMap = (v: unknown): v is GoMap =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  !(v instanceof GoFloat || v instanceof GoComplex || v instanceof GoUint || v instanceof Boxed);

/** reflect.Type.String() of a valid value. */
export function typeName(v: GoValue | Boxed): string {
  if (v instanceof Boxed) return "interface {}";
  switch (typeof v) {
    case "string":
      return "string";
    case "number":
    case "bigint":
      return "int";
    case "boolean":
      return "bool";
  }
  if (v instanceof GoFloat) return "float64";
  if (v instanceof GoComplex) return "complex128";
  if (v instanceof GoUint) return v.type;
  if (v instanceof GoStrings) return "[]string";
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
}

/** Go's `<` on strings: byte order of their UTF-8, which is code point order. */
export function compareGoStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (a code point above U+FFFF) sorts after every BMP character.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * The data's maps never change while templates run, and the same map (the config) is ranged over,
 * printed and measured again and again: its keys are listed, and sorted, once.
 */
const keysOf = new WeakMap<GoMap, readonly string[]>();
const sortedKeysOf = new WeakMap<GoMap, readonly string[]>();

/** Whether a map's keys are listed already (so that listing them costs nothing more). */
export const keysKnown = (m: GoMap): boolean => keysOf.has(m);

/** A map's keys (Object.keys, once per map). */
export function mapKeys(m: GoMap): readonly string[] {
  let keys = keysOf.get(m);
  if (keys === undefined) {
    keys = Object.keys(m);
    keysOf.set(m, keys);
  }
  return keys;
}

const hasSurrogate = /[\uD800-\uDFFF]/;

/**
 * The keys of a map in fmtsort's order (once per map). Without surrogates UTF-16 order is code point
 * order, and the runtime's own sort is several times faster than a comparator.
 */
export function sortedKeys(m: GoMap): readonly string[] {
  let sorted = sortedKeysOf.get(m);
  if (sorted === undefined) {
    const keys = [...mapKeys(m)];
    sorted = keys.some((key) => hasSurrogate.test(key)) ? keys.sort(compareGoStrings) : keys.sort();
    sortedKeysOf.set(m, sorted);
  }
  return sorted;
}

/** Whether a map's keys are sorted already. */
export const sortedKeysKnown = (m: GoMap): boolean => sortedKeysOf.has(m);

/**
 * JSON-decoded data typed as the operator's: a whole number is a Go int (the operator's config
 * integers are ints), any other number a float64. Used for test data and differential runs.
 */
export function fromJson(v: unknown): GoValue | null {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") {
    if (Number.isSafeInteger(v)) return v;
    if (Number.isInteger(v) && Math.abs(v) < 2 ** 63) throw new Unsupported("an integer beyond 2^53");
    return new GoFloat(v);
  }
  if (Array.isArray(v)) return v.map(fromJson);
  if (v !== null && typeof v === "object") {
    const m: GoMap = {};
    for (const [k, e] of Object.entries(v)) m[k] = fromJson(e);
    return m;
  }
  return v as string | boolean | null;
}
