import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { load as loadYaml } from "js-yaml";
import { installCrds } from "../../src/cli/install-crds.js";
import { type FakeKubeApi, type KubeObject, startFakeKubeApi } from "../support/fake-kube-api.js";

const crdsDir = new URL("../../charts/module-admission/files/crds/", import.meta.url);
// What install-crds applies by default: every generated CRD but the optional ones (Kyma's).
const chartCrds = readdirSync(crdsDir)
  .filter((file) => !file.endsWith(".operator.kyma-project.io.yaml"))
  .map((file) => readFileSync(new URL(file, crdsDir), "utf8"));
const moduleCrd = "modules.batch.forkspacer.com";
const crdApi = "apiextensions.k8s.io/v1";
const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${moduleCrd}`;

describe("install-crds (against a fake API server)", () => {
  let api: FakeKubeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });
  const run = async (
    args: string[],
    env: NodeJS.ProcessEnv = { HOME: mkdtempSync(join(tmpdir(), "home-")) },
  ) => {
    let out = "";
    await installCrds(args, { out: (text) => (out += text), env, pollMs: 5 });
    return out;
  };

  it("--dry-run prints the generated CRDs and talks to no cluster", async () => {
    const out = await run(["--dry-run"]);
    const withoutHeaders = chartCrds.map((file) => file.replace(/^#.*\n/, ""));
    assert.equal(out, withoutHeaders.join("---\n"));
  });

  it("applies server-side as module-admission and waits until Established", async () => {
    api = await startFakeKubeApi({ establishAfterReads: 2 });
    const out = await run(["--kubeconfig", api.kubeconfigPath]);
    assert.match(out, /modules\.batch\.forkspacer\.com serverside-applied\n/);
    assert.match(out, /modules\.batch\.forkspacer\.com condition met \(Established\)\n/);
    assert.match(out, /workspaces\.batch\.forkspacer\.com condition met \(Established\)\n$/);
    const [apply] = api.requests.filter((r) => r.method === "PATCH");
    assert.equal(apply?.path, crdPath);
    assert.equal(apply?.contentType, "application/apply-patch+yaml");
    assert.equal(apply?.query.get("fieldManager"), "module-admission");
    assert.equal(apply?.query.get("force"), null);
    const reads = api.requests.filter((r) => r.method === "GET" && r.path === crdPath);
    assert.equal(reads.length, 3, "read until the API server said Established");
    const stored = api.get(crdApi, "CustomResourceDefinition", undefined, moduleCrd) as KubeObject;
    const generated = loadYaml(
      chartCrds.find((file) => file.includes(`name: ${moduleCrd}`)) ?? "",
    ) as KubeObject;
    assert.deepEqual(stored.spec, generated.spec);
    assert.equal(stored.metadata.managedFields[0].manager, "module-admission");
  });

  it("is idempotent: applying again changes nothing", async () => {
    api = await startFakeKubeApi();
    await run(["--kubeconfig", api.kubeconfigPath]);
    const version = api.get(crdApi, "CustomResourceDefinition", undefined, moduleCrd)?.metadata
      .resourceVersion;
    await run(["--kubeconfig", api.kubeconfigPath]);
    assert.equal(
      api.get(crdApi, "CustomResourceDefinition", undefined, moduleCrd)?.metadata.resourceVersion,
      version,
    );
  });

  it("stops at a conflict with another field manager unless --force-conflicts", async () => {
    api = await startFakeKubeApi();
    const generated = loadYaml(chartCrds[0] ?? "") as KubeObject;
    const helmOwned = structuredClone(generated);
    helmOwned.spec.versions[0].additionalPrinterColumns = [];
    helmOwned.metadata.managedFields = [{ manager: "helm", operation: "Update", fieldsType: "FieldsV1" }];
    api.put(helmOwned);
    await assert.rejects(
      run(["--kubeconfig", api.kubeconfigPath]),
      /applying CustomResourceDefinition modules\.batch\.forkspacer\.com: Apply failed with 1 conflict: conflict with "helm".*rerun with --force-conflicts/,
    );
    await run(["--kubeconfig", api.kubeconfigPath, "--force-conflicts"]);
    const stored = api.get(crdApi, "CustomResourceDefinition", undefined, moduleCrd) as KubeObject;
    assert.deepEqual(stored.spec, generated.spec);
    const applies = api.requests.filter((r) => r.method === "PATCH");
    assert.deepEqual(
      applies.filter((r) => r.path === crdPath).map((r) => [r.query.get("force"), r.status]),
      [
        [null, 409],
        ["true", 200],
      ],
    );
  });

  it("leaves out optional CRDs (another product ships them) unless --include-optional", async () => {
    const schemasDir = mkdtempSync(join(tmpdir(), "schemas-"));
    const module = readFileSync(new URL("../../schemas/module.yaml", import.meta.url), "utf8");
    writeFileSync(join(schemasDir, "module.yaml"), module);
    const optional = module
      .replace(/^crd:\n/m, "crd:\n  optional: true\n")
      .replace(/group: batch\.forkspacer\.com/, "group: example.com");
    writeFileSync(join(schemasDir, "other.yaml"), optional);
    const names = async (args: string[]) => {
      let out = "";
      await installCrds(["--dry-run", ...args], { out: (text) => (out += text), env: {}, schemasDir });
      return [...out.matchAll(/^ {2}name: (\S+)$/gm)].map((match) => match[1]);
    };
    assert.deepEqual(await names([]), [moduleCrd]);
    assert.deepEqual(await names(["--include-optional"]), [moduleCrd, "modules.example.com"]);
  });

  it("uses $KUBECONFIG like kubectl", async () => {
    api = await startFakeKubeApi();
    await run([], { KUBECONFIG: api.kubeconfigPath, HOME: mkdtempSync(join(tmpdir(), "home-")) });
    assert.ok(api.get(crdApi, "CustomResourceDefinition", undefined, moduleCrd));
  });

  it("fails clearly without cluster access, on a bad --timeout, and when the CRD never becomes Established", async () => {
    await assert.rejects(run([]), /install-crds needs cluster access: no kubeconfig and not in a cluster/);
    await assert.rejects(
      run(["--timeout", "soon"]),
      /--timeout must be a positive number of seconds, got "soon"/,
    );
    api = await startFakeKubeApi({ establishAfterReads: Number.POSITIVE_INFINITY });
    await assert.rejects(
      run(["--kubeconfig", api.kubeconfigPath, "--timeout", "0.05"]),
      /CustomResourceDefinition modules\.batch\.forkspacer\.com not Established after 0\.05s: Installing/,
    );
  });
});
