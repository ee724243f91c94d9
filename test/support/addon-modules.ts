import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { dump } from "js-yaml";
import type { LiveServer } from "./live-server.js";
import { admissionReview } from "./reviews.js";

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

/** Posts ConfigMap/addon-operator with `data` (and `oldData`: an UPDATE) to the live webhook. */
export async function reviewConfigMap(
  server: LiveServer,
  data: Record<string, string>,
  oldData?: Record<string, string>,
): Promise<{
  allowed: boolean;
  code?: number;
  message: string;
  causes: ConfigMapCause[];
  warnings: string[];
}> {
  const body = admissionReview({
    operation: oldData ? "UPDATE" : "CREATE",
    object: configMap(data),
    oldObject: oldData ? configMap(oldData) : undefined,
    group: "",
    kind: "ConfigMap",
    resource: "configmaps",
  });
  const reply = await server.post("/validate-addon-operator-configmap", body);
  if (reply.status !== 200) throw new Error(`HTTP ${reply.status}: ${reply.text}`);
  const response = reply.json.response;
  return {
    allowed: response.allowed,
    code: response.status?.code,
    message: response.status?.message ?? "",
    causes: response.status?.details?.causes ?? [],
    warnings: response.warnings ?? [],
  };
}

export interface ConfigMapCause {
  reason: string;
  field: string;
  message: string;
}
