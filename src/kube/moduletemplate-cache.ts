import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "../server/log.js";
import { type NameCacheTuning, startNameCache } from "./name-cache.js";

export interface ModuleTemplateCache {
  /** False only when the cache is synced and holds no such ModuleTemplate; unknown answers admit. */
  moduleTemplateExists(namespace: string, name: string): boolean;
  isReady(): boolean;
  stop(): Promise<void>;
}

/** Every Kyma ModuleTemplate's name, for the ModuleReleaseMeta template check. */
export function startModuleTemplateCache(
  kubeConfig: KubeConfig,
  log: Logger,
  tuning: NameCacheTuning = {},
): ModuleTemplateCache {
  const cache = startNameCache(
    kubeConfig,
    log,
    {
      group: "operator.kyma-project.io",
      version: "v1beta2",
      plural: "moduletemplates",
      kind: "ModuleTemplate",
      check: "the ModuleReleaseMeta template check",
    },
    tuning,
  );
  return { moduleTemplateExists: cache.exists, isReady: cache.isReady, stop: cache.stop };
}
