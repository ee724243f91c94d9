import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import { eventually } from "../support/eventually.js";
import { type FakeKubeApi, type KubeObject, startFakeKubeApi } from "../support/fake-kube-api.js";
import { customModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";
import { workspaceCrd } from "../support/workspaces.js";

const name = "module-admission";

function webhookConfiguration(kind: string): KubeObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind,
    metadata: { name },
    webhooks: [
      { name: "modules.batch.forkspacer.com", clientConfig: { service: { name, namespace: name } } },
    ],
  };
}

/** The `module-admission serve` process itself, pointed at the fake API server with a kubeconfig. */
describe("module-admission serve --self-signed-secret with a kubeconfig (process, fake API server)", () => {
  let api: FakeKubeApi;
  let child: ChildProcess;
  let port: number;
  const logs: Record<string, unknown>[] = [];
  const decode = (base64: string) => Buffer.from(base64, "base64").toString("utf8");
  const ca = () => decode(api.get("v1", "Secret", name, `${name}-tls`)?.data["ca.crt"]);

  const send = (method: string, path: string, body?: unknown) =>
    new Promise<{ status: number; json: KubeObject }>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          method,
          path,
          ca: ca(),
          servername: "localhost",
          headers: { "content-type": "application/json" },
        },
        (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => {
            text += chunk.toString("utf8");
          });
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, json: text.startsWith("{") ? JSON.parse(text) : {} }),
          );
        },
      );
      req.on("error", reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });

  before(async () => {
    api = await startFakeKubeApi();
    api.put(workspaceCrd);
    api.put(webhookConfiguration("MutatingWebhookConfiguration"));
    api.put(webhookConfiguration("ValidatingWebhookConfiguration"));
    const certDir = mkdtempSync(join(tmpdir(), "serve-process-"));
    // Both ports chosen by the system: a fixed one (metrics default to 8080) may be another process's.
    const args = ["--import", "tsx", "src/cli/main.ts", "serve", "--port", "0", "--metrics-port", "0"];
    args.push("--cert-dir", certDir);
    args.push("--kubeconfig", api.kubeconfigPath, "--self-signed-secret", `${name}/${name}-tls`);
    args.push("--webhook-configuration", name);
    child = spawn(process.execPath, args, {
      cwd: new URL("../..", import.meta.url),
      env: { PATH: process.env.PATH, HOME: mkdtempSync(join(tmpdir(), "home-")) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    port = await new Promise<number>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
      lines.on("line", (line) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        const serving = /^serving on https:\/\/localhost:(\d+)$/.exec(String(entry.msg));
        if (serving) resolve(Number(serving[1]));
      });
    });
  });
  after(async () => {
    // A serve that already exited (it failed to start) sends no second exit event to wait for.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    await api.close();
  });

  it("issued its certificate into the Secret and the CA into both webhook configurations before serving", () => {
    assert.ok(
      logs.some((l) =>
        String(l.msg).startsWith(
          `issued a self-signed CA and serving certificate into Secret ${name}/${name}-tls`,
        ),
      ),
    );
    for (const kind of ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]) {
      const configuration = api.get("admissionregistration.k8s.io/v1", kind, undefined, name);
      assert.equal(decode(configuration?.webhooks[0].clientConfig.caBundle), ca(), kind);
    }
  });

  it("gets ready once the Workspace cache synced, and denies a Module whose Workspace is missing", async () => {
    await eventually("readyz answers 200", async () => (await send("GET", "/readyz")).status === 200);
    const reply = await send(
      "POST",
      "/validate-batch-forkspacer-com-v1-module",
      admissionReview({ operation: "CREATE", object: customModule() }),
    );
    assert.equal(reply.json.response.allowed, false);
    assert.match(
      reply.json.response.status.message,
      /spec\.workspace: Not found: "default\/dev-environment"$/,
    );
  });
});
