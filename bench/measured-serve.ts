import { mkdtempSync, readFileSync } from "node:fs";
import { Agent } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { corpusPath } from "../test/support/corpus.js";
import { startServe } from "../test/support/serve-process.js";

/**
 * The built `serve` as the fuzz and the attacks measure it: every kind served, the addon-operator
 * ConfigMap's with deckhouse's modules, dev certificates in a directory of its own, and a keep-alive
 * agent that trusts them. `command`: the built CLI; `nodeOptions`: the process's Node flags.
 */
export async function startMeasuredServe(command: string, nodeOptions: string[]) {
  const certDir = mkdtempSync(join(tmpdir(), "module-admission-measured-"));
  const serve = await startServe(
    [
      "--port",
      "0",
      "--cert-dir",
      certDir,
      "--metrics-port",
      "0",
      "--modules-dir",
      corpusPath("addon-operator/deckhouse-v1.43.1/modules"),
      "--addon-configmap",
      "d8-system/deckhouse",
    ],
    1,
    command,
    nodeOptions,
  );
  const agent = new Agent({ ca: readFileSync(join(certDir, "ca.crt")), keepAlive: true });
  return { serve, agent };
}
