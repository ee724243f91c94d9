import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { load as loadYaml } from "js-yaml";
import { chartWebhooksFile } from "../codegen/chart-webhooks.js";
import { type GeneratedFile, generateAll, staleFiles, writeFiles } from "../codegen/generate.js";
import { type GeneratedPolicy, nativePolicyFiles, policiesDir } from "../codegen/native-policies.js";
import { catalogueFiles, chartValuesSchemaPath } from "../codegen/rules-doc.js";

/**
 * `npm run generate`: writes every artifact; with --check, only reports stale ones (exit 1). Either way
 * the generated CRDs and ValidatingAdmissionPolicies go through kube-apiserver's own validation
 * (structural schema, CEL type check and cost estimate), which a JSON Schema cannot judge: what it would
 * refuse (a CEL rule over the cost limit) is not written.
 */
const root = process.cwd();
const check = process.argv.includes("--check");
const schemaFiles = await generateAll(root);
kindSchemasFirst(schemaFiles);
// Imported only now: the kinds are built from their generated schemas as their modules load.
const { ruleCatalogue } = await import("../resources/index.js");
const { chartWebhookKinds, policyKinds } = await import("../resources/policy-kinds.js");
const files = [
  ...schemaFiles,
  // The rule reference and the chart's ruleActions, from the rule declarations.
  ...catalogueFiles(ruleCatalogue(), readFileSync(join(root, chartValuesSchemaPath), "utf8")),
  // The native admission policies, from the same declarations and the schema sources' CEL rules.
  ...nativePolicyFiles(policyKinds(join(root, "schemas"))),
  // The chart's webhook entries, from the kind registrations and the paths the server serves.
  chartWebhooksFile(
    chartWebhookKinds(join(root, "schemas")),
    readFileSync(join(root, "charts/module-admission/values.yaml"), "utf8"),
  ),
];
// What kube-apiserver's validation judges: the CRDs (a CEL rule whose estimated cost it would refuse is
// refused here, before anything is written) and the ValidatingAdmissionPolicies.
const checked = [
  ...files.filter((file) => file.path.includes("/crds/")),
  ...policyObjects(files.find((file) => file.path === `${policiesDir}/validating.yaml`)?.content ?? "[]"),
];
if (check) {
  const stale = staleFiles(root, files);
  if (stale.length > 0) {
    console.error(`stale generated files (run npm run generate):\n  ${stale.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`${files.length} generated files up to date`);
  if (!(await crdsAcceptedByApiServer(checked))) process.exit(1);
} else {
  if (!(await crdsAcceptedByApiServer(checked))) {
    console.error("nothing written: kube-apiserver would refuse the objects above");
    process.exit(1);
  }
  writeFiles(root, files);
  for (const file of files) console.log(`wrote ${file.path}`);
}

/**
 * A kind registered before its schema source was first generated (or a generated schema deleted) would
 * stop every later step with ENOENT, as the kinds read `schemas/dist/<name>.schema.json` when their
 * modules load: such a schema is written first (with --check, reported stale at once).
 */
function kindSchemasFirst(generated: GeneratedFile[]): void {
  const missing = generated.filter(
    (file) => file.path.startsWith("schemas/dist/") && !existsSync(join(root, file.path)),
  );
  if (missing.length === 0) return;
  if (check) {
    console.error(
      `stale generated files (run npm run generate):\n  ${missing.map((file) => file.path).join("\n  ")}`,
    );
    process.exit(1);
  }
  writeFiles(root, missing);
  for (const file of missing) console.log(`wrote ${file.path} first (the kinds are built from it)`);
}

/** The generated policies as the objects the chart installs (without the chart's selector and names). */
function policyObjects(generated: string): { path: string; content: string }[] {
  return (loadYaml(generated) as GeneratedPolicy[]).map((policy) => ({
    path: `${policiesDir}/${policy.rule}`,
    content: JSON.stringify({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: policy.rule },
      spec: { failurePolicy: "Fail", ...policy.spec },
    }),
  }));
}

/**
 * The CRDs and policies through kube-apiserver's own validation, by a Go program the tests build (a development
 * command, run from a clone: test/support/apiserver-check.ts is not part of the package). Says in one
 * line when it cannot run; prints the server's answer for each CRD it would refuse.
 */
async function crdsAcceptedByApiServer(crds: { path: string; content: string }[]): Promise<boolean> {
  const checker = pathToFileURL(join(root, "test/support/apiserver-check.ts")).href;
  const { apiServerCheck, apiServerCheckUnavailable } = (await import(checker)) as {
    apiServerCheck(
      objects: string[],
      log: (line: string) => void,
    ): Promise<{ name: string; message?: string; problem?: string }[]>;
    apiServerCheckUnavailable(): string | null;
  };
  const unavailable = apiServerCheckUnavailable();
  if (unavailable) {
    console.log(`CRDs not checked by kube-apiserver's validation (CEL type check and cost): ${unavailable}`);
    return true;
  }
  // The one Go tool generate needs; built here when the cache lacks it, saying what it builds or waits for.
  const verdicts = await apiServerCheck(
    crds.map((crd) => crd.content),
    (line) =>
      console.error(`generate, checking the CRDs and policies with kube-apiserver's validation: ${line}`),
  );
  const refused = verdicts.filter((verdict) => verdict.message || verdict.problem);
  for (const verdict of refused) console.error(verdict.message ?? `${verdict.name}: ${verdict.problem}`);
  if (refused.length === 0)
    console.log(
      `${verdicts.length} CRDs and policies accepted by kube-apiserver's validation (CEL type check and cost)`,
    );
  return refused.length === 0;
}
