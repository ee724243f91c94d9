import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { load, loadAll } from "js-yaml";
import {
  clusters,
  find,
  helmLint,
  helmTemplate,
  type Manifest,
  releaseNamespace,
  render,
} from "../support/chart.js";
import { withoutGo } from "../support/go-tools.js";
import { chartDir, helm } from "../support/helm.js";
import { schemaProblems } from "../support/kubernetes-schemas.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";

const fullname = "rel-module-admission";
const container = (manifests: Manifest[]) => find(manifests, "Deployment").spec.template.spec.containers[0];

describe("values schema: closed at every level", { skip: withoutGo }, () => {
  test("a misspelt key fails helm template at the top level and below, naming the key", async () => {
    const typos: [object, RegExp][] = [
      [{ certificate: { mode: "certManager" } }, /at '': additional properties 'certificate' not allowed/],
      [
        { certificates: { existingSecret: { nmae: "x" } } },
        /at '\/certificates\/existingSecret': additional properties 'nmae' not allowed/,
      ],
      [{ image: { digets: "sha256:0" } }, /at '\/image': additional properties 'digets' not allowed/],
      [{ webhook: { failurepolicy: "Ignore" } }, /at '\/webhook': additional properties 'failurepolicy'/],
      [{ audit: { schedul: "@daily" } }, /at '\/audit': additional properties 'schedul' not allowed/],
      [{ podDisruptionBudget: { maxUnavailable: 1 } }, /'maxUnavailable' not allowed/],
    ];
    for (const [values, message] of typos) {
      const result = await helmTemplate(values);
      assert.notEqual(result.code, 0, JSON.stringify(values));
      assert.match(result.stderr, message);
    }
  });

  test("every object in the schema is closed, or a Kubernetes field passed through as given", () => {
    const schema = JSON.parse(readFileSync(join(chartDir, "values.schema.json"), "utf8"));
    const passThrough = new Set([
      "/global",
      "/resources",
      "/affinity",
      "/addonOperator/modulesVolume",
      "/audit/resources",
      "/ruleActions",
    ]);
    const open: string[] = [];
    const walk = (node: Record<string, unknown>, path: string) => {
      if (node.type === "object" && node.additionalProperties === undefined && !passThrough.has(path)) {
        open.push(path || "/");
      }
      for (const [key, child] of Object.entries((node.properties ?? {}) as Record<string, object>)) {
        walk(child as Record<string, unknown>, `${path}/${key}`);
      }
    };
    walk(schema, "");
    assert.deepEqual(open, []);
    // And the defaults themselves pass: every key of values.yaml is declared.
    const defaults = load(readFileSync(join(chartDir, "values.yaml"), "utf8")) as Record<string, unknown>;
    assert.deepEqual(
      Object.keys(defaults).filter((key) => !(key in schema.properties)),
      [],
    );
  });
});

describe("metrics off", { skip: withoutGo }, () => {
  test("--set metricsBindAddress=0 (a number to helm) passes the schema: no metrics port on the pod or the Service", async () => {
    const result = await helm([
      "template",
      "rel",
      chartDir,
      "--namespace",
      releaseNamespace,
      "--set",
      "metricsBindAddress=0",
    ]);
    assert.equal(result.code, 0, result.stderr);
    const manifests = (loadAll(result.stdout) as (Manifest | null)[]).filter(
      (doc): doc is Manifest => doc !== null,
    );
    const webhook = container(manifests);
    assert.ok(webhook.args.includes("--metrics-bind-address=0"));
    assert.ok(!webhook.ports.some((p: { name: string }) => p.name === "metrics"));
    assert.deepEqual(
      find(manifests, "Service").spec.ports.map((p: { name: string }) => p.name),
      ["https"],
    );
    const lint = await helm(["lint", chartDir, "--strict", "--set", "metricsBindAddress=0"]);
    assert.equal(lint.code, 0, lint.stdout);
    const wrong = await helm(["template", "rel", chartDir, "--set", "metricsBindAddress=8080"]);
    assert.notEqual(wrong.code, 0, "a bare port is neither an address nor 0");
  });
});

describe("PodDisruptionBudget only with more than one replica", { skip: withoutGo }, () => {
  test("one replica: no PDB (it would block every node drain); two: minAvailable 1", async () => {
    const single = await render({ replicaCount: 1 });
    assert.ok(!single.some((m) => m.kind === "PodDisruptionBudget"));
    assert.equal(find(single, "Deployment").spec.replicas, 1);
    const lint = await helmLint({ replicaCount: 1 });
    assert.equal(lint.code, 0, lint.stdout);
    assert.equal(find(await render({ replicaCount: 2 }), "PodDisruptionBudget").spec.minAvailable, 1);
  });
});

describe("kubeVersion and what the cluster serves", { skip: withoutGo }, () => {
  const chart = load(readFileSync(join(chartDir, "Chart.yaml"), "utf8")) as Record<string, any>;

  test("Chart.yaml admits 1.34 and refuses 1.33, as helm checks it", async () => {
    assert.equal(chart.kubeVersion, ">=1.34.0-0");
    assert.equal((await helmTemplate({}, ["--kube-version", "1.34.0"])).code, 0);
    const old = await helmTemplate({}, ["--kube-version", "1.33.9"]);
    assert.notEqual(old.code, 0);
    assert.match(
      old.stderr,
      /chart requires kubeVersion: >=1\.34\.0-0 which is incompatible with Kubernetes v1\.33\.9/,
    );
  });

  test("the ValidatingAdmissionPolicy only where admissionregistration.k8s.io/v1 serves it (--api-versions)", async () => {
    const current = (await render({}, clusters.current)).map((m) => m.kind);
    assert.ok(current.includes("ValidatingAdmissionPolicy"));
    assert.ok(current.includes("ValidatingAdmissionPolicyBinding"));
    const without = (await render({}, clusters.withoutPolicies)).map((m) => m.kind);
    assert.ok(!without.includes("ValidatingAdmissionPolicy"));
    assert.ok(!without.includes("ValidatingAdmissionPolicyBinding"));
  });
});

