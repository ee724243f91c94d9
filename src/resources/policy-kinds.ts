import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { webhooksOf } from "../admission/resource-kind.js";
import type { ChartWebhookKind } from "../codegen/chart-webhooks.js";
import type { PolicyKind } from "../codegen/native-policies.js";
import { loadSchemaSources } from "../codegen/schema-source.js";
import { type KindRegistration, kindRegistrations } from "./index.js";

/** Each registered kind as the policy generator and the offline policy evaluator take it. */
export function policyKinds(schemasDir: string): PolicyKind[] {
  const sources = loadSchemaSources(schemasDir);
  return kindRegistrations.map((registration) => {
    const source = sources.find((s) => s.name === registration.schema);
    // A core kind (ConfigMap/addon-operator) has no schema source.
    const identity = source
      ? { group: source.crd.group, version: source.crd.version, plural: source.crd.names.plural }
      : coreIdentity;
    return {
      name: registration.name,
      ...identity,
      rules: registration.rules,
      mutations: registration.mutations ?? [],
      ...(source ? { source } : {}),
    };
  });
}

// A core kind (ConfigMap/addon-operator) has no schema source.
const coreIdentity = { group: "", version: "v1", plural: "configmaps", scope: "Namespaced" } as const;

/** Each registered kind as the chart's webhook entries are generated from it. */
export function chartWebhookKinds(schemasDir: string): ChartWebhookKind[] {
  const sources = loadSchemaSources(schemasDir);
  return kindRegistrations.map((registration) => {
    const source = sources.find((s) => s.name === registration.schema);
    const identity = source
      ? {
          group: source.crd.group,
          version: source.crd.version,
          plural: source.crd.names.plural,
          scope: source.crd.scope,
        }
      : coreIdentity;
    return {
      name: registration.name,
      ...identity,
      webhooks: builtWithEverythingOn(registration).flatMap(webhooksOf),
      ...(registration.chart ? { chart: registration.chart } : {}),
    };
  });
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
