import { CustomObjectsApi, type KubeConfig, Watch } from "@kubernetes/client-node";
import type { Logger } from "../server/log.js";
import { type ObjectList, type ObjectMeta, Reflector, type ReflectorOptions } from "./reflector.js";

const group = "operator.kyma-project.io";
const version = "v1beta2";
const plural = "moduletemplates";

type Named = { metadata?: ObjectMeta };

export interface ModuleTemplateCache {
  /** False only when the cache is synced and holds no such ModuleTemplate; unknown answers admit. */
  moduleTemplateExists(namespace: string, name: string): boolean;
  /** Ready once the first list has answered (or told us the ModuleTemplate CRD is not installed). */
  isReady(): boolean;
  stop(): Promise<void>;
}

export type ModuleTemplateCacheTuning = Pick<
  ReflectorOptions<Named>,
  "retryDelayMs" | "absentRetryMs" | "watchTimeoutSeconds"
>;

/**
 * The names of every Kyma ModuleTemplate in the cluster, from one list and a watch, for the
 * ModuleReleaseMeta check: answers come from memory, never a request per admission. Only names are kept
 * (a template's descriptor can be large). While the ModuleTemplate CRD is not installed the check is
 * skipped (logged once per change), and the cache keeps looking for it.
 */
export function startModuleTemplateCache(
  kubeConfig: KubeConfig,
  log: Logger,
  tuning: ModuleTemplateCacheTuning = {},
): ModuleTemplateCache {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
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
    onStateChange: (state) => {
      if (state === "absent") {
        log({
          level: "warn",
          msg: `the ModuleTemplate CRD (${plural}.${group}) is not installed: the ModuleReleaseMeta template check is skipped until it is`,
        });
      } else if (state === "synced") {
        log({ msg: "ModuleTemplate cache synced: the ModuleReleaseMeta template check is on" });
      }
    },
    onError: (message) => log({ level: "error", msg: message }),
  });
  reflector.start();
  return {
    moduleTemplateExists: (namespace, name) =>
      reflector.state !== "synced" || reflector.get(namespace, name) !== undefined,
    isReady: () => reflector.state !== "starting",
    stop: () => reflector.stop(),
  };
}
