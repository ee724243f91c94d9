import type { Watch } from "@kubernetes/client-node";
import { apiErrorMessage, httpStatus } from "./api-errors.js";

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  resourceVersion?: string;
}

export interface ObjectList<T> {
  items: T[];
  metadata?: { resourceVersion?: string };
}

/**
 * - `starting`: the first list has not answered yet;
 * - `synced`: the cache holds a full list and follows the watch;
 * - `absent`: the API server does not serve the resource (its CRD is not installed); listed again later.
 */
export type ReflectorState = "starting" | "synced" | "absent";

export interface ReflectorOptions<T extends { metadata?: ObjectMeta }> {
  /** Lists every object (all namespaces). */
  list: () => Promise<ObjectList<T>>;
  watch: Watch;
  /** The collection path to watch, e.g. `/apis/batch.forkspacer.com/v1/workspaces`. */
  path: string;
  onStateChange?: (state: ReflectorState) => void;
  onError?: (message: string) => void;
  /** Wait after a failed list or watch before trying again; doubled on each failure in a row, up to 30 s. */
  retryDelayMs?: number;
  /** How often to look again for a resource that is not served. */
  absentRetryMs?: number;
  /** Asked of the API server, which ends each watch after this long; client-go picks 5 to 10 minutes. */
  watchTimeoutSeconds?: number;
  /** What the cache keeps of each object (e.g. only its metadata); the whole object by default. */
  retain?: (object: T) => T;
  /** Told of each change to the set of keys (`namespace/name`) held: for copies of the cache elsewhere. */
  onKeys?: (change: KeyChange) => void;
}

/** A change to the keys a reflector holds: all replaced (a fresh list, or none while absent), one added or removed. */
export type KeyChange = { replaced: string[] } | { added: string } | { removed: string };

/**
 * A cache of one resource kind kept current as client-go's reflector keeps it: list once, then watch
 * from the list's resourceVersion, resuming from the last version seen (events and bookmarks) when a
 * watch ends, and listing afresh only when the API server says that version is gone (410).
 */
export class Reflector<T extends { metadata?: ObjectMeta }> {
  private readonly objects = new Map<string, T>();
  private resourceVersion = "";
  private stateValue: ReflectorState = "starting";
  private stopped = false;
  private abortWatch: AbortController | undefined;
  private wakeUp: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private failures = 0;

  constructor(private readonly options: ReflectorOptions<T>) {}

  get state(): ReflectorState {
    return this.stateValue;
  }

  /** The version the next watch resumes from (client-go's LastSyncResourceVersion); "" before a list. */
  get lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  get(namespace: string, name: string): T | undefined {
    return this.objects.get(cacheKey(namespace, name));
  }

  /** Every key held (`namespace/name`). */
  keys(): string[] {
    return [...this.objects.keys()];
  }

  get size(): number {
    return this.objects.size;
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abortWatch?.abort();
    this.wakeUp?.();
    await this.running;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.resourceVersion === "") {
        const listed = await this.listOnce();
        if (!listed) continue;
      }
      const outcome = await this.watchOnce();
      if (outcome === "gone") this.resourceVersion = "";
      else if (outcome === "failed") await this.backOff();
    }
  }

  /** True when the cache now holds a fresh list. */
  private async listOnce(): Promise<boolean> {
    try {
      const list = await this.options.list();
      this.objects.clear();
      for (const item of list.items) this.objects.set(objectKey(item), this.retain(item));
      this.options.onKeys?.({ replaced: [...this.objects.keys()] });
      this.resourceVersion = list.metadata?.resourceVersion ?? "";
      this.failures = 0;
      this.setState("synced");
      return true;
    } catch (error) {
      if (httpStatus(error) === 404) {
        this.objects.clear();
        this.options.onKeys?.({ replaced: [] });
        this.setState("absent");
        await this.pause(this.options.absentRetryMs ?? 60_000);
      } else {
        this.options.onError?.(`list ${this.options.path} failed: ${apiErrorMessage(error)}`);
        await this.backOff();
      }
      return false;
    }
  }

  /** Follows one watch until it ends: normally (`ended`), with 410 Gone (`gone`), or with an error. */
  private watchOnce(): Promise<"ended" | "gone" | "failed"> {
    return new Promise((resolve) => {
      let outcome: "ended" | "gone" | "failed" = "ended";
      const query = {
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: this.options.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300),
      };
      const onEvent = (type: string, object: T & { code?: number; message?: string }) => {
        if (type === "ERROR") {
          if (object.code === 410) outcome = "gone";
          else {
            outcome = "failed";
            this.options.onError?.(`watch ${this.options.path}: ${object.message ?? "error event"}`);
          }
          return;
        }
        this.failures = 0;
        const objectAt = objectKey(object);
        if (type === "ADDED" || type === "MODIFIED") {
          const added = !this.objects.has(objectAt);
          this.objects.set(objectAt, this.retain(object));
          if (added) this.options.onKeys?.({ added: objectAt });
        } else if (type === "DELETED" && this.objects.delete(objectAt)) {
          this.options.onKeys?.({ removed: objectAt });
        }
        const version = object.metadata?.resourceVersion;
        if (version) this.resourceVersion = version;
      };
      const onDone = (error: unknown) => {
        this.abortWatch = undefined;
        if (error && !this.stopped && (error as Error).name !== "AbortError") {
          const status = httpStatus(error);
          if (status === 410 || status === 404) outcome = "gone";
          else {
            outcome = "failed";
            this.options.onError?.(`watch ${this.options.path} failed: ${apiErrorMessage(error)}`);
          }
        }
        resolve(outcome);
      };
      this.options.watch.watch(this.options.path, query, onEvent, onDone).then(
        (controller) => {
          this.abortWatch = controller;
          if (this.stopped) controller.abort();
        },
        (error: unknown) => onDone(error),
      );
    });
  }

  private retain(object: T): T {
    return this.options.retain ? this.options.retain(object) : object;
  }

  private setState(state: ReflectorState): void {
    if (state === this.stateValue) return;
    this.stateValue = state;
    this.options.onStateChange?.(state);
  }

  /** Retries of a failing API server (RBAC missing, overloaded) slow down instead of flooding it and the log. */
  private backOff(): Promise<void> {
    const delay = Math.min((this.options.retryDelayMs ?? 1000) * 2 ** this.failures, 30_000);
    this.failures += 1;
    return this.pause(delay);
  }

  private pause(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }
}

/** How the cache keys an object: `namespace/name` (`/name` for a cluster-scoped one). */
export const cacheKey = (namespace: string, name: string) => `${namespace}/${name}`;
const objectKey = (object: { metadata?: ObjectMeta }) =>
  cacheKey(object.metadata?.namespace ?? "", object.metadata?.name ?? "");
