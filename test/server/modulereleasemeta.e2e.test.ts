import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { AdmissionResponse } from "../../src/admission/review.js";
import { type ClusterFeatures, prepareClusterFeatures } from "../../src/cli/serve-cluster.js";
import { serviceDnsNames } from "../../src/server/certificates.js";
import { eventually } from "../support/eventually.js";
import { type FakeKubeApi, startFakeKubeApi } from "../support/fake-kube-api.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import {
  kedaReleaseMeta,
  moduleTemplateCrd,
  namedTemplate,
  type ReleaseMetaWithSpec,
  releaseMetaReview,
} from "../support/modulereleasemetas.js";

const validatePath = "/validate-operator-kyma-project-io-v1beta2-modulereleasemeta";

async function review(
  server: LiveServer,
  object: ReleaseMetaWithSpec,
  oldObject?: ReleaseMetaWithSpec,
): Promise<AdmissionResponse> {
  const operation = oldObject ? "UPDATE" : "CREATE";
  const reply = await server.post(validatePath, releaseMetaReview({ operation, object, oldObject }));
  assert.equal(reply.status, 200, reply.text);
  return reply.json.response;
}

/** The causes as kubectl prints them: `field: message (rule id)`. */
const causes = (response: AdmissionResponse) =>
  (response.status?.details?.causes ?? []).map((cause) => `${cause.field}: ${cause.message}`);

describe("ModuleReleaseMeta webhook over HTTPS, without a cluster", () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  it("admits a release meta on CREATE (no cluster: template existence is not checked)", async () => {
    const response = await review(server, kedaReleaseMeta());
    assert.equal(response.allowed, true, JSON.stringify(response.status));
    assert.deepEqual(response.warnings ?? [], []);
  });

  it("warns when the release meta is not named after its module", async () => {
    const meta = kedaReleaseMeta();
    meta.metadata = { name: "keda-meta", namespace: "kcp-system" };
    const response = await review(server, meta);
    assert.equal(response.allowed, true);
    assert.deepEqual(response.warnings, [
      'metadata.name "keda-meta" is not spec.moduleName "keda": lifecycle-manager looks it up by the module\'s name',
    ]);
  });

  it("denies a channel moved to a lower major.minor.patch on UPDATE, naming the channel", async () => {
    const response = await review(
      server,
      kedaReleaseMeta({ regular: "1.1.9" }),
      kedaReleaseMeta({ regular: "1.2.0" }),
    );
    assert.equal(response.allowed, false);
    assert.equal(response.status?.code, 422);
    assert.match(
      response.status?.message ?? "",
      /^ModuleReleaseMeta\.operator\.kyma-project\.io "keda" is invalid: /,
    );
    assert.deepEqual(causes(response), [
      'spec.channels[0].version: Invalid value: "1.1.9": may not decrease (channel "regular" was "1.2.0"): lifecycle-manager does not downgrade installed modules (rule modulereleasemeta.channel-downgrade)',
    ]);
  });

  it("warns of a pre-release change, admits a raise and a metadata-only update", async () => {
    const rc = await review(
      server,
      kedaReleaseMeta({ regular: "1.2.0-rc2" }),
      kedaReleaseMeta({ regular: "1.2.0" }),
    );
    assert.equal(rc.allowed, true);
    assert.deepEqual(rc.warnings, [
      "spec.channels[0].version: 1.2.0 -> 1.2.0-rc2: lifecycle-manager ignores pre-releases, so clusters take it either way",
    ]);
    const raised = await review(
      server,
      kedaReleaseMeta({ regular: "1.3.0" }),
      kedaReleaseMeta({ regular: "1.2.0" }),
    );
    assert.equal(raised.allowed, true);
    const finalized = kedaReleaseMeta();
    finalized.metadata = { ...finalized.metadata, finalizers: ["operator.kyma-project.io/mrm-finalizer"] };
    assert.equal((await review(server, finalized, kedaReleaseMeta())).allowed, true);
  });

  it("denies what Kyma's CRD denies: a channel or version off its pattern, no moduleName", async () => {
    const meta = kedaReleaseMeta({ Regular: "v1" });
    meta.spec.moduleName = undefined as unknown as string;
    const response = await review(server, meta);
    assert.equal(response.allowed, false);
    assert.deepEqual((response.status?.details?.causes ?? []).map((cause) => cause.field).sort(), [
      "spec.channels[0].channel",
      "spec.channels[0].version",
      "spec.moduleName",
    ]);
  });
});

