/**
 * Results by key, kept while they are used: two generations of at most `limit / 2` keys each. A hit in
 * the current generation costs one lookup; a hit in the previous one moves the key to the current one;
 * when the current one is full it becomes the previous one, and what was not used since is dropped. An
 * LRU approximation that never reorders a map on a hit. Callers key by everything the result depends
 * on, and keep large keys out themselves.
 */
export class RecentResults<V> {
  #current = new Map<string, V>();
  #previous = new Map<string, V>();

  constructor(readonly limit: number) {}

  /** How many results are kept. */
  get size(): number {
    return this.#current.size + this.#previous.size;
  }

  /** The result for `key`: the one kept, or `compute()`'s, then kept. */
  get(key: string, compute: () => V): V {
    const known = this.#current.get(key);
    if (known !== undefined) return known;
    const value = this.#previous.get(key) ?? compute();
    if (this.#current.size >= this.limit / 2) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
    this.#current.set(key, value);
    return value;
  }
}
