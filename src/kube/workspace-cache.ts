import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "../server/log.js";
import { type NameCacheTuning, startNameCache } from "./name-cache.js";

export interface WorkspaceCache {
  /** False only when the cache is synced and holds no such Workspace; unknown answers admit. */
  workspaceExists(namespace: string, name: string): boolean;
  isReady(): boolean;
  stop(): Promise<void>;
}

/** Every Workspace's name, for the Module's spec.workspace check. */
export function startWorkspaceCache(
  kubeConfig: KubeConfig,
  log: Logger,
  tuning: NameCacheTuning = {},
): WorkspaceCache {
  const cache = startNameCache(
    kubeConfig,
    log,
    {
      group: "batch.forkspacer.com",
      version: "v1",
      plural: "workspaces",
      kind: "Workspace",
      check: "the spec.workspace check",
    },
    tuning,
  );
  return { workspaceExists: cache.exists, isReady: cache.isReady, stop: cache.stop };
}
