import { CustomObjectsApi, type KubeConfig, Watch } from "@kubernetes/client-node";
import type { Logger } from "../base/log.js";
import type { NameChange } from "./name-replica.js";
import { type ObjectList, type ObjectMeta, Reflector, type ReflectorOptions } from "./reflector.js";

type Named = { metadata?: ObjectMeta };

/** Which custom resource to follow, and what the check that reads the cache is called in logs. */
export interface NamedResource {
  group: string;
  version: string;
  plural: string;
  kind: string;
  /** `the spec.workspace check`: said when the CRD is missing and when the cache has synced. */
  check: string;
}

export interface NameCache {
  /** False only when the cache is synced and holds no such object; unknown answers admit. */
  exists(namespace: string, name: string): boolean;
  /** Ready once the first list has answered (or told us the CRD is not installed). */
  isReady(): boolean;
  /** The cache as it is now, as one change: what a fresh copy (`NameReplica`) starts from. */
  snapshot(): NameChange;
  /** Calls `listener` with every change from now on, in order: what keeps a copy current. */
  follow(listener: (change: NameChange) => void): void;
  stop(): Promise<void>;
}

export type NameCacheTuning = Pick<
  ReflectorOptions<Named>,
  "retryDelayMs" | "absentRetryMs" | "watchTimeoutSeconds"
>;

/**
 * The names of every object of one custom resource in the cluster, from one list and a watch: a
 * cross-object check answers from memory and never asks the API server per admission request. Only
 * names are kept (an object can be large). While the CRD is not installed the check is skipped (logged
 * once per change), and the cache keeps looking for it.
 */
export function startNameCache(
  kubeConfig: KubeConfig,
  log: Logger,
  resource: NamedResource,
  tuning: NameCacheTuning = {},
): NameCache {
  const { group, version, plural, kind, check } = resource;
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const followers: ((change: NameChange) => void)[] = [];
  const tell = (change: NameChange) => {
    for (const follower of followers) follower(change);
  };
  const reflector = new Reflector<Named>({
    ...tuning,
    list: async () => (await api.listClusterCustomObject({ group, version, plural })) as ObjectList<Named>,
    watch: new Watch(kubeConfig),
    path: `/apis/${group}/${version}/${plural}`,
    retain: ({ metadata }) => ({
      metadata: {
        name: metadata?.name,
        namespace: metadata?.namespace,
        resourceVersion: metadata?.resourceVersion,
      },
    }),
    onKeys: tell,
    onStateChange: (state) => {
      tell({ state });
      if (state === "absent") {
        log({
          level: "warn",
          msg: `the ${kind} CRD (${plural}.${group}) is not installed: ${check} is skipped until it is`,
        });
      } else if (state === "synced") {
        log({ msg: `${kind} cache synced: ${check} is on` });
      }
    },
    onError: (message) => log({ level: "error", msg: message }),
  });
  reflector.start();
  return {
    exists: (namespace, name) => reflector.state !== "synced" || reflector.get(namespace, name) !== undefined,
    isReady: () => reflector.state !== "starting",
    snapshot: () => ({ state: reflector.state, replaced: reflector.keys() }),
    follow: (listener) => {
      followers.push(listener);
    },
    stop: () => reflector.stop(),
  };
}

/** Every Workspace's name, for the Module's spec.workspace check. */
export const workspaceNames: NamedResource = {
  group: "batch.forkspacer.com",
  version: "v1",
  plural: "workspaces",
  kind: "Workspace",
  check: "the spec.workspace check",
};

/** Every Kyma ModuleTemplate's name, for the ModuleReleaseMeta template check. */
export const moduleTemplateNames: NamedResource = {
  group: "operator.kyma-project.io",
  version: "v1beta2",
  plural: "moduletemplates",
  kind: "ModuleTemplate",
  check: "the ModuleReleaseMeta template check",
};
