import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { splitPemBundle } from "../../src/kube/pem.js";
import {
  type SelfSignedOptions,
  startSelfSignedCertificates,
} from "../../src/kube/self-signed-certificates.js";
import { serviceDnsNames } from "../../src/server/certificates.js";
import { eventually } from "../support/eventually.js";
import { type FakeKubeApi, type KubeObject, startFakeKubeApi } from "../support/fake-kube-api.js";

const name = "module-admission";
const secretPath = "/api/v1/namespaces/module-admission/secrets";

function webhookConfiguration(kind: string): KubeObject {
  const webhook = (suffix: string) => ({
    name: `${suffix}.modules.batch.forkspacer.com`,
    clientConfig: { service: { name, namespace: name, path: `/${suffix}-batch-forkspacer-com-v1-module` } },
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
  });
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind,
    metadata: { name },
    webhooks: [webhook(kind.startsWith("Mutating") ? "mutate" : "validate"), webhook("other")],
  };
}

const decode = (base64: string) => Buffer.from(base64, "base64").toString("utf8");

describe("selfSigned certificates (against a fake API server)", () => {
  let api: FakeKubeApi;
  let logs: Record<string, unknown>[];
  let clock: number;
  const stops: (() => void)[] = [];
  const replica = async (overrides: Partial<SelfSignedOptions> = {}) => {
    const certDir = mkdtempSync(join(tmpdir(), "self-signed-"));
    const certificates = await startSelfSignedCertificates({
      kubeConfig: api.kubeConfig(),
      secret: { namespace: name, name: `${name}-tls` },
      webhookConfiguration: name,
      certDir,
      dnsNames: serviceDnsNames(name, name),
      log: (fields) => logs.push(fields),
      now: () => clock,
      ...overrides,
    });
    stops.push(certificates.stop);
    const file = (file: string) => readFileSync(join(certDir, file), "utf8");
    return { certificates, certDir, file };
  };
  const secret = () => api.get("v1", "Secret", name, `${name}-tls`);
  const caBundles = () =>
    ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"].flatMap((kind) =>
      (
        (api.get("admissionregistration.k8s.io/v1", kind, undefined, name)?.webhooks ?? []) as KubeObject[]
      ).map((w) => decode(w.clientConfig.caBundle ?? "")),
    );

  beforeEach(async () => {
    api = await startFakeKubeApi();
    logs = [];
    clock = Date.now();
    api.put(webhookConfiguration("MutatingWebhookConfiguration"));
    api.put(webhookConfiguration("ValidatingWebhookConfiguration"));
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) stop();
    await api.close();
  });

  it("issues into a new Secret, writes the files, injects the CA into every webhook", async () => {
    const { file } = await replica();
    const stored = secret();
    assert.equal(stored?.type, "kubernetes.io/tls");
    assert.equal(decode(stored?.data["tls.crt"]), file("tls.crt"));
    assert.equal(decode(stored?.data["tls.key"]), file("tls.key"));
    assert.equal(decode(stored?.data["ca.crt"]), file("ca.crt"));
    const ca = new X509Certificate(file("ca.crt"));
    const serving = new X509Certificate(file("tls.crt"));
    assert.ok(serving.verify(ca.publicKey), "the serving certificate is signed by the stored CA");
    assert.match(serving.subjectAltName ?? "", /DNS:module-admission\.module-admission\.svc/);
    assert.deepEqual(caBundles(), [file("ca.crt"), file("ca.crt"), file("ca.crt"), file("ca.crt")]);
  });

  it("leaves a usable Secret and injected webhooks alone", async () => {
    const first = await replica();
    const writes = () => api.requests.filter((r) => r.method !== "GET").length;
    const before = writes();
    const second = await replica();
    assert.equal(second.file("tls.crt"), first.file("tls.crt"));
    assert.deepEqual(await second.certificates.refresh(), { filesChanged: false, issued: false });
    assert.equal(writes(), before, "no writes when everything is current");
  });

  it("two replicas starting together end with one CA (create races: the loser adopts the winner's)", async () => {
    // Both read the Secret before either writes: the race the API server's 409 settles.
    const reads = api.hold((r) => r.method === "GET" && r.path === `${secretPath}/${name}-tls`);
    const starting = Promise.all([replica(), replica()]);
    await eventually("both replicas read the Secret", () => reads.held() === 2);
    reads.release();
    const [a, b] = await starting;
    const stored = decode(secret()?.data["ca.crt"]);
    assert.equal(a.file("ca.crt"), stored);
    assert.equal(b.file("ca.crt"), stored);
    assert.equal(a.file("tls.crt"), b.file("tls.crt"));
    assert.equal(splitPemBundle(stored).length, 1);
    assert.deepEqual(new Set(caBundles()), new Set([stored]));
    const issued = logs.filter((l) => String(l.msg).startsWith("issued"));
    assert.equal(issued.length, 1, "only one replica wrote the Secret");
    const creates = api.requests.filter((r) => r.method === "POST" && r.path === secretPath);
    assert.deepEqual(creates.map((r) => r.status).sort(), [201, 409], "both created, one lost and adopted");
  });

  it("two replicas filling a pre-created empty Secret together end with one CA (update conflicts)", async () => {
    api.put({
      apiVersion: "v1",
      kind: "Secret",
      type: "kubernetes.io/tls",
      metadata: { name: `${name}-tls`, namespace: name },
      data: {},
    });
    const reads = api.hold((r) => r.method === "GET" && r.path === `${secretPath}/${name}-tls`);
    const starting = Promise.all([replica(), replica()]);
    await eventually("both replicas read the Secret", () => reads.held() === 2);
    reads.release();
    const [a, b] = await starting;
    assert.equal(a?.file("ca.crt"), b?.file("ca.crt"));
    assert.equal(a?.file("ca.crt"), decode(secret()?.data["ca.crt"]));
    assert.equal(logs.filter((l) => String(l.msg).startsWith("issued")).length, 1);
    const puts = api.requests.filter((r) => r.method === "PUT" && r.path === `${secretPath}/${name}-tls`);
    assert.deepEqual(puts.map((r) => r.status).sort(), [200, 409], "both updated, one lost and adopted");
  });

  it("renews when a third of a short validity is left, keeping the old CA trusted; the other replica follows", async () => {
    const validityDays = 0.01; // 14.4 minutes, backdated by one: renewal is due about 8.6 minutes in
    let reloaded = 0;
    const leader = await replica({ validityDays, onChange: () => reloaded++ });
    const follower = await replica({ validityDays });
    const oldCa = leader.file("ca.crt");
    const oldCert = leader.file("tls.crt");
    reloaded = 0;
    clock += 5 * 60_000;
    assert.deepEqual(await leader.certificates.refresh(), { filesChanged: false, issued: false });
    clock += 4 * 60_000;
    assert.deepEqual(await leader.certificates.refresh(), { filesChanged: true, issued: true });
    assert.equal(reloaded, 1);
    assert.notEqual(leader.file("tls.crt"), oldCert);
    const bundle = splitPemBundle(leader.file("ca.crt"));
    assert.equal(bundle.length, 2);
    assert.equal(bundle[1], oldCa.trim(), "the previous CA stays in the bundle");
    const [newCa] = bundle;
    assert.ok(new X509Certificate(leader.file("tls.crt")).verify(new X509Certificate(newCa ?? "").publicKey));
    for (const caBundle of caBundles()) assert.deepEqual(splitPemBundle(caBundle), bundle);
    assert.equal(
      follower.file("tls.crt"),
      oldCert,
      "the follower still serves the old certificate, trusted via the old CA",
    );
    clock = Date.now(); // the renewed certificate was issued on the real clock: read it there
    assert.deepEqual(await follower.certificates.refresh(), { filesChanged: true, issued: false });
    assert.equal(follower.file("tls.crt"), leader.file("tls.crt"));
  });

  it("renews on its own, from its periodic check, and hands the server the new files", async () => {
    let reloaded = 0;
    const running = await replica({ validityDays: 0.01, checkIntervalMs: 20, onChange: () => reloaded++ });
    const first = running.file("tls.crt");
    reloaded = 0;
    clock += 10 * 60_000;
    await eventually("the timer renewed the certificate", () => reloaded > 0);
    running.certificates.stop();
    clock = Date.now(); // the renewed certificate was issued on the real clock: read it there
    await running.certificates.refresh(); // after any refresh still under way
    assert.notEqual(running.file("tls.crt"), first);
    assert.equal(running.file("tls.crt"), decode(secret()?.data["tls.crt"]));
  });

  it("fails start-up in the API server's words when it may not read the Secret", async () => {
    const forbidden = `secrets "${name}-tls" is forbidden: User "system:serviceaccount:x:y" cannot get resource "secrets"`;
    api.refuse((r) => r.path.startsWith(secretPath), 403, "Forbidden", forbidden);
    await assert.rejects(replica(), {
      message: `selfSigned certificates in Secret ${name}/${name}-tls: ${forbidden} (HTTP 403)`,
    });
  });

  it("reissues when the certificate does not cover the service's DNS names", async () => {
    await replica({ dnsNames: serviceDnsNames("old-name", name) });
    const before = decode(secret()?.data["tls.crt"]);
    const renamed = await replica();
    assert.notEqual(renamed.file("tls.crt"), before);
    assert.match(
      new X509Certificate(renamed.file("tls.crt")).subjectAltName ?? "",
      /DNS:module-admission\.module-admission\.svc/,
    );
  });
});
