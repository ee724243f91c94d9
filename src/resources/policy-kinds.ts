import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { webhooksOf } from "../admission/resource-kind.js";
import type { ChartWebhookKind } from "../codegen/chart-webhooks.js";
import type { PolicyKind } from "../codegen/native-policies.js";
import { loadSchemaSources } from "../schema/schema-source.js";
import { type KindRegistration, kindRegistrations } from "./index.js";

// A core kind (ConfigMap/addon-operator) has no schema source.
const coreIdentity = { group: "", version: "v1", plural: "configmaps", scope: "Namespaced" } as const;

/** Each registration with its schema source, if any, and its resource's identity in the API. */
function registered(schemasDir: string) {
  const sources = loadSchemaSources(schemasDir);
  return kindRegistrations.map((registration) => {
    const source = sources.find((s) => s.name === registration.schema);
    const { crd } = source ?? {};
    const identity = crd
      ? { group: crd.group, version: crd.version, plural: crd.names.plural, scope: crd.scope }
      : coreIdentity;
    return { registration, source, identity };
  });
}

/** Each registered kind as the policy generator and the offline policy evaluator take it. */
export function policyKinds(schemasDir: string): PolicyKind[] {
  return registered(schemasDir).map(({ registration, source, identity: { group, version, plural } }) => ({
    name: registration.name,
    group,
    version,
    plural,
    rules: registration.rules,
    mutations: registration.mutations ?? [],
    ...(source ? { source } : {}),
  }));
}

/** Each registered kind as the chart's webhook entries are generated from it. */
export function chartWebhookKinds(schemasDir: string): ChartWebhookKind[] {
  return registered(schemasDir).map(({ registration, identity }) => ({
    name: registration.name,
    ...identity,
    webhooks: builtWithEverythingOn(registration).flatMap(webhooksOf),
    ...(registration.chart ? { chart: registration.chart } : {}),
  }));
}

/** A kind as `serve` builds it with every feature on: an empty modules dir for addon-operator's. */
function builtWithEverythingOn(registration: KindRegistration) {
  const modulesDir = mkdtempSync(join(tmpdir(), "module-admission-generate-"));
  try {
    return registration.create({ addonOperator: { "modules-dir": modulesDir } });
  } finally {
    rmSync(modulesDir, { recursive: true, force: true });
  }
}
