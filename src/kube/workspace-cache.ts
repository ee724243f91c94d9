import { CustomObjectsApi, type KubeConfig, Watch } from "@kubernetes/client-node";
import type { Logger } from "../server/log.js";
import { type ObjectList, type ObjectMeta, Reflector, type ReflectorOptions } from "./reflector.js";

const group = "batch.forkspacer.com";
const version = "v1";
const plural = "workspaces";

export interface WorkspaceCache {
  /** False only when the cache is synced and holds no such Workspace; unknown answers admit. */
  workspaceExists(namespace: string, name: string): boolean;
  /** Ready once the first list has answered (or told us the Workspace CRD is not installed). */
  isReady(): boolean;
  stop(): Promise<void>;
}

export type WorkspaceCacheTuning = Pick<
  ReflectorOptions<{ metadata?: ObjectMeta }>,
  "retryDelayMs" | "absentRetryMs" | "watchTimeoutSeconds"
>;

/**
 * Every Workspace in the cluster, from one list and a watch: the webhook answers from memory and never
 * asks the API server per admission request. While the Workspace CRD is not installed the check is
 * skipped (logged once per change), and the cache keeps looking for it.
 */
export function startWorkspaceCache(
  kubeConfig: KubeConfig,
  log: Logger,
  tuning: WorkspaceCacheTuning = {},
): WorkspaceCache {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const reflector = new Reflector<{ metadata?: ObjectMeta }>({
    ...tuning,
    list: async () =>
      (await api.listClusterCustomObject({ group, version, plural })) as ObjectList<{
        metadata?: ObjectMeta;
      }>,
    watch: new Watch(kubeConfig),
    path: `/apis/${group}/${version}/${plural}`,
    onStateChange: (state) => {
      if (state === "absent") {
        log({
          level: "warn",
          msg: `the Workspace CRD (${plural}.${group}) is not installed: the spec.workspace check is skipped until it is`,
        });
      } else if (state === "synced") {
        log({ msg: `Workspace cache synced: the spec.workspace check is on` });
      }
    },
    onError: (message) => log({ level: "error", msg: message }),
  });
  reflector.start();
  return {
    workspaceExists: (namespace, name) =>
      reflector.state !== "synced" || reflector.get(namespace, name) !== undefined,
    isReady: () => reflector.state !== "starting",
    stop: () => reflector.stop(),
  };
}
