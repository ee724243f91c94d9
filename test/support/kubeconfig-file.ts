import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A kubeconfig file for a test's own API server on loopback (its CA, a bearer token), as `audit` and
 * the client library read one: the fake API server's, or a hostile one's.
 */
export function writeKubeconfig(server: { url: string; caCert: string; token?: string }): string {
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
      users: [{ name: "test", user: { token: server.token ?? "t" } }],
      contexts: [{ name: "test", context: { cluster: "test", user: "test" } }],
      "current-context": "test",
    }),
  );
  return path;
}
