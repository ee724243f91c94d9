import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { dump } from "js-yaml";

/** A modules dir in a fresh temp folder: each key a relative path, each value YAML data or raw text. */
export function writeTree(files: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), "addon-modules-"));
  writeFiles(root, files);
  return root;
}

export function writeFiles(root: string, files: Record<string, unknown>): void {
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, typeof content === "string" ? content : dump(content));
  }
}

/** A ConfigMap as the API server sends it in an AdmissionReview. */
export function configMap(
  data: Record<string, string>,
  name = "addon-operator",
  namespace = "addon-operator",
) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data };
}
