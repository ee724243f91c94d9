import { parseArgs } from "node:util";
import { webhookPath } from "../admission/resource-kind.js";
import { resourceKinds } from "../resources/index.js";
import { ensureCertDir, serviceDnsNames } from "../server/certificates.js";
import { startHttpsServer } from "../server/https-server.js";
import { jsonLogger } from "../server/log.js";

export const serveUsage = `serve   Serve the admission webhooks over HTTPS
          --port N            port to listen on (default 8443)
          --cert-dir DIR      tls.crt, tls.key (and ca.crt); generated when absent (default certs)
          --service NAME      Service name for generated certificates (default module-admission)
          --namespace NS      Service namespace for generated certificates (default module-admission)`;

export async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string", default: "8443" },
      "cert-dir": { type: "string", default: "certs" },
      service: { type: "string", default: "module-admission" },
      namespace: { type: "string", default: "module-admission" },
    },
  });
  const certDir = values["cert-dir"];
  const { created } = await ensureCertDir(certDir, serviceDnsNames(values.service, values.namespace));
  if (created) {
    jsonLogger({
      msg: `no certificate in ${certDir}: generated a CA (ca.crt) and a serving certificate there`,
    });
  }
  const running = await startHttpsServer({
    port: Number(values.port),
    certDir,
    kinds: resourceKinds,
    log: jsonLogger,
  });
  const paths = resourceKinds.flatMap((kind) => [webhookPath(kind, "mutate"), webhookPath(kind, "validate")]);
  jsonLogger({ msg: `serving on https://localhost:${running.port}`, paths });
  const stop = () => void running.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
