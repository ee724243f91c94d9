import type { JsonSchema } from "./schema-source.js";

/**
 * A value of an UPDATE's new object beside the value it corresponds to in the old one, as the API server
 * correlates them for ratcheting (apiserver's `common.CorrelatedObject`): object properties and map
 * values by name, the items of an `x-kubernetes-list-type: map` list by their keys (the first old item
 * with the same keys); the items of any other list correlate with nothing, so their errors ratchet
 * only with their list's. An error found at a value is spared when the value it lies in, or failing
 * that its nearest correlated container, is unchanged (`ratchets`).
 */
export class Correlated {
  #unchanged: boolean | undefined;
  #oldItems: OldItems | undefined;
  readonly #children = new Map<string | number, Correlated | undefined>();

  constructor(
    readonly value: unknown,
    readonly oldValue: unknown,
    readonly schema: JsonSchema | undefined,
  ) {}

  /** The property or map value `name` on both sides, when both have it and the schema describes it. */
  key(name: string): Correlated | undefined {
    if (this.#children.has(name)) return this.#children.get(name);
    let child: Correlated | undefined;
    const schema = propertySchema(this.schema, name);
    if (schema && isRecord(this.value) && isRecord(this.oldValue)) {
      if (Object.hasOwn(this.value, name) && Object.hasOwn(this.oldValue, name)) {
        child = new Correlated(this.value[name], this.oldValue[name], schema);
      }
    }
    this.#children.set(name, child);
    return child;
  }

  /** The new list's item `index` with the old item of the same keys (map lists only). */
  index(index: number): Correlated | undefined {
    if (this.#children.has(index)) return this.#children.get(index);
    let child: Correlated | undefined;
    const items = itemsSchema(this.schema);
    if (items && Array.isArray(this.value) && Array.isArray(this.oldValue) && index < this.value.length) {
      const item = this.value[index];
      const old = this.oldItems().get(item);
      if (old !== undefined && old !== null) child = new Correlated(item, old, items);
    }
    this.#children.set(index, child);
    return child;
  }

  /** Whether the value is unchanged: compared through its correlated parts, as the API server does. */
  get unchanged(): boolean {
    this.#unchanged ??= this.compare();
    return this.#unchanged;
  }

  private compare(): boolean {
    const { value, oldValue } = this;
    if (value === null || value === undefined || oldValue === null || oldValue === undefined)
      return (value ?? null) === (oldValue ?? null);
    if (Array.isArray(value) !== Array.isArray(oldValue) || isRecord(value) !== isRecord(oldValue))
      return false;
    if (Array.isArray(value) && Array.isArray(oldValue)) {
      if (value.length !== oldValue.length) return false;
      for (let i = 0; i < value.length; i++) {
        const child = this.index(i);
        // Items that correlate with nothing: the lists are compared whole, unless it is a map list.
        if (!child) return !this.isMapList() && jsonEqual(value, oldValue);
        if (!child.unchanged) return false;
      }
      return true;
    }
    if (isRecord(value) && isRecord(oldValue)) {
      const keys = Object.keys(value);
      if (keys.length !== Object.keys(oldValue).length) return false;
      return keys.every((key) => this.key(key)?.unchanged === true);
    }
    return jsonEqual(value, oldValue);
  }

  private isMapList(): boolean {
    return (
      this.schema?.["x-kubernetes-list-type"] === "map" &&
      Array.isArray(this.schema["x-kubernetes-list-map-keys"]) &&
      (this.schema["x-kubernetes-list-map-keys"] as unknown[]).length > 0 &&
      Array.isArray(this.oldValue) &&
      this.oldValue.length > 0
    );
  }

  private oldItems(): OldItems {
    this.#oldItems ??= this.isMapList()
      ? new OldItems(this.oldValue as unknown[], this.schema?.["x-kubernetes-list-map-keys"] as string[])
      : noOldItems;
    return this.#oldItems;
  }
}

/**
 * The items of a map list that correlate with an old item (new index → old index), found from the old
 * items' keys: one read of each new item's keys, nothing indexed by them (an update of a list of
 * 100,000 items from one of two). Undefined for another kind of list, or where a key repeats (then
 * `ListIndexes` ranks the items of a key).
 */
export function mapListPairs(
  list: readonly unknown[],
  oldList: readonly unknown[],
  schema: JsonSchema | undefined,
): Map<number, number> | undefined {
  const keys = mapListKeys(schema);
  if (!keys) return undefined;
  const oldByKey = new Map<unknown, number>();
  for (let at = 0; at < oldList.length; at++) {
    const old = oldList[at];
    const key = isRecord(old) ? mapKey(old, keys) : undefined;
    if (key === undefined) continue;
    if (oldByKey.has(key)) return undefined;
    oldByKey.set(key, at);
  }
  const pairs = new Map<number, number>();
  const paired = new Set<unknown>();
  for (let index = 0; index < list.length; index++) {
    const item = list[index];
    const key = isRecord(item) ? mapKey(item, keys) : undefined;
    const old = key === undefined ? undefined : oldByKey.get(key);
    if (old === undefined) continue;
    if (paired.has(key)) return undefined;
    paired.add(key);
    pairs.set(index, old);
  }
  return pairs;
}

/** A map list's old items by their keys, indexed as far as a lookup needed (the API server's MapList). */
class OldItems {
  private readonly keyed = new Map<string, unknown>();
  private next = 0;

  constructor(
    private readonly items: unknown[],
    private readonly keys: string[],
  ) {}

  get(item: unknown): unknown {
    const key = isRecord(item) ? compositeKey(item, this.keys) : undefined;
    if (key === undefined) return undefined;
    if (this.keyed.has(key)) return this.keyed.get(key);
    while (this.next < this.items.length) {
      const old = this.items[this.next++];
      const oldKey = isRecord(old) ? compositeKey(old, this.keys) : undefined;
      if (oldKey === undefined) continue;
      if (!this.keyed.has(oldKey)) this.keyed.set(oldKey, old);
      if (oldKey === key) return old;
    }
    return undefined;
  }
}

const noOldItems = { get: () => undefined } as unknown as OldItems;

/**
 * `compositeKey` as a Map key: with one key field, its scalar value itself (a Map tells the string "1"
 * from the number 1, as the type in `compositeKey` does), without building a string per item.
 */
function mapKey(item: Record<string, unknown>, keys: string[]): unknown {
  if (keys.length !== 1) return compositeKey(item, keys);
  const key = keys[0] as string;
  if (!Object.hasOwn(item, key)) return undefined;
  const value = item[key];
  return value === null || typeof value === "object" ? undefined : value;
}

/** The item's key: its key fields' scalar values (all present), or undefined when it has none. */
function compositeKey(item: Record<string, unknown>, keys: string[]): string | undefined {
  const parts: string[] = [];
  for (const key of keys) {
    if (!Object.hasOwn(item, key)) return undefined;
    const value = item[key];
    if (value === null || typeof value === "object") return undefined;
    parts.push(`${typeof value}:${String(value)}`);
  }
  return JSON.stringify(parts);
}

function propertySchema(schema: JsonSchema | undefined, name: string): JsonSchema | undefined {
  const properties = schema?.properties as Record<string, JsonSchema> | undefined;
  if (properties && Object.hasOwn(properties, name)) return properties[name];
  const additional = schema?.additionalProperties;
  return isRecord(additional) ? (additional as JsonSchema) : undefined;
}

function itemsSchema(schema: JsonSchema | undefined): JsonSchema | undefined {
  return isRecord(schema?.items) ? (schema?.items as JsonSchema) : undefined;
}

/**
 * Where an error found along `steps` (field names and list indexes from the root) is judged for
 * ratcheting: the deepest value along them that correlates with the old object, and whether the
 * update left it unchanged. Errors at apiVersion and kind never ratchet.
 */
export function ratchets(root: Correlated, steps: readonly (string | number)[]): boolean {
  const [first] = steps;
  if (first === "apiVersion" || first === "kind") return false;
  let at = root;
  for (const step of steps) {
    const next = typeof step === "number" ? at.index(step) : at.key(step);
    if (!next) break;
    at = next;
  }
  return at.unchanged;
}

/** Two decoded JSON values are equal: same type, same scalars, same members in any order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  // for-in, not Object.keys: no array of keys made per object (a kept list of 50,000 channels compared
  // in half the time). JSON's objects inherit no enumerable member.
  let size = 0;
  for (const key in ra) {
    if (!Object.hasOwn(rb, key) || !jsonEqual(ra[key], rb[key])) return false;
    size++;
  }
  for (const _ in rb) size--;
  return size === 0;
}

/**
 * `jsonEqual`'s answers for pairs of objects, kept as long as both live: by the first, then the second.
 * The answer is all a value holds: V8's young-generation collection keeps a WeakMap's values alive
 * while their keys are young, dead or not, so a value that held the other object (as this one did)
 * kept a review's parsed objects alive past the review, to be copied and promoted (see
 * `WorkBudget.memo`).
 */
const comparedJson = new WeakMap<object, WeakMap<object, boolean>>();

/**
 * `jsonEqual`, remembered for a pair of objects: one review asks it of the same two specs in more than
 * one place (its update-only rules' reading, its ratcheting), and a kept spec of 50,000 labels costs
 * 20 ms to compare.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === null || typeof a !== "object" || b === null || typeof b !== "object") return jsonEqual(a, b);
  let withA = comparedJson.get(a);
  const known = withA?.get(b);
  if (known !== undefined) return known;
  const equal = jsonEqual(a, b);
  if (withA === undefined) {
    withA = new WeakMap();
    comparedJson.set(a, withA);
  }
  withA.set(b, equal);
  return equal;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The keys of a map list (`x-kubernetes-list-type: map`), or undefined for any other list. */
export function mapListKeys(schema: JsonSchema | undefined): string[] | undefined {
  const keys = schema?.["x-kubernetes-list-map-keys"];
  if (schema?.["x-kubernetes-list-type"] !== "map" || !Array.isArray(keys) || keys.length === 0)
    return undefined;
  return keys.every((key) => typeof key === "string") ? (keys as string[]) : undefined;
}

/** The schema of a property or map value `name`, or of a list's items (`index`); undefined past the schema. */
export function childSchema(schema: JsonSchema | undefined, step: string | number): JsonSchema | undefined {
  return typeof step === "number" ? itemsSchema(schema) : propertySchema(schema, step);
}

/**
 * The index in the old list of the new list's item `index`, for ratcheting a webhook's errors: in a map
 * list, the old item with the same keys, as the API server correlates them (none when the keys are new:
 * the item is new, whatever it holds; of items whose keys repeat, which a rule may refuse, the n-th
 * with those keys is the n-th); in any other list (atomic, set, or a list no schema describes), the
 * same index when the item there is unchanged, else the first equal item (an unchanged item a reorder
 * moved), else the same index. Lists are searched within their first `searched` items.
 */
export function oldIndexOf(
  list: readonly unknown[],
  oldList: readonly unknown[],
  index: number,
  schema: JsonSchema | undefined,
  searched: number,
): number | undefined {
  const item = list[index];
  const keys = mapListKeys(schema);
  if (keys) {
    const key = isRecord(item) ? compositeKey(item, keys) : undefined;
    if (key === undefined) return undefined;
    const keyOf = (value: unknown) => (isRecord(value) ? compositeKey(value, keys) : undefined);
    let rank = 0;
    for (let at = 0; at < index && at < searched; at++) if (keyOf(list[at]) === key) rank++;
    let first: number | undefined;
    for (let at = 0; at < oldList.length && at < searched; at++) {
      if (keyOf(oldList[at]) !== key) continue;
      first ??= at;
      if (rank-- === 0) return at;
    }
    return first;
  }
  const items = itemsSchema(schema);
  if (index < oldList.length && sameValue(item, oldList[index], items)) return index;
  const found = oldList.findIndex((old, at) => at < searched && sameValue(item, old, items));
  return found >= 0 ? found : index;
}

/**
 * `oldIndexOf` for the many errors of one update: each pair of lists is indexed once, so that an error
 * costs a lookup, not a search of the lists (25,000 errors in one list searched 1,000 items each).
 * A map list is indexed whole (its keys are read once per item); another list's scalar items by value
 * within its first `searched` items, as `oldIndexOf` searches them.
 */
export class ListIndexes {
  private readonly mapLists = new WeakMap<readonly unknown[], MapListIndex>();
  private readonly scalars = new WeakMap<readonly unknown[], Map<unknown, number>>();

  constructor(private readonly searched: number) {}

  oldIndexOf(
    list: readonly unknown[],
    oldList: readonly unknown[],
    index: number,
    schema: JsonSchema | undefined,
  ): number | undefined {
    return this.of(list, oldList, schema)(index);
  }

  /** `oldIndexOf` for the items of one pair of lists, looked up once for many items. */
  of(
    list: readonly unknown[],
    oldList: readonly unknown[],
    schema: JsonSchema | undefined,
  ): (index: number) => number | undefined {
    const keys = mapListKeys(schema);
    if (keys) {
      let indexed = this.mapLists.get(list);
      if (indexed?.oldList !== oldList) {
        indexed = new MapListIndex(list, oldList, keys);
        this.mapLists.set(list, indexed);
      }
      const found = indexed;
      return (index) => found.oldIndexOf(index);
    }
    return (index) => this.byValue(list, oldList, index, schema);
  }

  private byValue(
    list: readonly unknown[],
    oldList: readonly unknown[],
    index: number,
    schema: JsonSchema | undefined,
  ): number | undefined {
    const item = list[index];
    if (item !== null && typeof item === "object")
      return oldIndexOf(list, oldList, index, schema, this.searched);
    if (index < oldList.length && sameValue(item, oldList[index], itemsSchema(schema))) return index;
    let firsts = this.scalars.get(oldList);
    if (!firsts) {
      firsts = new Map();
      for (let at = 0; at < oldList.length && at < this.searched; at++) {
        const old = oldList[at];
        if ((old === null || typeof old !== "object") && !firsts.has(old ?? null))
          firsts.set(old ?? null, at);
      }
      this.scalars.set(oldList, firsts);
    }
    return firsts.get(item ?? null) ?? index;
  }
}

/**
 * A map list's old items by key (the first of each key; all of a repeated key's), and, only once a
 * repeated key is looked up, each new item's rank among the items of its key. Where both lists hold
 * the same keys in the same order up to an item (an update that edits items in place), that item's
 * old index is its own, with no index built: the n-th item of its key in both.
 */
class MapListIndex {
  private firstOld: Map<unknown, number> | undefined;
  private readonly repeatedOld = new Map<unknown, number[]>();
  private ranks: number[] | undefined;
  /** How many leading items have the same keys in both lists (counted on first use). */
  private aligned: number | undefined;

  constructor(
    private readonly list: readonly unknown[],
    readonly oldList: readonly unknown[],
    private readonly keyFields: string[],
  ) {}

  /** The old item of the same keys (the n-th of a repeated key the n-th, else the first), if any. */
  oldIndexOf(index: number): number | undefined {
    const key = this.keyOf(this.list[index]);
    if (key === undefined) return undefined;
    if (index < this.alignedItems()) return index;
    const repeated = this.byKey().repeatedOld.get(key);
    if (!repeated) return this.byKey().firstOld?.get(key);
    return repeated[this.rankOf(index)] ?? repeated[0];
  }

  // A Map of 25,000 fresh keys cost more than the rest of ratcheting their errors (its growth pays the
  // young generation's copying of the parsed review): built only past the aligned items.
  private alignedItems(): number {
    if (this.aligned === undefined) {
      const end = Math.min(this.list.length, this.oldList.length);
      let at = 0;
      while (at < end && sameKey(this.keyOf(this.list[at]), this.keyOf(this.oldList[at]))) at++;
      this.aligned = at;
    }
    return this.aligned;
  }

  private byKey(): this {
    if (this.firstOld) return this;
    const firstOld = new Map<unknown, number>();
    this.oldList.forEach((old, at) => {
      const key = this.keyOf(old);
      if (key === undefined) return;
      if (!firstOld.has(key)) firstOld.set(key, at);
      else {
        const same = this.repeatedOld.get(key);
        if (same) same.push(at);
        else this.repeatedOld.set(key, [firstOld.get(key) as number, at]);
      }
    });
    this.firstOld = firstOld;
    return this;
  }

  private rankOf(index: number): number {
    if (!this.ranks) {
      const seen = new Map<unknown, number>();
      this.ranks = this.list.map((item) => {
        const key = this.keyOf(item);
        if (key === undefined) return 0;
        const rank = seen.get(key) ?? 0;
        seen.set(key, rank + 1);
        return rank;
      });
    }
    return this.ranks[index] as number;
  }

  private keyOf(value: unknown): unknown {
    return isRecord(value) ? mapKey(value, this.keyFields) : undefined;
  }
}

/** Two map keys are one to a Map (SameValueZero: NaN is NaN). */
const sameKey = (a: unknown, b: unknown): boolean => a === b || (Number.isNaN(a) && Number.isNaN(b));

/**
 * Whether an update left a value unchanged, as the API server compares correlated values: map lists item
 * by item through their keys (a reorder changes nothing), any other list in order, objects by member.
 */
export function sameValue(value: unknown, oldValue: unknown, schema: JsonSchema | undefined): boolean {
  if (value === oldValue) return true;
  if (value === null || oldValue === null || typeof value !== "object" || typeof oldValue !== "object")
    return (value ?? null) === (oldValue ?? null);
  if (Array.isArray(value) || Array.isArray(oldValue)) {
    if (!Array.isArray(value) || !Array.isArray(oldValue) || value.length !== oldValue.length) return false;
    const keys = mapListKeys(schema);
    const items = itemsSchema(schema);
    if (!keys) return value.every((item, i) => sameValue(item, oldValue[i], items));
    const old = new OldItems(oldValue, keys);
    return value.every((item) => {
      const before = old.get(item);
      return before !== undefined && sameValue(item, before, items);
    });
  }
  const record = value as Record<string, unknown>;
  const oldRecord = oldValue as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length !== Object.keys(oldRecord).length) return false;
  // A loop, not \`every\` with a closure (as jsonEqual): a map of 50,000 keys is compared for each error in it.
  for (const key of keys) {
    if (!Object.hasOwn(oldRecord, key)) return false;
    const value = record[key];
    const oldValue = oldRecord[key];
    // The schema is looked up only for what is not the same value already (a string kept as it was).
    if (value !== oldValue && !sameValue(value, oldValue, propertySchema(schema, key))) return false;
  }
  return true;
}