describe("ModuleReleaseMeta webhook with a cluster: each channel's ModuleTemplate (fake API server)", () => {
  let api: FakeKubeApi;
  let cluster: ClusterFeatures;
  let server: LiveServer;

  before(async () => {
    api = await startFakeKubeApi();
    api.put(moduleTemplateCrd());
    api.put(namedTemplate("keda-1.2.0"));
    const certDir = mkdtempSync(join(tmpdir(), "mrm-cluster-"));
    cluster = await prepareClusterFeatures({
      kubeconfig: api.kubeconfigPath,
      workspaceCheck: "off",
      certDir,
      dnsNames: serviceDnsNames("module-admission", "module-admission"),
      log: () => {},
    });
    server = await startLiveServer(undefined, {
      lookups: cluster.lookups,
      isReady: cluster.isReady,
      certDir,
    });
    await eventually("readyz answers 200", async () => (await server.get("/readyz")).status === 200);
  });
  after(async () => {
    await server.close();
    await cluster.stop();
    await api.close();
  });

  it("denies a channel whose <moduleName>-<version> template does not exist, in the meta's namespace", async () => {
    const response = await review(server, kedaReleaseMeta());
    assert.equal(response.allowed, false);
    assert.deepEqual(causes(response), [
      'spec.channels[1].version: Not found: "kcp-system/keda-1.3.0": no such ModuleTemplate (<moduleName>-<version>): lifecycle-manager cannot install this version (rule modulereleasemeta.template-exists)',
    ]);
  });

  it("admits it once the watch delivers the template, with no API call per review", async () => {
    api.put(namedTemplate("keda-1.3.0"));
    await eventually("admitted", async () => (await review(server, kedaReleaseMeta())).allowed === true);
    const callsBefore = api.requests.length;
    for (let i = 0; i < 10; i++) assert.equal((await review(server, kedaReleaseMeta())).allowed, true);
    assert.equal(api.requests.length, callsBefore);
  });

  it("on UPDATE checks only what the update assigns: a template deleted since does not block other changes", async () => {
    api.remove("operator.kyma-project.io/v1beta2", "ModuleTemplate", "kcp-system", "keda-1.3.0");
    await eventually(
      "the delete arrived",
      async () => (await review(server, kedaReleaseMeta())).allowed === false,
    );
    const stored = kedaReleaseMeta();
    const finalized = kedaReleaseMeta();
    finalized.metadata = { ...finalized.metadata, finalizers: ["operator.kyma-project.io/mrm-finalizer"] };
    assert.equal((await review(server, finalized, stored)).allowed, true);
    const moved = kedaReleaseMeta({ regular: "1.4.0", fast: "1.3.0" });
    assert.deepEqual(causes(await review(server, moved, stored)), [
      'spec.channels[0].version: Not found: "kcp-system/keda-1.4.0": no such ModuleTemplate (<moduleName>-<version>): lifecycle-manager cannot install this version (rule modulereleasemeta.template-exists)',
    ]);
  });
});

describe("serve --moduletemplate-check", () => {
  const options = (moduleTemplateCheck: string, kubeconfig: string) => ({
    kubeconfig,
    workspaceCheck: "off",
    moduleTemplateCheck,
    certDir: mkdtempSync(join(tmpdir(), "mrm-flag-")),
    dnsNames: serviceDnsNames("module-admission", "module-admission"),
    log: () => {},
  });

  it("off: no ModuleTemplate cache, no template check, no API call", async () => {
    const api = await startFakeKubeApi();
    api.put(moduleTemplateCrd());
    const cluster = await prepareClusterFeatures(options("off", api.kubeconfigPath));
    const server = await startLiveServer(undefined, { lookups: cluster.lookups, isReady: cluster.isReady });
    try {
      assert.equal((await review(server, kedaReleaseMeta())).allowed, true);
      assert.deepEqual(
        api.requests.filter((r) => r.path.includes("moduletemplates")),
        [],
      );
    } finally {
      await server.close();
      await cluster.stop();
      await api.close();
    }
  });

  it("refuses a value other than auto or off", async () => {
    await assert.rejects(
      prepareClusterFeatures(options("on", "/nonexistent")),
      /--moduletemplate-check must be one of auto, off, got "on"/,
    );
  });
});
