import { judgeValidation } from "../admission/handler.js";
import type { ResourceKind } from "../admission/resource-kind.js";
import type { AdmissionRequest } from "../admission/review.js";
import type { RuleActions } from "../admission/rule-actions.js";
import { ruleStatuses } from "../admission/rule-status.js";
import {
  type AddonOperatorFlags,
  addonOperatorKinds,
  type ConfigMapRef,
  defaultAddonConfigMap,
  parseConfigMapRef,
} from "../resources/addon-operator-configmap/index.js";
import { type OfflineVerdict, verdictProblems } from "./admit.js";

/**
 * ConfigMap/addon-operator offline: the kind `serve` builds from the same flags (--modules-dir,
 * --global-hooks-dir, --addon-configmap), and which ConfigMap of the input is the one it judges.
 */
export interface OfflineAddonOperator {
  kind: ResourceKind;
  configMap: ConfigMapRef;
}

/** The ConfigMap kind for validate's addon-operator flags; undefined without --modules-dir. */
export function offlineAddonOperator(flags: AddonOperatorFlags): OfflineAddonOperator | undefined {
  const [kind] = addonOperatorKinds(flags);
  if (!kind) return undefined;
  const configMap = flags["addon-configmap"]
    ? parseConfigMapRef(flags["addon-configmap"])
    : defaultAddonConfigMap;
  return { kind, configMap };
}

/**
 * The namespace the ConfigMap is judged in, when the object is the ConfigMap addon-operator reads: its
 * name, and its namespace or none (a manifest without one lands where `kubectl -n` or the kustomization
 * puts it; named as addon-operator's, it is meant for it). Undefined for every other object.
 */
export function addonConfigMapNamespace(
  addon: OfflineAddonOperator,
  object: Record<string, unknown>,
): string | undefined {
  if (object.apiVersion !== "v1" || object.kind !== "ConfigMap") return undefined;
  const metadata = (object.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  if (metadata.name !== addon.configMap.name) return undefined;
  const namespace = metadata.namespace ?? addon.configMap.namespace;
  return namespace === addon.configMap.namespace ? namespace : undefined;
}

/**
 * The verdict the cluster gives the ConfigMap: a core kind has no CRD schema or CEL rules (the API
 * server's own ConfigMap checks are the webhook's `data-string` rule), so it is the validating webhook's
 * verdict, as `serve` answers it, with the same bounds.
 */
export async function admitAddonConfigMap(
  addon: OfflineAddonOperator,
  namespace: string,
  object: Record<string, unknown>,
  oldObject: unknown,
  ruleActions?: RuleActions,
): Promise<OfflineVerdict> {
  const metadata = (object.metadata ?? {}) as { name?: unknown };
  const request: AdmissionRequest = {
    uid: "offline",
    kind: { group: "", version: "v1", kind: "ConfigMap" },
    resource: { group: "", version: "v1", resource: "configmaps" },
    ...(typeof metadata.name === "string" ? { name: metadata.name } : {}),
    namespace,
    operation: oldObject === undefined ? "CREATE" : "UPDATE",
    object,
    ...(oldObject === undefined ? {} : { oldObject }),
    dryRun: true,
  };
  const review = await judgeValidation(addon.kind, request, { ruleActions });
  const { errors, warnings } = verdictProblems("validating-webhook", addon.kind, request, review);
  const rules = ruleStatuses(addon.kind, request, review, ruleActions);
  return { allowed: errors.length === 0, errors, warnings, patch: [], rules };
}
