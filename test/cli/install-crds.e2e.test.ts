import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { load as loadYaml } from "js-yaml";
import { installCrds } from "../../src/cli/install-crds.js";
import { builtCli } from "../support/built-cli.js";
import { type ControlPlane, useControlPlane } from "../support/control-plane.js";
import { type FakeKubeApi, startFakeKubeApi } from "../support/fake-kube-api.js";
import { withoutGo } from "../support/go-tools.js";

type Anything = any;
const crdsDir = new URL("../../charts/module-admission/files/crds/", import.meta.url);
const generatedFiles = readdirSync(crdsDir).sort();
const generated = (file: string) => loadYaml(readFileSync(new URL(file, crdsDir), "utf8")) as Anything;
// What install-crds applies by default: every generated CRD but the optional ones (Kyma's).
const isOptional = (file: string) => file.endsWith(".operator.kyma-project.io.yaml");
const chartCrds = generatedFiles.filter((file) => !isOptional(file));
const moduleCrd = "modules.batch.forkspacer.com";

const home = () => ({ HOME: mkdtempSync(join(tmpdir(), "home-")) });
async function run(args: string[], env: NodeJS.ProcessEnv = home()) {
  let out = "";
  await installCrds(args, { out: (text) => (out += text), env, pollMs: 5 });
  return out;
}

async function storedCrd(cluster: ControlPlane, name: string): Promise<Anything> {
  const get = await cluster.kubectl([
    "get",
    "customresourcedefinition",
    name,
    "-o",
    "json",
    "--show-managed-fields",
  ]);
  assert.equal(get.code, 0, get.stderr);
  return JSON.parse(get.stdout);
}

const condition = (crd: Anything, type: string) =>
  crd.status.conditions.find((c: { type: string }) => c.type === type)?.status;

/** The parts of a CRD's spec that the generated file sets, as the API server stores them. */
const specAsGenerated = (crd: Anything) => ({
  group: crd.spec.group,
  names: crd.spec.names,
  scope: crd.spec.scope,
  versions: crd.spec.versions,
});

