import assert from "node:assert/strict";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import type { Module } from "../../src/generated/module.js";
import { builtCli, builtFindings } from "../support/built-cli.js";
import { registerServeWithoutLookups } from "../support/chart-webhooks.js";
import { manifestDir } from "../support/cli.js";
import { useControlPlane } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";
import { chartDir, helm } from "../support/helm.js";
import { kedaReleaseMeta } from "../support/modulereleasemetas.js";
import { customModule } from "../support/modules.js";

type Json = Record<string, unknown>;

/**
 * Issue 43: what the Forkspacer operator builds from an object after admission, checked as the systems
 * that receive it check it. The real kube-apiserver says what it answers the runner Pod and the managed
 * cluster's namespace, helm (built from its Go module) what it answers the release; `serve`, registered
 * in that API server, and the built `validate` deny the object with those words.
 */
describe("what the operator builds after admission: serve in the real API server and the built validate, against the API server's and Helm's own checks", {
  skip: withoutGo,
}, () => {
  const plane = useControlPlane();

  before(async () => {
    await registerServeWithoutLookups(plane());
  });

  /** A dry-run create through the API server (and so serve's webhooks): its exit code and words. */
  const create = (object: object) =>
    plane().kubectl(["create", "--dry-run=server", "-o", "name", "-f", "-"], {
      input: JSON.stringify(object),
    });

  /** The built `validate` on these objects: its exit status and its findings' rule and message. */
  const validate = (objects: object[]) => {
    const run = builtCli([
      "validate",
      join(manifestDir({ "objects.yaml": objects }), "objects.yaml"),
      "-o",
      "json",
    ]);
    return {
      status: run.status,
      findings: builtFindings(run).filter((finding) => finding.severity === "error"),
    };
  };

  it("a custom module's image with a leading or trailing space, as written or rendered: denied with the API server's words for the runner Pod", async () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "runner", namespace: "default" },
      spec: { containers: [{ name: "runner", image: "app:1 " }] },
    };
    const refused = await create(pod);
    assert.notEqual(refused.code, 0);
    const words = "must not have leading or trailing whitespace";
    assert.match(
      refused.stderr,
      new RegExp(`spec.containers\\[0\\]\\.image: Invalid value: "app:1 ": ${words}`),
    );

    const withImage = (image: string, tag?: string): Module => {
      const module = customModule();
      module.metadata = {
        name: `runner-${tag === undefined ? "literal" : "rendered"}`,
        namespace: "default",
      };
      if (module.spec.custom) module.spec.custom.image = image;
      if (tag !== undefined) {
        module.config = [{ name: "Tag", alias: "tag", string: { default: "v1" } }];
        module.spec.config = { tag };
      }
      return module;
    };
    for (const [bad, good] of [
      [withImage(" my-registry/app:v1"), withImage("my-registry/app:v1")],
      [
        withImage("my-registry/app:{{ .config.tag }}", "v1 "),
        withImage("my-registry/app:{{ .config.tag }}", "v1"),
      ],
    ] as const) {
      const denied = await create(bad);
      assert.notEqual(denied.code, 0, denied.stdout);
      assert.match(
        denied.stderr,
        new RegExp(
          `spec\\.custom\\.image: Invalid value: .*${words}.*\\(rule module\\.custom-image-whitespace\\)`,
        ),
      );
      const offline = validate([bad]);
      assert.equal(offline.status, 1);
      assert.deepEqual(
        offline.findings.map((finding) => finding.rule),
        ["validating-webhook/module.custom-image-whitespace"],
      );
      assert.match(offline.findings[0]?.message ?? "", new RegExp(words));
      const admitted = await create(good);
      assert.equal(admitted.code, 0, admitted.stderr);
      assert.equal(validate([good]).status, 0);
    }
  });

  it("a managed Workspace named team.a or with 43 characters: denied with the API server's namespace words and Helm's release words; 42 characters admitted", async () => {
    const managed = (name: string): Json => ({
      apiVersion: "batch.forkspacer.com/v1",
      kind: "Workspace",
      metadata: { name, namespace: "default" },
      spec: { type: "managed" },
    });
    // The API server's answer to the namespace the operator would create.
    const namespace = await create({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "forkspacer-team.a" },
    });
    assert.notEqual(namespace.code, 0);
    const namespaceWords = /metadata\.name: Invalid value: "forkspacer-team\.a": ([^\n]+)/.exec(
      namespace.stderr,
    )?.[1];
    assert.ok(namespaceWords, namespace.stderr);
    // Helm's answer to the release the operator would install.
    const long = "a".repeat(43);
    const release = await helm(["template", `forkspacer-${long}`, chartDir]);
    assert.notEqual(release.code, 0);
    const releaseWords = /^Error: .*?(invalid release name, [^\n]+)$/m.exec(release.stderr)?.[1];
    assert.ok(releaseWords, release.stderr);

    for (const [name, words] of [
      ["team.a", namespaceWords],
      [long, releaseWords],
    ] as const) {
      const denied = await create(managed(name));
      assert.notEqual(denied.code, 0, denied.stdout);
      assert.ok(denied.stderr.includes(words), `${denied.stderr} should say ${words}`);
      assert.match(denied.stderr, /\(rule workspace\.managed-name\)/);
      const offline = validate([managed(name)]);
      assert.equal(offline.status, 1);
      assert.deepEqual(
        offline.findings.map((finding) => finding.rule),
        ["validating-webhook/workspace.managed-name"],
      );
      assert.ok(offline.findings[0]?.message.includes(words));
    }
    const longest = "a".repeat(42);
    assert.equal((await helm(["template", `forkspacer-${longest}`, chartDir])).code, 0);
    const admitted = await create(managed(longest));
    assert.equal(admitted.code, 0, admitted.stderr);
    assert.equal(validate([managed(longest)]).status, 0);
  });
  it("a ModuleReleaseMeta channel at 1.0.18446744073709551616 (the CRD's pattern admits it): serve and validate deny it with lifecycle-manager's and its semver library's words", async () => {
    await plane().kubectl(["create", "namespace", "kcp-system"]);
    const meta = kedaReleaseMeta({ regular: "1.0.18446744073709551616", fast: "1.3.0" });
    const denied = await create(meta);
    assert.notEqual(denied.code, 0, denied.stdout);
    assert.match(
      denied.stderr,
      /spec\.channels\[0\]\.version: Invalid value: "1\.0\.18446744073709551616": lifecycle-manager cannot parse it: .*value out of range.*\(rule modulereleasemeta\.version\)/,
    );
    const offline = validate([meta]);
    assert.equal(offline.status, 1);
    assert.deepEqual(
      offline.findings.map((finding) => finding.rule),
      ["validating-webhook/modulereleasemeta.version"],
    );
    const fine = await create(kedaReleaseMeta({ regular: "1.0.18446744073709551615", fast: "1.3.0" }));
    assert.equal(fine.code, 0, fine.stderr);
  });
});