describe("image and Artifact Hub metadata", { skip: withoutGo }, () => {
  const digest = `sha256:${"ab".repeat(32)}`;

  test("image.digest pins the image by digest, for the webhook and its test alike; a malformed digest fails", async () => {
    const manifests = await render({ image: { digest } });
    assert.equal(container(manifests).image, `ghcr.io/forkspacer/module-admission@${digest}`);
    assert.equal(find(manifests, "Pod").spec.containers[0].image, container(manifests).image);
    assert.equal(container(await render()).image, "ghcr.io/forkspacer/module-admission:0.1.0");
    const bad = await helmTemplate({ image: { digest: "latest" } });
    assert.match(bad.stderr, /\/image\/digest': 'latest' does not match pattern/);
  });

  test("Artifact Hub annotations parse and name the image of this appVersion, which is package.json's version", () => {
    const chart = load(readFileSync(join(chartDir, "Chart.yaml"), "utf8")) as Record<string, any>;
    const annotations = chart.annotations as Record<string, string>;
    const images = load(annotations["artifacthub.io/images"] ?? "") as { name: string; image: string }[];
    assert.deepEqual(images, [
      { name: "module-admission", image: `ghcr.io/forkspacer/module-admission:${chart.appVersion}` },
    ]);
    // One version for the package, the image and the chart's appVersion (docs/architecture.md: "Making a release").
    assert.equal(
      chart.appVersion,
      JSON.parse(readFileSync(join(chartDir, "..", "..", "package.json"), "utf8")).version,
    );
    const links = load(annotations["artifacthub.io/links"] ?? "") as { name: string; url: string }[];
    assert.ok(links.every((link) => /^https:\/\//.test(link.url)));
    assert.equal(
      annotations["artifacthub.io/license"],
      JSON.parse(readFileSync("package.json", "utf8")).license,
    );
  });
});

describe("helm test: one AdmissionReview posted to the Service", { skip: withoutGo }, () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  /** Runs the rendered test Pod's command with this machine's Node.js against the live server. */
  async function runTestPod(pod: Manifest, path?: string, untrustedCa?: string) {
    const [testContainer] = pod.spec.containers;
    const env: Record<string, string> = Object.fromEntries(
      testContainer.env.map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    const url = new URL(env.WEBHOOK_URL ?? "");
    const local = `https://localhost:${server.running.port}${path ?? url.pathname}`;
    const caFile = join(server.certDir, "ca.crt");
    const [node, ...nodeArgs] = [...testContainer.command, ...testContainer.args];
    assert.equal(node, "/nodejs/bin/node");
    try {
      const { stdout } = await promisify(execFile)(process.execPath, nodeArgs, {
        env: {
          WEBHOOK_URL: local,
          // The CA as the pod gets it: the bundle from values, or the Secret's ca.crt mounted as a file.
          ...(untrustedCa || env.CA_BUNDLE
            ? { CA_BUNDLE: untrustedCa ?? env.CA_BUNDLE }
            : { CA_FILE: caFile }),
        },
      });
      return { code: 0, output: stdout };
    } catch (error) {
      const failed = error as { code: number; stderr: string };
      return { code: failed.code, output: failed.stderr };
    }
  }

  test("the hook Pod: a test hook, non-root, read-only, at the Service's validating path, with the CA", async () => {
    const pod = find(await render(), "Pod", `${fullname}-test`);
    assert.equal(pod.metadata.annotations["helm.sh/hook"], "test");
    assert.deepEqual(schemaProblems(pod), []);
    assert.equal(pod.spec.securityContext.runAsNonRoot, true);
    assert.equal(pod.spec.containers[0].securityContext.readOnlyRootFilesystem, true);
    const env = Object.fromEntries(
      pod.spec.containers[0].env.map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    assert.equal(
      env.WEBHOOK_URL,
      `https://${fullname}.${releaseNamespace}.svc:443/validate-batch-forkspacer-com-v1-module`,
    );
    assert.equal(pod.spec.volumes[0].secret.secretName, `${fullname}-tls`);
  });

  test("its command, run here against the real server, passes on the webhook's denial", async () => {
    const pod = find(await render(), "Pod", `${fullname}-test`);
    const result = await runTestPod(pod);
    assert.equal(result.code, 0, result.output);
    assert.match(result.output, /the webhook denied the invalid Module: .*spec\.helm\.releaseName/);
  });

  test("it fails when the answer is not a denial, or the certificate is not the CA's", async () => {
    const pod = find(await render(), "Pod", `${fullname}-test`);
    const admitted = await runTestPod(pod, "/mutate-batch-forkspacer-com-v1-module");
    assert.equal(admitted.code, 1, admitted.output);
    assert.match(admitted.output, /an invalid Module was admitted/);
    const otherCa = readFileSync(join(server.certDir, "tls.crt")).toString("base64");
    const untrusted = await runTestPod(pod, undefined, otherCa);
    assert.equal(untrusted.code, 1, untrusted.output);
  });

  test("existingSecret: the CA comes from certificates.existingSecret.caBundle", async () => {
    const caBundle = Buffer.from(server.ca).toString("base64");
    const pod = find(
      await render({
        certificates: { mode: "existingSecret", existingSecret: { name: "my-tls", caBundle } },
      }),
      "Pod",
    );
    assert.equal(pod.spec.volumes, undefined);
    const result = await runTestPod(pod);
    assert.equal(result.code, 0, result.output);
  });
});
