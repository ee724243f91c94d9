/**
 * A bounded view of an object for its schema check: every long list (and every map with many keys
 * the schema does not name) is cut to its first `limit` entries, where cutting cannot change what the
 * schema says of the rest of the object. The entries cut away are checked one by one against the
 * schema of their list's items (or their map's values), so that 300,000 wrong-typed items never make
 * the schema checker build 300,000 errors at once (the process died of it, issue 21).
 */
type Schema = Record<string, unknown>;

/** Entries cut from one list or map: where, which, and the schema each one must meet. */
export interface Cut {
  /** JSON Pointer of the list or map in the object checked. */
  pointer: string;
  /** The list whose items from `from` on were cut away, or the map and the keys cut from it. */
  list?: { items: unknown[]; from: number };
  entries?: { record: Record<string, unknown>; keys: string[] };
  /**
   * Each entry's schema: a list's `items`, a map's `additionalProperties` (`false`: every key cut is
   * unknown; `undefined`: the values are free).
   */
  schema: Schema | false | undefined;
  /** The map's own pointer, for the unknown keys of a map whose `additionalProperties` is false. */
  map: boolean;
}

// Keywords under which a cut could change the verdict (they read a container whole, or apply other
// schemas whose reach this walk does not follow): nothing is cut at or below a schema using one.
const wholeValueKeywords = [
  "if",
  "then",
  "else",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "$ref",
  "$dynamicRef",
  "dependencies",
  "dependentSchemas",
  "dependentRequired",
  "unevaluatedItems",
  "unevaluatedProperties",
  "patternProperties",
  "propertyNames",
  "contains",
  "prefixItems",
  "additionalItems",
  "uniqueItems",
  "maxItems",
  "maxProperties",
  "minProperties",
  "enum",
  "const",
];

const selfContainedSchemas = new WeakMap<Schema, boolean>();

/** Whether a part of a schema can be compiled on its own: it refers to nothing outside itself. */
function selfContained(schema: Schema): boolean {
  let known = selfContainedSchemas.get(schema);
  if (known === undefined) {
    known = !/"\$(ref|dynamicRef|recursiveRef|id)"\s*:/.test(JSON.stringify(schema));
    selfContainedSchemas.set(schema, known);
  }
  return known;
}

const isSchema = (value: unknown): value is Schema =>
  value !== null && typeof value === "object" && !Array.isArray(value);

export const pointerToken = (token: string) => token.replaceAll("~", "~0").replaceAll("/", "~1");

const pointerOf = (tokens: string[]) => tokens.map((token) => `/${pointerToken(token)}`).join("");

const asSchema = (value: unknown): Schema | undefined => (isSchema(value) ? value : undefined);

/**
 * `object` with its long lists and big maps cut to `limit` entries (containers copied only along the
 * way to a cut; the object itself when nothing is cut), and the entries cut away.
 */
export function cutView(object: unknown, schema: unknown, limit: number): { view: unknown; cuts: Cut[] } {
  const cuts: Cut[] = [];
  const walk = (node: unknown, at: Schema | undefined, tokens: string[]): unknown => {
    if (node === null || typeof node !== "object" || !at) return node;
    if (wholeValueKeywords.some((keyword) => keyword in at)) return node;
    if (Array.isArray(node)) {
      const items = isSchema(at.items) && selfContained(at.items) ? at.items : undefined;
      if (!items || (typeof at.minItems === "number" && at.minItems > limit)) return node;
      const kept = Math.min(node.length, limit);
      let copy: unknown[] | undefined;
      for (let i = 0; i < kept; i++) {
        tokens.push(String(i));
        const item = walk(node[i], items, tokens);
        tokens.pop();
        if (item !== node[i]) {
          copy ??= node.slice(0, kept);
          copy[i] = item;
        }
      }
      if (kept === node.length) return copy ?? node;
      cuts.push({ pointer: pointerOf(tokens), list: { items: node, from: kept }, schema: items, map: false });
      return copy ?? node.slice(0, kept);
    }
    const record = node as Record<string, unknown>;
    const properties = isSchema(at.properties) ? at.properties : {};
    const required = new Set(Array.isArray(at.required) ? at.required.map(String) : []);
    const extra = at.additionalProperties;
    const extraSchema = isSchema(extra) ? extra : undefined;
    // Values checked one by one must have a schema that compiles on its own.
    const cuttable = !extraSchema || selfContained(extraSchema);
    // Keys the schema names stay, and the first `limit` others.
    let others = 0;
    const stays = (key: string) =>
      !cuttable || Object.hasOwn(properties, key) || required.has(key) || others++ < limit;
    let changed: Map<string, unknown> | undefined;
    const keys = Object.keys(record);
    let kept: string[] = [];
    let cut: string[] = [];
    // A map that names no key (labels, data): its first `limit` keys stay, the rest cut in one slice,
    // not one test and push per key (100,000 labels).
    const namesKeys = Object.keys(properties).length > 0 || required.size > 0;
    if (cuttable && !namesKeys && keys.length > limit) {
      kept = keys.slice(0, limit);
      cut = keys.slice(limit);
    } else
      for (const key of keys) {
        if (stays(key)) kept.push(key);
        else cut.push(key);
      }
    for (const key of kept) {
      const named = Object.hasOwn(properties, key);
      tokens.push(key);
      const value = walk(record[key], named ? asSchema(properties[key]) : extraSchema, tokens);
      tokens.pop();
      if (value !== record[key]) {
        changed ??= new Map();
        changed.set(key, value);
      }
    }
    const cutting = cut.length > 0;
    if (!cutting && !changed) return node;
    // The view holds only the keys that stay (a copy without the rest: deleting 100,000 keys from a
    // copy of all of them cost more than the check).
    const copy: Record<string, unknown> = {};
    for (const key of kept) {
      // A key named __proto__ (JSON.parse makes it an own property) is set as one, not as the prototype.
      Object.defineProperty(copy, key, {
        value: changed?.has(key) ? changed.get(key) : record[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    if (cutting) {
      cuts.push({
        pointer: pointerOf(tokens),
        entries: { record, keys: cut },
        schema: extra === false ? false : extraSchema,
        map: true,
      });
    }
    return copy;
  };
  return { view: walk(object, asSchema(schema), []), cuts };
}
