import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A kubeconfig file for a test's own API server on loopback (its CA; a client certificate, else a bearer
 * token), as `audit`, kubectl and the client library read one: the control plane's, or a hostile one's.
 */
export function writeKubeconfig(server: {
  url: string;
  caCert: string;
  token?: string;
  clientCert?: string;
  clientKey?: string;
}): string {
  const user =
    server.clientCert && server.clientKey
      ? {
          "client-certificate-data": Buffer.from(server.clientCert).toString("base64"),
          "client-key-data": Buffer.from(server.clientKey).toString("base64"),
        }
      : { token: server.token ?? "t" };
  const path = join(mkdtempSync(join(tmpdir(), "kubeconfig-")), "kubeconfig");
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "test",
          cluster: {
            server: server.url,
            "certificate-authority-data": Buffer.from(server.caCert).toString("base64"),
            "tls-server-name": "localhost",
          },
        },
      ],
      users: [{ name: "test", user }],
      contexts: [{ name: "test", context: { cluster: "test", user: "test" } }],
      "current-context": "test",
    }),
  );
  return path;
}
