import { cacheKey, type KeyChange, type ReflectorState } from "./reflector.js";

/** A change to a name cache (`name-cache.ts`): its state, or its names (`namespace/name`). */
export type NameChange =
  | { state: ReflectorState }
  | KeyChange
  | { state: ReflectorState; replaced: string[] };

/**
 * A copy of a name cache kept in another thread (a review worker) from the cache's snapshot and its
 * changes, sent in order: it answers as the cache would have when the last change was sent.
 */
export class NameReplica {
  private state: ReflectorState = "starting";
  private names = new Set<string>();

  apply(change: NameChange): void {
    if ("state" in change) this.state = change.state;
    if ("replaced" in change) this.names = new Set(change.replaced);
    else if ("added" in change) this.names.add(change.added);
    else if ("removed" in change) this.names.delete(change.removed);
  }

  /** As `NameCache.exists`: false only when synced and the name is not there. */
  readonly exists = (namespace: string, name: string): boolean =>
    this.state !== "synced" || this.names.has(cacheKey(namespace, name));
}
