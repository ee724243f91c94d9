import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseManifests } from "../../src/cli/manifests.js";
import type { Client } from "../../src/offline/client.js";
import { kindOf, type OfflineKind } from "../../src/offline/kinds.js";
import { admissionCases } from "../support/admission-cases.js";
import { corpusPath } from "../support/corpus.js";
import { hostileModules } from "../support/hostile-modules.js";
import { kedaReleaseMeta } from "../support/modulereleasemetas.js";
import { kedaTemplate, specExampleTemplates } from "../support/moduletemplates.js";
import { workspace } from "../support/workspaces.js";

/** An object to judge both ways, and for an UPDATE the object the cluster held before it. */
export interface Input {
  name: string;
  object: Record<string, unknown>;
  oldObject?: Record<string, unknown>;
}

/** The YAML reading of each client (kubectl apply -f reads YAML 1.1, GitOps tools YAML 1.2). */
const readers: Record<Client, "kubectl" | "gitops"> = { kubectl: "kubectl", gitops: "gitops" };

/**
 * Every object of the corpora this project serves (the Forkspacer operator's Modules and Workspaces,
 * Kyma's ModuleTemplates and ModuleReleaseMetas), read as `client` reads the files; objects of other
 * kinds in those files are skipped (counted by the caller), addon-operator's ConfigMaps are another test's.
 */
export function corpusInputs(kinds: OfflineKind[], client: Client): Input[] {
  const dirs = [corpusPath("forkspacer", "manifests"), corpusPath("kyma", "moduletemplates")];
  const inputs: Input[] = [];
  for (const dir of dirs) {
    for (const file of readdirSync(dir)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()) {
      const path = join(dir, file);
      let manifests: ReturnType<typeof parseManifests>;
      try {
        manifests = parseManifests(path, readFileSync(path, "utf8"), readers[client]);
      } catch {
        continue; // a file its client cannot read never reaches a server
      }
      manifests.forEach((manifest, i) => {
        if (kindOf(kinds, manifest.object)) inputs.push({ name: `${file}#${i}`, object: manifest.object });
      });
    }
  }
  return inputs;
}

const asRecord = (value: unknown) => structuredClone(value) as Record<string, unknown>;

/**
 * The case tables of the test suite, every kind: the end-to-end admission cases (CREATE and UPDATE
 * Modules, the denial table, the ratcheting cases with their stored invalid old objects), the hostile
 * Modules of issue 15, Workspaces, the spec's ModuleTemplates, ModuleReleaseMetas and a downgrade.
 */
export function caseInputs(): Input[] {
  const inputs: Input[] = [];
  for (const c of admissionCases()) {
    const request = c.review.request;
    if (!request || (request.operation !== "CREATE" && request.operation !== "UPDATE")) continue;
    inputs.push({
      name: `admission case: ${c.name}`,
      object: asRecord(request.object),
      ...(request.oldObject ? { oldObject: asRecord(request.oldObject) } : {}),
    });
  }
  for (const hostile of hostileModules()) {
    inputs.push({
      name: `hostile: ${hostile.name}`,
      object: asRecord(hostile.object),
      ...(hostile.oldObject ? { oldObject: asRecord(hostile.oldObject) } : {}),
    });
  }
  inputs.push({ name: "workspace", object: asRecord(workspace()) });
  inputs.push({ name: "workspace in another namespace", object: asRecord(workspace("ws", "team-a")) });
  inputs.push({ name: "keda ModuleTemplate", object: asRecord(kedaTemplate()) });
  for (const example of specExampleTemplates()) {
    inputs.push({ name: `ModuleTemplate spec example ${example.title}`, object: asRecord(example.template) });
  }
  inputs.push({ name: "keda ModuleReleaseMeta", object: asRecord(kedaReleaseMeta()) });
  inputs.push({
    name: "ModuleReleaseMeta channel downgraded",
    object: asRecord(kedaReleaseMeta({ regular: "1.2.0" })),
    oldObject: asRecord(kedaReleaseMeta({ regular: "1.3.0" })),
  });
  return inputs;
}
