import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadAll } from "js-yaml";
import { installCrds } from "../../src/cli/install-crds.js";
import { kubectlApply } from "../support/chart-webhooks.js";
import { type ControlPlane, useControlPlane } from "../support/control-plane.js";
import { corpusPath, withoutCorpus } from "../support/corpus.js";
import { withoutGo } from "../support/go-tools.js";

type Anything = any;

/** Every object of the YAML files in a corpus folder (files sorted, documents in order). */
function corpusObjects(...folder: string[]): { file: string; object: Anything }[] {
  const dir = corpusPath(...folder);
  return readdirSync(dir)
    .filter((file) => file.endsWith(".yaml"))
    .sort()
    .flatMap((file) =>
      (loadAll(readFileSync(join(dir, file), "utf8")) as Anything[])
        .filter((object) => object?.kind)
        .map((object) => ({ file, object })),
    );
}

async function install(cluster: ControlPlane, ...flags: string[]) {
  let out = "";
  await installCrds(["--kubeconfig", cluster.kubeconfigPath, ...flags], {
    out: (text) => (out += text),
    env: { HOME: mkdtempSync(join(tmpdir(), "home-")) },
  });
  return out;
}

/** Applies CRDs as their own product's Helm chart does (server-side, field manager helm), then waits. */
async function installAsHelm(cluster: ControlPlane, crds: Anything[]) {
  await kubectlApply(cluster, crds, ["--server-side", "--field-manager", "helm"]);
  const wait = await cluster.kubectl([
    "wait",
    "--for=condition=Established",
    "--timeout=120s",
    ...crds.map((crd) => `customresourcedefinition/${crd.metadata.name}`),
  ]);
  assert.equal(wait.code, 0, wait.stderr);
}

/**
 * Stores each object in a namespace of its own (the corpus reuses names), as the product's own CRD
 * admits it (no webhook registered): the objects a cluster holds before install-crds. Returns the
 * stored ones; the ones the product's CRD refused are returned apart.
 */
async function store(cluster: ControlPlane, objects: { file: string; object: Anything }[], prefix: string) {
  const stored: { namespace: string; kind: string; name: string }[] = [];
  const refused: string[] = [];
  for (const [index, { file, object }] of objects.entries()) {
    const namespace = `${prefix}-${index}`;
    await cluster.kubectl(["create", "namespace", namespace]);
    const created = await cluster.kubectl(["create", "--namespace", namespace, "-f", "-"], {
      input: JSON.stringify({ ...object, metadata: { ...object.metadata, namespace } }),
    });
    if (created.code === 0) stored.push({ namespace, kind: object.kind, name: object.metadata.name });
    else refused.push(`${file}: ${created.stderr.trim()}`);
  }
  return { stored, refused };
}

/**
 * What a user who upgrades meets: objects stored under an older or another product's CRD stay readable
 * after install-crds replaces the CRD, and controllers can still write to them (a label: ratcheting
 * lets an update through that changes nothing the new schema refuses).
 */
async function assertStillWritable(
  cluster: ControlPlane,
  stored: { namespace: string; kind: string; name: string }[],
): Promise<string[]> {
  const refusedNow: string[] = [];
  for (const { namespace, kind, name } of stored) {
    // Would the new CRD take this object if it came new? (A copy under another name, not stored.)
    const object = JSON.parse(
      (await cluster.kubectl(["get", kind, name, "--namespace", namespace, "-o", "json"])).stdout,
    );
    const copy = { ...object, metadata: { name: `${name}-copy`, namespace } };
    const created = await cluster.kubectl(["create", "--dry-run=server", "-f", "-"], {
      input: JSON.stringify(copy),
    });
    if (created.code !== 0) refusedNow.push(`${kind} ${namespace}/${name}: ${created.stderr.trim()}`);
    const get = await cluster.kubectl(["get", kind, name, "--namespace", namespace, "-o", "name"]);
    assert.equal(get.code, 0, `${kind} ${namespace}/${name} readable: ${get.stderr}`);
    const label = await cluster.kubectl(["label", kind, name, "--namespace", namespace, "upgraded=yes"]);
    assert.equal(label.code, 0, `${kind} ${namespace}/${name} labelled after the upgrade: ${label.stderr}`);
  }
  return refusedNow;
}

