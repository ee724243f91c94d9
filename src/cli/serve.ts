import { parseArgs } from "node:util";
import { webhookPath } from "../admission/resource-kind.js";
import { addonOperatorKinds } from "../resources/addon-operator-configmap/index.js";
import { serviceDnsNames } from "../server/certificates.js";
import { startHttpsServer } from "../server/https-server.js";
import { jsonLogger } from "../server/log.js";
import { prepareClusterFeatures } from "./serve-cluster.js";

export const serveUsage = `serve   Serve the admission webhooks over HTTPS
          --port N            port to listen on (default 8443)
          --cert-dir DIR      tls.crt, tls.key (and ca.crt); generated when absent (default certs)
          --service NAME      Service name for generated certificates (default module-admission)
          --namespace NS      Service namespace for generated certificates (default module-admission)
          --modules-dir DIR   addon-operator modules: serve /validate-addon-operator-configmap
          --global-hooks-dir DIR  addon-operator global hooks (openapi/ holds the global schema)
          --addon-configmap NS/NAME  the ConfigMap addon-operator reads (default addon-operator/addon-operator)
          --kubeconfig FILE   cluster access (default $KUBECONFIG, ~/.kube/config, then in-cluster)
          --workspace-check auto|off
                              deny Modules whose spec.workspace does not exist; auto: when there is
                              cluster access (default auto)
          --self-signed-secret NS/NAME
                              keep a self-signed CA and serving certificate in this kubernetes.io/tls
                              Secret: issued when empty or expiring, written to --cert-dir, renewed
          --webhook-configuration NAME
                              with --self-signed-secret: inject the CA into the caBundle of the
                              Mutating- and ValidatingWebhookConfiguration of this name`;

export async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string", default: "8443" },
      "cert-dir": { type: "string", default: "certs" },
      service: { type: "string", default: "module-admission" },
      namespace: { type: "string", default: "module-admission" },
      "modules-dir": { type: "string" },
      "global-hooks-dir": { type: "string" },
      "addon-configmap": { type: "string", default: "addon-operator/addon-operator" },
      kubeconfig: { type: "string" },
      "workspace-check": { type: "string", default: "auto" },
      "self-signed-secret": { type: "string" },
      "webhook-configuration": { type: "string" },
    },
  });
  const certDir = values["cert-dir"];
  const cluster = await prepareClusterFeatures({
    kubeconfig: values.kubeconfig,
    workspaceCheck: values["workspace-check"],
    selfSignedSecret: values["self-signed-secret"],
    webhookConfiguration: values["webhook-configuration"],
    certDir,
    dnsNames: serviceDnsNames(values.service, values.namespace),
    log: jsonLogger,
  });
  const kinds = [...cluster.kinds, ...addonOperatorKinds(values)];
  const running = await startHttpsServer({
    port: Number(values.port),
    certDir,
    kinds,
    log: jsonLogger,
    isReady: cluster.isReady,
  });
  cluster.attach(running.server);
  const paths = kinds.flatMap((kind) => [webhookPath(kind, "mutate"), webhookPath(kind, "validate")]);
  jsonLogger({ msg: `serving on https://localhost:${running.port}`, paths });
  const stop = () => void Promise.all([cluster.stop(), running.close()]).then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