describe("install-crds", () => {
  it("--dry-run prints the generated CRDs and talks to no cluster", async () => {
    const out = await run(["--dry-run"]);
    const withoutHeaders = chartCrds.map((file) =>
      readFileSync(new URL(file, crdsDir), "utf8").replace(/^#.*\n/, ""),
    );
    assert.equal(out, withoutHeaders.join("---\n"));
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

  it("fails clearly without cluster access and on a bad --timeout", async () => {
    await assert.rejects(run([]), /install-crds needs cluster access: no kubeconfig and not in a cluster/);
    await assert.rejects(
      run(["--timeout", "soon"]),
      /--timeout must be a positive number of seconds, got "soon"/,
    );
  });

  describe("against a real API server", { skip: withoutGo }, () => {
    const cluster = useControlPlane();

    it("applies every generated CRD server-side as module-admission; the server stores them as generated and Establishes them", async () => {
      const out = await run(["--kubeconfig", cluster().kubeconfigPath]);
      const names = chartCrds.map((file) => generated(file).metadata.name);
      assert.equal(
        out,
        [
          ...names.map(
            (name) => `customresourcedefinition.apiextensions.k8s.io/${name} serverside-applied\n`,
          ),
          ...names.map(
            (name) => `customresourcedefinition.apiextensions.k8s.io/${name} condition met (Established)\n`,
          ),
        ].join(""),
      );
      for (const file of chartCrds) {
        const stored = await storedCrd(cluster(), generated(file).metadata.name);
        assert.equal(condition(stored, "Established"), "True");
        assert.deepEqual(specAsGenerated(stored), specAsGenerated(generated(file)));
        const applied = stored.metadata.managedFields.filter(
          (entry: Anything) => entry.operation === "Apply",
        );
        assert.deepEqual(
          applied.map((entry: Anything) => entry.manager),
          ["module-admission"],
        );
      }
    });

    it("is idempotent: applying again changes nothing the server stores", async () => {
      const before = (await storedCrd(cluster(), moduleCrd)).metadata.resourceVersion;
      await run(["--kubeconfig", cluster().kubeconfigPath]);
      assert.equal((await storedCrd(cluster(), moduleCrd)).metadata.resourceVersion, before);
    });

    it("--include-optional: Kyma's ModuleTemplate and ModuleReleaseMeta too, Established", async () => {
      const out = await run(["--kubeconfig", cluster().kubeconfigPath, "--include-optional"]);
      for (const file of generatedFiles.filter(isOptional)) {
        const name = generated(file).metadata.name;
        assert.match(out, new RegExp(`${name.replace(/\./g, "\\.")} condition met \\(Established\\)`));
        const stored = await storedCrd(cluster(), name);
        assert.deepEqual(specAsGenerated(stored), specAsGenerated(generated(file)));
      }
    });

    it("stops at a conflict with another field manager unless --force-conflicts (the built command)", async () => {
      const edited = generated("workspaces.batch.forkspacer.com.yaml");
      edited.spec.versions[0].additionalPrinterColumns = [
        { name: "Type", type: "string", jsonPath: ".spec.type" },
      ];
      const kubectlOwned = await cluster().kubectl(
        ["apply", "--server-side", "--field-manager", "helm", "--force-conflicts", "-f", "-"],
        {
          input: JSON.stringify(edited),
        },
      );
      assert.equal(kubectlOwned.code, 0, kubectlOwned.stderr);
      const refused = builtCli(["install-crds", "--kubeconfig", cluster().kubeconfigPath]);
      assert.equal(refused.status, 2);
      assert.match(
        refused.stderr,
        /applying CustomResourceDefinition workspaces\.batch\.forkspacer\.com: Apply failed with 1 conflict: conflict with "helm": \.spec\.versions \(HTTP 409\); rerun with --force-conflicts to take ownership of those fields/,
      );
      const forced = builtCli([
        "install-crds",
        "--kubeconfig",
        cluster().kubeconfigPath,
        "--force-conflicts",
      ]);
      assert.equal(forced.status, 0, forced.stderr);
      const stored = await storedCrd(cluster(), "workspaces.batch.forkspacer.com");
      assert.deepEqual(
        specAsGenerated(stored),
        specAsGenerated(generated("workspaces.batch.forkspacer.com.yaml")),
      );
    });

    it("uses $KUBECONFIG like kubectl", async () => {
      const out = await run([], { KUBECONFIG: cluster().kubeconfigPath, ...home() });
      assert.match(out, /modules\.batch\.forkspacer\.com condition met \(Established\)/);
    });

    it("fails at once, with the server's reason, when the CRD's names are taken by another CRD", async () => {
      // Another CRD of the group already serves the kind Module: the API server never Establishes ours.
      const schemasDir = mkdtempSync(join(tmpdir(), "schemas-"));
      const module = readFileSync(new URL("../../schemas/module.yaml", import.meta.url), "utf8");
      writeFileSync(
        join(schemasDir, "module.yaml"),
        module
          .replace(/plural: modules/, "plural: othermodules")
          .replace(/singular: module/, "singular: othermodule"),
      );
      let out = "";
      await assert.rejects(
        installCrds(["--kubeconfig", cluster().kubeconfigPath], {
          out: (text) => (out += text),
          env: {},
          schemasDir,
        }),
        /CustomResourceDefinition othermodules\.batch\.forkspacer\.com: names not accepted: "ModuleList" is already in use/,
      );
      assert.match(out, /othermodules\.batch\.forkspacer\.com serverside-applied/);
    });
  });

  describe("a CRD that is never Established (fake API server: a real one establishes at once)", () => {
    let api: FakeKubeApi | undefined;
    after(async () => {
      await api?.close();
    });

    it("fails after --timeout with the last condition", async () => {
      api = await startFakeKubeApi({ establishAfterReads: Number.POSITIVE_INFINITY });
      await assert.rejects(
        run(["--kubeconfig", api.kubeconfigPath, "--timeout", "0.05"]),
        /CustomResourceDefinition modules\.batch\.forkspacer\.com not Established after 0\.05s: Installing/,
      );
    });
  });
});
