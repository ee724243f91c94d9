import type { OfflineKind } from "../offline/kinds.js";

/** One kind's listing, page by page. */
export interface KindListing {
  kind: OfflineKind;
  pages: AsyncIterable<unknown[]>;
}

/**
 * The objects of several listings, a scope at a time: every cluster-scoped object first (scope `""`),
 * then each namespace's objects of every kind, namespace by namespace (`onObject` is told which);
 * `scopeDone` is called when a scope has no more. Only the listings' current pages are held. It relies on the API server listing in
 * the order of its storage keys (`<namespace>/<name>`), as etcd and the watch cache both do, and ends
 * with an error naming the namespaces if one does not.
 */
export async function forEachScope(
  listings: readonly KindListing[],
  onObject: (kind: OfflineKind, object: unknown, scope: string) => Promise<void>,
  scopeDone: (scope: string) => Promise<void>,
): Promise<void> {
  const clusterScoped = listings.filter((listing) => listing.kind.source.crd.scope !== "Namespaced");
  if (clusterScoped.length > 0) {
    for (const { kind, pages } of clusterScoped) {
      for await (const page of pages) for (const object of page) await onObject(kind, object, "");
    }
    await scopeDone("");
  }
  const cursors = listings
    .filter((listing) => listing.kind.source.crd.scope === "Namespaced")
    .map((listing) => new Cursor(listing));
  for (const cursor of cursors) await cursor.fill();
  let previous: string | undefined;
  for (;;) {
    const live = cursors.filter((cursor) => !cursor.done);
    if (live.length === 0) return;
    const key = live.map((cursor) => cursor.key()).reduce((a, b) => (b < a ? b : a));
    const namespace = key.slice(0, -1);
    if (previous !== undefined && key <= `${previous}/`) {
      throw new Error(
        `the API server listed objects of namespace ${JSON.stringify(namespace)} after those of ${JSON.stringify(previous)}: policy reports are written a namespace at a time, in the order objects are stored`,
      );
    }
    for (const cursor of live) {
      while (!cursor.done && cursor.key() === key) {
        await onObject(cursor.listing.kind, cursor.take(), namespace);
        await cursor.fill();
      }
    }
    await scopeDone(namespace);
    previous = namespace;
  }
}

/** A position in one listing: its current page, and the next object in it. */
class Cursor {
  done = false;
  private page: unknown[] = [];
  private at = 0;
  private readonly pages: AsyncIterator<unknown[]>;

  constructor(readonly listing: KindListing) {
    this.pages = listing.pages[Symbol.asyncIterator]();
  }

  /** Reads pages until there is a next object, or none are left. */
  async fill(): Promise<void> {
    while (!this.done && this.at >= this.page.length) {
      const next = await this.pages.next();
      if (next.done) this.done = true;
      this.page = next.done ? [] : next.value;
      this.at = 0;
    }
  }

  /** The next object's storage key prefix, `<namespace>/` (how etcd orders them). */
  key(): string {
    const metadata = (this.page[this.at] as { metadata?: { namespace?: unknown } } | null)?.metadata;
    return `${typeof metadata?.namespace === "string" ? metadata.namespace : ""}/`;
  }

  take(): unknown {
    const object = this.page[this.at];
    // Released as soon as it is judged: a page's objects are not all held until its end.
    this.page[this.at] = undefined;
    this.at++;
    return object;
  }
}
