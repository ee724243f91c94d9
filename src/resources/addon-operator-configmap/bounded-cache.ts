/**
 * A least-recently-used map bounded by entries and by bytes: each entry is charged the size its caller
 * gives (an estimate of what it retains), and the oldest entries go until both bounds hold. An entry
 * larger than a quarter of the byte budget is not kept at all.
 */
export class BoundedCache<V> {
  readonly #entries = new Map<string, { value: V; bytes: number }>();
  #bytes = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxBytes: number,
  ) {}

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
    // Most recently used last: Map iterates in insertion order, so the first entry is the oldest.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps the value, charged `bytes` plus the key's own size (two bytes a UTF-16 unit). */
  set(key: string, value: V, bytes: number): void {
    const charged = bytes + 2 * key.length;
    const previous = this.#entries.get(key);
    if (previous !== undefined) {
      this.#entries.delete(key);
      this.#bytes -= previous.bytes;
    }
    if (charged > this.maxBytes / 4) return;
    this.#entries.set(key, { value, bytes: charged });
    this.#bytes += charged;
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= this.maxEntries && this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }
}
