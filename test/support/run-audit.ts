import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAudit } from "../../src/cli/audit.js";

/** `audit` in process against a kubeconfig, with what it wrote and its exit status; HOME is empty. */
export async function auditCapturing(
  kubeconfigPath: string,
  args: string[],
): Promise<{ status: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const status = await runAudit(["--kubeconfig", kubeconfigPath, ...args], {
    out: (text) => (out += text),
    err: (text) => (err += text),
    env: { HOME: mkdtempSync(join(tmpdir(), "home-")) },
  });
  return { status, out, err };
}
