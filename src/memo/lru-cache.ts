/** How much one cache may hold. */
export interface CacheBounds {
  /** Bytes charged to all entries together (each as its caller reckons it, plus its key). */
  bytes: number;
  /** Entries, whatever their size; unbounded when not given. */
  entries?: number;
  /** The largest entry kept; a larger one is computed and handed back, not kept. A quarter of `bytes` by default. */
  entryBytes?: number;
}

/**
 * The one cache of the project: least recently used first out, bounded by the bytes its entries are
 * charged (and, optionally, by entries). Each entry is charged the size its caller gives (an estimate
 * of what it retains) plus its key (two bytes a UTF-16 unit). A hit on the entry used last does not
 * reorder the map: reviews of one object often look the same key up twice in a row.
 */
export class LruCache<V> {
  readonly #entries = new Map<string, { value: V; bytes: number }>();
  #bytes = 0;
  #newest: string | undefined;

  constructor(readonly bounds: CacheBounds) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The bytes charged to the entries held now. */
  get bytes(): number {
    return this.#bytes;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (key !== this.#newest) {
      // Most recently used last: a Map iterates in insertion order, so the first entry is the oldest.
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      this.#newest = key;
    }
    return entry.value;
  }

  /** Keeps `value`, charged `bytes` plus its key; says whether it was kept (not when too large). */
  set(key: string, value: V, bytes: number): boolean {
    this.delete(key);
    const charged = bytes + 2 * key.length;
    if (charged > (this.bounds.entryBytes ?? this.bounds.bytes / 4)) return false;
    this.#entries.set(key, { value, bytes: charged });
    this.#newest = key;
    this.#bytes += charged;
    const maxEntries = this.bounds.entries ?? Number.POSITIVE_INFINITY;
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= maxEntries && this.#bytes <= this.bounds.bytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
    return true;
  }

  /** The value kept for `key`, or `compute()`'s, kept charged `bytesOf` it. */
  getOrSet(key: string, compute: () => V, bytesOf: (value: V) => number): V {
    const known = this.get(key);
    if (known !== undefined) return known;
    const value = compute();
    this.set(key, value, bytesOf(value));
    return value;
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    if (this.#newest === key) this.#newest = undefined;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
    this.#newest = undefined;
  }
}
