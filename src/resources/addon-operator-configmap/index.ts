import { statSync } from "node:fs";
import { isMap } from "../../addon-operator/schema.js";
import type { FieldErrorList } from "../../admission/field-errors.js";
import type { ResourceKind, Verdict } from "../../admission/resource-kind.js";
import type { AdmissionRequest } from "../../admission/review.js";
import { truncate } from "../../base/limits.js";
import { type SchemaDirs, schemaStore } from "./schema-store.js";
import { configMapRules, validateConfigMapData, validateConfigMapTransition } from "./sections.js";

export interface ConfigMapRef {
  namespace: string;
  name: string;
}

export interface AddonOperatorOptions extends SchemaDirs {
  /** The ConfigMap addon-operator reads (`--addon-configmap`); other ConfigMaps are admitted untouched. */
  configMap: ConfigMapRef;
}

export const defaultAddonConfigMap: ConfigMapRef = { namespace: "addon-operator", name: "addon-operator" };

/** `NAMESPACE/NAME` as given to --addon-configmap. */
export function parseConfigMapRef(text: string): ConfigMapRef {
  const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(text);
  if (!match?.[1] || !match[3])
    throw new Error(`--addon-configmap must be NAMESPACE/NAME, got ${JSON.stringify(text)}`);
  return { namespace: match[1], name: match[3] };
}

interface ConfigMap {
  metadata?: { name?: string; namespace?: string };
  data?: Record<string, unknown>;
}

const admitted: Verdict = { errors: [], warnings: [] };

/**
 * ConfigMap/addon-operator, admitted only when addon-operator would apply it. The schemas come from
 * the modules dir (and global hooks dir) and are reloaded when their files change (checked at most once
 * per `recheckMs`, a second by default).
 */
export function addonOperatorConfigMapKind(options: AddonOperatorOptions): ResourceKind<ConfigMap> {
  const store = schemaStore(options);
  const isTarget = (object: ConfigMap, request: AdmissionRequest) =>
    (request.namespace ?? object.metadata?.namespace) === options.configMap.namespace &&
    (request.name || object.metadata?.name) === options.configMap.name;
  const dataOf = (object: ConfigMap | undefined) => (isMap(object?.data) ? object.data : {});
  return {
    group: "",
    version: "v1",
    kind: "ConfigMap",
    paths: { validate: "/validate-addon-operator-configmap" },
    // The modules' schemas read and parsed (deckhouse's 90 modules: 280 ms of a cold worker's CPU, and
    // a review of the ConfigMap beside the first one waited as long).
    prepare: () => void store.current(),
    declarations: configMapRules,
    rules: configMapRules.filter((rule) => rule.severity === "error").map((rule) => rule.id),
    warningRules: configMapRules.filter((rule) => rule.severity === "warning").map((rule) => rule.id),
    validator: {
      validate: (object, { request, budget }) =>
        isTarget(object, request) ? validateConfigMapData(dataOf(object), store.current(), budget) : admitted,
      // x-deckhouse-validations that read oldSelf: transition rules, never ratcheted.
      validateTransition: (oldObject, object, { request, budget }) =>
        isTarget(object, request)
          ? validateConfigMapTransition(dataOf(oldObject), dataOf(object), store.current(), budget)
          : admitted,
      whileInvalid: ignoredWhileInvalid,
    },
  };
}

/**
 * addon-operator refuses an invalid ConfigMap as a whole and keeps running on the last one it took: an
 * update that leaves an old problem is admitted (its hooks write this ConfigMap, which must never
 * freeze), and says plainly that none of it takes effect until the problem is fixed.
 */
function ignoredWhileInvalid(preexisting: FieldErrorList): string[] {
  const [before, after] = [
    "addon-operator ignores the whole ConfigMap until ",
    " is fixed: none of this change takes effect",
  ];
  // The sentence is kept whole: a long section name is what gets shortened. The first section only:
  // the warning of each old problem names them all.
  const section = (preexisting[0]?.field.segments ?? ["data"]).slice(0, 2).join(".");
  return [`${before}${truncate(section, 120 - before.length - after.length)}${after}`];
}

/** What `serve`'s addon-operator flags give the ConfigMap kind. */
export interface AddonOperatorFlags {
  "modules-dir"?: string;
  "global-hooks-dir"?: string;
  "addon-configmap"?: string;
}

/** The kinds `serve` adds for its addon-operator flags: none without --modules-dir. */
export function addonOperatorKinds(flags: AddonOperatorFlags): ResourceKind[] {
  const modulesDir = flags["modules-dir"];
  if (modulesDir === undefined) return [];
  for (const [flag, dir] of [
    ["--modules-dir", modulesDir],
    ["--global-hooks-dir", flags["global-hooks-dir"]],
  ]) {
    if (dir !== undefined && !statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
      throw new Error(`${flag} ${dir}: not a directory`);
    }
  }
  const kind = addonOperatorConfigMapKind({
    modulesDir,
    globalHooksDir: flags["global-hooks-dir"],
    configMap: flags["addon-configmap"] ? parseConfigMapRef(flags["addon-configmap"]) : defaultAddonConfigMap,
  });
  return [kind];
}
