import { WorkBudget } from "../../../src/budget/work-budget.js";
import type { LoadedSchemas } from "../../../src/resources/addon-operator-configmap/schema-store.js";
import { validateConfigMapData } from "../../../src/resources/addon-operator-configmap/sections.js";
import type { GoOracle } from "../go-oracle.js";
import type { DifferentialRun, Random } from "./random.js";
import { generateYamlDocument } from "./yaml.js";

/**
 * ConfigMap/addon-operator's data as addon-operator reads it (test/oracles/addon-operator/configmap.go:
 * parseConfigMapData) against the project's verdict on it with no module known: addon-operator refuses
 * the whole ConfigMap (bad key, flag, section) exactly when the project denies it. Values are checked
 * by the addon values family; here every module is unknown, so only reading decides.
 */
const keys = [
  "global",
  "fooBar",
  "foo-bar",
  "Foo",
  "certManager",
  "CertManager",
  "fooBarEnabled",
  "fooBarMaintenance",
  "x1",
  "a",
  "fooBAR",
  "foo2Bar",
  "fooEnabledMaintenance",
  "Enabled",
  "globalEnabled",
  "ingressNginx",
  "ingressNginxEnabled",
  "ingressNginxMaintenance",
  "userAuthn",
  "",
];
const flags = [
  "true",
  "false",
  "True",
  "",
  "yes",
  "1",
  "NoResourceReconciliation",
  "noresourcereconciliation",
  "Managed",
];
const sections = [
  "",
  "# only a comment",
  "a: 1",
  "- 1",
  "5",
  "~",
  "false",
  "{}",
  "[]",
  "a: [",
  "a: 2025-01-01",
  "1: a",
  "a: .inf",
  "a:\n  b: yes",
  "x",
];

export function generateConfigMapData(random: Random): Record<string, string> {
  const data: Record<string, string> = {};
  for (let n = random.int(1, 4); n > 0; n--) {
    const key = random.pick(keys);
    const r = random.next();
    data[key] = r < 0.3 ? random.pick(flags) : r < 0.6 ? random.pick(sections) : generateYamlDocument(random);
  }
  return data;
}

const noSchemas: LoadedSchemas = { global: { state: "none" }, modules: new Map() };

export async function configMapDifferential(
  oracle: GoOracle,
  inputs: readonly Record<string, string>[],
): Promise<DifferentialRun> {
  const answers = await oracle.askAll(
    "configMap",
    inputs.map((data) => ({ data })),
  );
  const run: DifferentialRun = {
    family: "ConfigMap/addon-operator",
    cases: inputs.length,
    disagreements: [],
  };
  inputs.forEach((data, i) => {
    const answer = answers[i] as (typeof answers)[number];
    if ("panic" in answer || "timeout" in answer) {
      run.disagreements.push({ input: data, go: answer, ts: null });
      return;
    }
    const verdict = validateConfigMapData(data, noSchemas, new WorkBudget());
    const refused = answer.error !== undefined;
    if (refused !== verdict.errors.length > 0) {
      run.disagreements.push({
        input: data,
        go: answer.error ?? "reads it",
        ts: verdict.errors.map((e) => `${e.field}: ${e.detail ?? e.type}`),
      });
    }
  });
  return run;
}
