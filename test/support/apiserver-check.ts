import { spawn } from "node:child_process";
import { apiServerCheckTool, ensureBuilt, goBinary, goVersion } from "./go-tools.js";

/**
 * kube-apiserver's own validation of objects this project generates, run without a server by
 * test/control-plane/apiserver-check (Go, built from the control plane's module, the same Kubernetes version):
 * CustomResourceDefinitions (structural schema, CEL compilation, type check and cost estimate against
 * the server's limits) and ValidatingAdmissionPolicies (CEL compilation and type check).
 */
export interface ApiServerVerdict {
  kind: string;
  name: string;
  /** The server's field errors, empty when it would accept the object. */
  errors: { type: string; field: string; detail: string; message: string }[];
  /** What the API server answers a create of it with (kubectl prints it); absent when valid. */
  message?: string;
  /** Set when a document is not an object the check knows. */
  problem?: string;
}

/** Why the check cannot run here (one line), or null. */
export function apiServerCheckUnavailable(): string | null {
  return goVersion() === null ? "go not found on PATH" : null;
}

/**
 * The API server's verdict on each object (YAML or JSON documents, or objects), in order. Builds the
 * checker first where it is not built yet (progress to `log`).
 */
export async function apiServerCheck(
  objects: (object | string)[],
  log: (line: string) => void = (line) => console.error(line),
): Promise<ApiServerVerdict[]> {
  await ensureBuilt(apiServerCheckTool, log);
  const input = objects
    .map((object) => (typeof object === "string" ? object : JSON.stringify(object)))
    .join("\n---\n");
  return new Promise((resolve, reject) => {
    const child = spawn(goBinary(apiServerCheckTool, "apiserver-check"), [], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`apiserver-check exited ${code}: ${stderr.trim()}`));
      else resolve(JSON.parse(stdout) as ApiServerVerdict[]);
    });
    child.stdin.end(input);
  });
}
