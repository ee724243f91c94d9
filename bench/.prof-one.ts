import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { ensureCertDir } from "../src/server/certificates.js";
import * as requests from "./requests.js";
import { startServer } from "./servers.js";

const [which, count, dir] = process.argv.slice(2);
const paths: Record<string, [string, string]> = {
  floor: ["/validate-batch-forkspacer-com-v1-module", requests.validateBody],
  validate: ["/validate-batch-forkspacer-com-v1-module", requests.validateBody],
  mutate: ["/mutate-batch-forkspacer-com-v1-module", requests.mutateBody],
  update: ["/validate-batch-forkspacer-com-v1-module", requests.updateBody],
  moduletemplate: ["/validate-operator-kyma-project-io-v1beta2-moduletemplate", requests.moduleTemplateBody],
  configmap: ["/validate-addon-operator-configmap", requests.configMapBody],
};
const certDir = mkdtempSync(join(tmpdir(), "prof-"));
await ensureCertDir(certDir, ["localhost"]);
const ca = readFileSync(join(certDir, "ca.crt"), "utf8");
const profArgs = ["--cpu-prof", "--cpu-prof-interval", "100", "--cpu-prof-dir", dir as string];
const server = which === "floor" ? await startServer("floor", ca, "bench/servers/floor.ts", [certDir, "$PORT"], profArgs) : await startServer(
  "ma",
  ca,
  "bench/serve-module-admission.ts",
  [
    "--port",
    "$PORT",
    "--cert-dir",
    certDir,
    "--metrics-port",
    "0",
    "--drain-seconds",
    "0",
    "--modules-dir",
    join(requests.deckhouseDir, "modules"),
    "--global-hooks-dir",
    join(requests.deckhouseDir, "global-hooks"),
  ],
  ["--cpu-prof", "--cpu-prof-interval", "100", "--cpu-prof-dir", dir as string],
);
const [path, body] = paths[which as string] as [string, string];
await autocannon({
  url: `https://127.0.0.1:${server.port}${path}`,
  method: "POST",
  headers: { "content-type": "application/json" },
  body,
  connections: 10,
  amount: Number(count),
});
await server.stop();