describe("the CRDs beside ours, and install-crds over them (real API server)", {
  skip: withoutGo || withoutCorpus,
}, () => {
  const cluster = useControlPlane();

  it("the policy-report CRDs (wgpolicyk8s.io, openreports.io) are Established", async () => {
    const crds = [
      ...corpusObjects("policy-reports", "wgpolicyk8s.io"),
      ...corpusObjects("policy-reports", "openreports.io"),
    ].map(({ object }) => object);
    assert.equal(crds.length, 4);
    await installAsHelm(cluster(), crds);
  });

  it("over the Forkspacer operator's CRDs and the Modules stored under them: conflict named, then taken over, every object still readable and writable", async () => {
    const operatorCrds = corpusObjects("forkspacer", "crds").map(({ object }) => object);
    await installAsHelm(cluster(), operatorCrds);
    const { stored, refused } = await store(cluster(), corpusObjects("forkspacer", "manifests"), "fk");
    // The operator's own CRD refuses four documents of its docs and examples (older field names).
    assert.deepEqual(refused, [
      'docs__concepts__L290.yaml: The Module "expensive-service" is invalid: spec.workspace: Required value',
      'forkspacer__config_samples_batch_v1_module.yaml: The Module "module-sample" is invalid: spec: Required value',
      'forkspacer__examples_module-vcluster-nginx.yaml: Error from server (BadRequest): error when creating "STDIN": Module in version "v1" cannot be handled as a Module: strict decoding error: unknown field "spec.source"',
      'forkspacer__examples_module_custom.yaml: Error from server (BadRequest): error when creating "STDIN": Module in version "v1" cannot be handled as a Module: strict decoding error: unknown field "spec.source"',
    ]);
    assert.equal(stored.length, 26);
    await assert.rejects(install(cluster()), /conflict with "helm".*rerun with --force-conflicts/);
    const out = await install(cluster(), "--force-conflicts");
    assert.match(out, /modules\.batch\.forkspacer\.com condition met \(Established\)/);
    assert.match(out, /workspaces\.batch\.forkspacer\.com condition met \(Established\)/);
    // Our CRD takes every Module the operator's takes: none of them would be refused if created now.
    assert.deepEqual(await assertStillWritable(cluster(), stored), []);
  });

  it("a legacy Module the operator's CRD took and ours refuses (both helm and custom) can still be labelled (ratcheting)", async () => {
    // The CRDs are ours now: put the operator's Module CRD back, store the legacy object, upgrade again.
    const operatorModuleCrd = corpusObjects("forkspacer", "crds")
      .map(({ object }) => object)
      .filter((crd) => crd.metadata.name === "modules.batch.forkspacer.com");
    await kubectlApply(cluster(), operatorModuleCrd, [
      "--server-side",
      "--field-manager",
      "helm",
      "--force-conflicts",
    ]);
    const legacy = {
      apiVersion: "batch.forkspacer.com/v1",
      kind: "Module",
      metadata: { name: "legacy", namespace: "default" },
      spec: {
        helm: {
          chart: { repo: { url: "https://charts.example.com", chart: "app", version: "1.0.0" } },
          namespace: "default",
        },
        custom: { image: "registry.example.com/app:1" },
        workspace: { name: "dev", namespace: "default" },
      },
    };
    const created = await cluster().kubectl(["create", "-f", "-"], { input: JSON.stringify(legacy) });
    assert.equal(created.code, 0, created.stderr);
    await install(cluster(), "--force-conflicts");
    assert.deepEqual(
      await assertStillWritable(cluster(), [{ namespace: "default", kind: "Module", name: "legacy" }]),
      [
        'Module default/legacy: The Module "legacy-copy" is invalid: spec.custom: Forbidden: may not be set together with spec.helm (rule module.source)',
      ],
    );
  });

  it("over lifecycle-manager's CRDs and the real ModuleTemplates stored under them (--include-optional)", async () => {
    const klmCrds = corpusObjects("kyma", "crds")
      .filter(({ file }) => file.startsWith("operator.kyma-project.io_"))
      .map(({ object }) => object);
    assert.deepEqual(klmCrds.map((crd) => crd.metadata.name).sort(), [
      "modulereleasemetas.operator.kyma-project.io",
      "moduletemplates.operator.kyma-project.io",
    ]);
    await installAsHelm(cluster(), klmCrds);
    const { stored, refused } = await store(cluster(), corpusObjects("kyma", "moduletemplates"), "kt");
    // One template of lifecycle-manager's history uses a field its current CRD no longer has.
    assert.deepEqual(refused, [
      'lm-history--config_samples_component-integration-installed_operator_v1beta2_moduletemplate_skr-module.yaml: Error from server (BadRequest): error when creating "STDIN": ModuleTemplate in version "v1beta2" cannot be handled as a ModuleTemplate: strict decoding error: unknown field "spec.target"',
    ]);
    assert.equal(stored.length, 74);
    const out = await install(cluster(), "--include-optional", "--force-conflicts");
    assert.match(out, /moduletemplates\.operator\.kyma-project\.io condition met \(Established\)/);
    assert.match(out, /modulereleasemetas\.operator\.kyma-project\.io condition met \(Established\)/);
    assert.deepEqual(await assertStillWritable(cluster(), stored), []);
  });
});
