import type { PolicyKind } from "../codegen/native-policies.js";
import { loadSchemaSources } from "../schema/schema-source.js";
import { kindRegistrations } from "./index.js";

/** Each registered kind as the policy generator and the offline policy evaluator take it. */
export function policyKinds(schemasDir: string): PolicyKind[] {
  const sources = loadSchemaSources(schemasDir);
  return kindRegistrations.map((registration) => {
    const source = sources.find((s) => s.name === registration.schema);
    // A core kind (ConfigMap/addon-operator) has no schema source.
    const identity = source
      ? { group: source.crd.group, version: source.crd.version, plural: source.crd.names.plural }
      : { group: "", version: "v1", plural: "configmaps" };
    return {
      name: registration.name,
      ...identity,
      rules: registration.rules,
      mutations: registration.mutations ?? [],
      ...(source ? { source } : {}),
    };
  });
}
