import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generateAll, staleFiles, writeFiles } from "../codegen/generate.js";
import { nativePolicyFiles } from "../codegen/native-policies.js";
import { catalogueFiles, chartValuesSchemaPath } from "../codegen/rules-doc.js";
import { ruleCatalogue } from "../resources/index.js";
import { policyKinds } from "../resources/policy-kinds.js";

/** `npm run generate`: writes every artifact; with --check, only reports stale ones (exit 1). */
const root = process.cwd();
const files = [
  ...(await generateAll(root)),
  // The rule reference and the chart's ruleActions, from the rule declarations.
  ...catalogueFiles(ruleCatalogue(), readFileSync(join(root, chartValuesSchemaPath), "utf8")),
  // The native admission policies, from the same declarations and the schema sources' CEL rules.
  ...nativePolicyFiles(policyKinds(join(root, "schemas"))),
];
if (process.argv.includes("--check")) {
  const stale = staleFiles(root, files);
  if (stale.length > 0) {
    console.error(`stale generated files (run npm run generate):\n  ${stale.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`${files.length} generated files up to date`);
} else {
  writeFiles(root, files);
  for (const file of files) console.log(`wrote ${file.path}`);
}
